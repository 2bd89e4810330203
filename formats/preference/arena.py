"""Preference judgments files: read and write pairwise "which output is better" judgments.

The columns of Chatbot Arena's public battle dumps, one row per judgment (CSV, TSV, JSONL or
Parquet, read like a campaign file)::

    question_id,model_a,model_b,winner,judge,probability,shown_left,source,output_a,output_b
    q1,sysA,sysB,model_a,ann3,,model_a,"Guten Tag","Good day","Hello day"

Required: ``model_a``, ``model_b`` (two different systems) and ``winner`` — ``model_a``,
``model_b``, ``tie``, or Chatbot Arena's ``tie (bothbad)`` (a tie; the wording is kept, so
an export gives it back). Optional: ``question_id`` (the source's id), ``judge`` (who
judged: an annotator or an LLM judge), ``probability`` (a judge's P(model_a preferred), in
[0, 1]), ``shown_left`` (``model_a`` or ``model_b``; empty: model_a, as the Arena shows it),
``source``, ``output_a`` / ``output_b`` (texts; Arena's ``conversation_a`` /
``conversation_b`` are read as them, a list of messages kept as its JSON text) and
``output_a_id`` / ``output_b_id``. Other columns are ignored. Every problem names the file,
the row and the column and says what to do; a file with a problem is refused whole.

Writing (:func:`to_csv_bytes`, :func:`to_jsonl_bytes`) gives files this reader takes back
unchanged: CSV cells go through the formula guard with its reversible mark
(:mod:`formats.spreadsheet`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from formats.cells import text
from formats.problems import MAX_LENGTH, MAX_PROBLEMS, CampaignFileError, Problem, failure
from formats.readers import stream_records
from formats.writers import to_delimited, to_jsonl

REQUIRED = ("model_a", "model_b", "winner")
OPTIONAL = ("question_id", "judge", "probability", "shown_left", "source", "output_a",
            "output_b", "output_a_id", "output_b_id")  # fmt: skip
COLUMNS = ("question_id", *REQUIRED, *OPTIONAL[1:])
#: Arena's names for the output texts.
ALIASES = {"conversation_a": "output_a", "conversation_b": "output_b"}
WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")
SIDES = ("model_a", "model_b")
#: Longest id or judge name kept (the database's item and annotator columns).
MAX_ID, MAX_JUDGE = MAX_LENGTH["item_id"], MAX_LENGTH["annotator"]


@dataclass(frozen=True)
class PreferenceJudgment:
    """One validated judgment; ``winner`` is one of :data:`WINNERS`."""

    model_a: str
    model_b: str
    winner: str
    question_id: str = ""
    judge: str = ""
    probability: float | None = None
    shown_left: str = "model_a"
    source: str = ""
    output_a: str = ""
    output_b: str = ""
    output_a_id: str = ""
    output_b_id: str = ""

    @property
    def outcome(self) -> float:
        """1 model_a preferred, ½ a tie, 0 model_b preferred."""
        return {"model_a": 1.0, "model_b": 0.0}.get(self.winner, 0.5)

    @property
    def is_tie(self) -> bool:
        return self.winner.startswith("tie")


def _problem(filename: str, row: int, column: str, message: str, fix: str) -> Problem:
    return Problem(filename, message, fix, row=row, column=column)


def _cell(rec: dict[str, Any], column: str) -> str:
    value = rec.get(column)
    if value is None:
        for alias, name in ALIASES.items():
            if name == column and alias in rec:
                value = rec[alias]
    return text(value)


def _shown(value: str) -> str:
    return repr(value if len(value) <= 60 else value[:57] + "…")


def _row(
    rec: dict[str, Any], row: int, filename: str
) -> tuple[PreferenceJudgment | None, list[Problem]]:
    problems: list[Problem] = []
    values = {c: _cell(rec, c) for c in COLUMNS}
    for column in ("model_a", "model_b"):
        name = values[column]
        if not name.strip():
            problems.append(_problem(filename, row, column, "is empty",
                                     "Give the system's name."))  # fmt: skip
        elif len(name) > MAX_LENGTH["system"]:
            problems.append(_problem(
                filename, row, column,
                f"is {len(name):,} characters long, over the limit of {MAX_LENGTH['system']}",
                "Use a shorter system name.",
            ))  # fmt: skip
    if values["model_a"].strip() and values["model_a"] == values["model_b"]:
        problems.append(_problem(
            filename, row, "model_b", f"is {_shown(values['model_b'])}, the same as model_a",
            "A judgment compares two different systems: drop the row or fix the name.",
        ))  # fmt: skip
    winner = values["winner"].strip().lower()
    if winner not in WINNERS:
        problems.append(_problem(
            filename, row, "winner", f"is {_shown(values['winner'])}",
            "Use model_a, model_b, tie or tie (bothbad).",
        ))  # fmt: skip
    side = values["shown_left"].strip().lower() or "model_a"
    if side not in SIDES:
        problems.append(_problem(
            filename, row, "shown_left", f"is {_shown(values['shown_left'])}",
            "Use model_a or model_b (the system whose output was shown on the left), or leave "
            "it empty.",
        ))  # fmt: skip
    probability = _probability(rec.get("probability"), values["probability"])
    if isinstance(probability, str):
        problems.append(_problem(
            filename, row, "probability", f"is {_shown(probability)}",
            "Give the judge's probability that model_a is preferred, a number from 0 to 1, "
            "or leave it empty.",
        ))  # fmt: skip
    for column, limit in (("question_id", MAX_ID), ("output_a_id", MAX_ID),
                          ("output_b_id", MAX_ID), ("judge", MAX_JUDGE)):  # fmt: skip
        if len(values[column]) > limit:
            problems.append(_problem(
                filename, row, column,
                f"is {len(values[column]):,} characters long, over the limit of {limit}",
                "Use a shorter id.",
            ))  # fmt: skip
    if problems:
        return None, problems
    return PreferenceJudgment(
        model_a=values["model_a"], model_b=values["model_b"], winner=winner,
        question_id=values["question_id"], judge=values["judge"],
        probability=probability if isinstance(probability, float) else None, shown_left=side,
        source=values["source"], output_a=values["output_a"], output_b=values["output_b"],
        output_a_id=values["output_a_id"], output_b_id=values["output_b_id"],
    ), []  # fmt: skip


def _probability(raw: Any, value: str) -> float | str | None:
    """A float in [0, 1], None when empty, the text when it is not one."""
    if isinstance(raw, bool):
        return str(raw)
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        number = float(raw)
        if math.isnan(number):
            return None
    else:
        if not value.strip():
            return None
        try:
            number = float(value)
        except ValueError:
            return value
    return number if 0.0 <= number <= 1.0 else value or str(raw)


def parse(data: bytes, filename: str) -> list[PreferenceJudgment]:
    """The judgments of a preference file (module docstring), or :class:`CampaignFileError`
    listing every problem (up to :data:`MAX_PROBLEMS`), each with its row and column."""
    header, records = stream_records(data, filename)
    columns = set(header) | {ALIASES[h] for h in header if h in ALIASES}
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise failure(
            filename, f"has no column {', '.join(repr(c) for c in missing)}",
            "A preference file needs the columns model_a, model_b and winner (the names "
            "Chatbot Arena's battle dumps use); check the header row.",
        )  # fmt: skip
    judgments: list[PreferenceJudgment] = []
    problems: list[Problem] = []
    for number, (_, rec) in enumerate(records, start=1):
        judgment, found = _row(rec, number, filename)
        problems.extend(found)
        if len(problems) >= MAX_PROBLEMS:
            raise CampaignFileError(problems[:MAX_PROBLEMS], truncated=True)
        if judgment is not None:
            judgments.append(judgment)
    if problems:
        raise CampaignFileError(problems)
    if not judgments:
        raise failure(filename, "holds a header but no judgment",
                      "Add one row per judgment.")  # fmt: skip
    return judgments


def _records(judgments: Iterable[PreferenceJudgment]) -> list[dict[str, Any]]:
    return [asdict(j) for j in judgments]


def to_csv_bytes(judgments: Sequence[PreferenceJudgment]) -> bytes:
    """CSV with every column of :data:`COLUMNS`, formula-guarded and marked as reversible."""
    return to_delimited(COLUMNS, _records(judgments), ",", reversible=True)


def to_jsonl_bytes(judgments: Sequence[PreferenceJudgment]) -> bytes:
    """One JSON object per judgment with the columns of :data:`COLUMNS`."""
    return to_jsonl([{c: r[c] for c in COLUMNS} for r in _records(judgments)])
