"""What is wrong with a file, and the limits every imported file obeys: a problem names the
file, the row, the column and what to do; an error carries every problem (up to a cap)."""

from __future__ import annotations

import math
import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_MB = float(os.environ.get("TANDEM_MAX_IMPORT_MB", "200"))
MAX_PROBLEMS = 50
#: Longest value the database keeps, per column (the String(n) lengths in db/schema/models.py; a
#: test checks they agree). PostgreSQL refuses longer values, SQLite would store them: the
#: same limit is enforced here so both databases accept exactly the same files.
MAX_LENGTH = {"item_id": 300, "doc_id": 300, "system": 300, "annotator": 200}
MAX_CAMPAIGN_NAME = 200


@dataclass(frozen=True)
class Problem:
    """One validation problem: where it is and what to do about it."""

    file: str
    message: str
    fix: str
    row: int | None = None  # 1-based data row (the header is not counted)
    line: int | None = None  # physical line in text files, when it differs from row
    column: str | None = None

    def __str__(self) -> str:
        where = [self.file]
        if self.row is not None:
            where.append(f"row {self.row}" + (f" (line {self.line})" if self.line else ""))
        if self.column is not None:
            where.append(f"column '{self.column}'")
        return f"{', '.join(where)}: {self.message}. {self.fix}"


class CampaignFileError(ValueError):
    """The file cannot be imported; ``problems`` lists every reason (up to a cap)."""

    def __init__(self, problems: list[Problem], truncated: bool = False) -> None:
        self.problems = problems
        self.truncated = truncated
        lines = [str(p) for p in problems]
        if truncated:
            lines.append(f"(stopped after {len(problems)} problems; fix these and try again)")
        super().__init__("\n".join(lines))


def failure(filename: str, message: str, fix: str, **where: Any) -> CampaignFileError:
    return CampaignFileError([Problem(filename, message, fix, **where)])


def decode_utf8(data: bytes, filename: str, describe: Callable[[int, int], tuple[str, str]]) -> str:
    """``data`` as UTF-8 text (a BOM dropped), or the file refused: ``describe(byte, line)``
    gives the message and fix for the first byte that is not UTF-8 (line counted from 1)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise failure(filename, *describe(exc.start, line)) from None


def check_size(n_bytes: int, filename: str, max_mb: float = DEFAULT_MAX_MB) -> None:
    """Refuse a file of ``n_bytes`` over the limit; call it before reading the file. The
    limit must be a positive finite number of MB (0, negative or NaN is refused)."""
    check_max_mb(max_mb, filename)
    if n_bytes > max_mb * 1024 * 1024:
        raise failure(
            filename,
            f"is {n_bytes / 1024 / 1024:.1f} MB, over the {max_mb:g} MB import limit",
            "Split the file, or raise the limit with TANDEM_MAX_IMPORT_MB "
            "(or --max-mb on the command line).",
        )


def max_mb_problem(max_mb: Any) -> str:
    """Why ``max_mb`` is not an import size limit ('' when it is one)."""
    ok = isinstance(max_mb, int | float) and not isinstance(max_mb, bool)
    if ok and math.isfinite(max_mb) and max_mb > 0:
        return ""
    return f"the import size limit {max_mb!r} MB is not a positive number"


def check_max_mb(max_mb: Any, filename: str) -> None:
    problem = max_mb_problem(max_mb)
    if problem:
        raise failure(
            filename,
            problem,
            "Give a positive number of megabytes (e.g. --max-mb 500, or TANDEM_MAX_IMPORT_MB=500).",
        )


#: Unicode categories no name may hold: controls (line breaks, tabs, ESC, NUL), format
#: characters (bidirectional overrides such as U+202E, zero-width spaces such as U+200B) and
#: lone surrogates. They make one name look like another, or break a list, a CSV or a page.
NAME_FORBIDDEN_CATEGORIES = ("Cc", "Cf", "Cs")


def bad_name_character(value: str) -> str | None:
    """The first character of ``value`` a name may not hold, as ``U+XXXX``, or None."""
    for ch in value:
        if unicodedata.category(ch) in NAME_FORBIDDEN_CATEGORIES:
            return f"U+{ord(ch):04X}"
    return None


def name_problem(value: str, limit: int) -> str:
    """Why ``value`` (already stripped) cannot be a name of at most ``limit`` characters, or
    "" when it can. The one rule for the names Tandem shows and exports (campaigns,
    annotators, study participants): not empty, at most ``limit`` characters, and no
    control, format (bidirectional, zero-width) or surrogate character."""
    if not value:
        return "is empty"
    if len(value) > limit:
        return f"is too long: {len(value):,} characters, over the limit of {limit}"
    bad = bad_name_character(value)
    if bad is not None:
        what = "a line break, tab, invisible or other control character"
        what = "a NUL byte" if bad == "U+0000" else what
        return f"contains {what} ({bad})"
    return ""


def check_campaign_name(name: str, filename: str) -> None:
    """A campaign name the database stores the same way on SQLite and PostgreSQL
    (:func:`name_problem`'s rule)."""
    stripped = name.strip() if name else ""
    problem = name_problem(stripped, MAX_CAMPAIGN_NAME)
    if problem:
        if not stripped:
            fix = "Give the campaign a name."
        elif len(stripped) > MAX_CAMPAIGN_NAME:
            fix = "Choose a shorter name."
        else:
            fix = "Type the name on one line without control or invisible characters."
        raise failure(filename, f"the campaign name {problem}", fix)
