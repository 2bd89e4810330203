"""Error spans (MQM / ESA): the span model, its validation, the MQM score and the binary label.

Pure functions, no I/O. A span marks what is wrong in an output:

- ``side="target"``: characters ``[start, end)`` of the output (``start < end``);
- ``side="source"``: an omission, marked in the source — a stretch ``[start, end)`` of the
  source that was left out, or a bare position (``start == end``, "missing here").

Offsets count Unicode code points (Python ``str`` indices), never UTF-16 units or bytes.

Scores follow WMT's MQM practice (Freitag et al. 2021, "Experts, Errors, and Context",
TACL; the weights of the WMT21–24 MQM releases):

    penalty(span) = 25    if category is Non-translation
                    5     if severity is major or critical
                    0.1   if severity is minor and category is Fluency/Punctuation
                    1     if severity is minor
    MQM score = −Σ penalty(span)           (0 = no error; higher is better)
    label     = 1{no major/critical span and no non-translation}   ("adequate")

A WMT "Source error" (a problem of the source, not of the translation) is scored like any
span, as WMT's official segment scores do, but never makes the output inadequate.

The weights are configurable per campaign (:class:`Weights`); the label rule is not.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from db.schema.vocabulary import Severity
from estimators.data.campaign import ERROR_FREE_THRESHOLD

__all__ = [
    "DEFAULT_CATEGORIES",
    "WMT_WEIGHTS",
    "Side",
    "Span",
    "SpanConfig",
    "SpanError",
    "Weights",
    "derive",
    "is_non_translation",
    "is_punctuation",
    "is_source_error",
    "mqm_label",
    "mqm_score",
    "parse_spans",
    "penalty",
    "snap_to_words",
]

Side = Literal["target", "source"]
SIDES: tuple[Side, ...] = ("target", "source")
#: MQM core top-level categories (the default taxonomy of a span campaign).
DEFAULT_CATEGORIES = (
    "accuracy",
    "fluency",
    "terminology",
    "style",
    "locale convention",
    "other",
)
MAX_SPANS = 200  # per judgment: far above any real MQM annotation (WMT caps raters at 5)
ESA_RANGE = (0.0, 100.0)


class SpanError(ValueError):
    """A span list that cannot be stored; the message says which span and what to do."""


@dataclass(frozen=True)
class Weights:
    """MQM penalties per span (positive numbers; the score is minus their sum)."""

    minor: float = 1.0
    minor_punctuation: float = 0.1
    major: float = 5.0
    non_translation: float = 25.0

    @staticmethod
    def from_mapping(values: Mapping[str, Any] | None) -> Weights:
        values = dict(values or {})
        unknown = set(values) - set(Weights.__dataclass_fields__)
        if unknown:
            raise SpanError(
                f"unknown MQM weight(s) {sorted(unknown)}; "
                f"use {sorted(Weights.__dataclass_fields__)}"
            )
        out = {}
        for k, v in values.items():
            try:
                w = float(v)
            except (TypeError, ValueError):
                raise SpanError(f"MQM weight {k!r} is {v!r}, not a number") from None
            if not math.isfinite(w) or w < 0:
                raise SpanError(f"MQM weight {k!r} is {v!r}; use a finite number ≥ 0")
            out[k] = w
        return Weights(**out)


#: WMT's MQM weights (the defaults).
WMT_WEIGHTS = Weights()


@dataclass(frozen=True)
class SpanConfig:
    """A span campaign's settings (kept in ``campaigns.meta["spans"]``)."""

    categories: tuple[str, ...] = DEFAULT_CATEGORIES
    weights: Weights = WMT_WEIGHTS
    #: Ask for an ESA-style 0–100 overall score with the spans (Kocmi et al. 2024).
    ask_esa: bool = False
    #: The ESA score from which an output with no error span counts as error-free (the
    #: ``error_free`` judgment kind: 1 = score ≥ this and no span).
    error_free_threshold: float = ERROR_FREE_THRESHOLD

    def to_meta(self) -> dict[str, Any]:
        return {
            "categories": list(self.categories),
            "weights": asdict(self.weights),
            "ask_esa": self.ask_esa,
            "error_free_threshold": self.error_free_threshold,
        }

    @staticmethod
    def from_meta(meta: Mapping[str, Any] | None) -> SpanConfig:
        meta = dict(meta or {})
        cats = tuple(str(c).strip() for c in meta.get("categories") or DEFAULT_CATEGORIES)
        if not cats or any(not c for c in cats) or len({c.casefold() for c in cats}) < len(cats):
            raise SpanError(f"span categories {list(cats)}: give distinct, non-empty names")
        return SpanConfig(
            categories=cats,
            weights=Weights.from_mapping(meta.get("weights")),
            ask_esa=bool(meta.get("ask_esa", False)),
            error_free_threshold=_threshold(meta.get("error_free_threshold")),
        )


def _threshold(value: Any) -> float:
    """An error-free threshold on the ESA scale (0–100); the default when unset."""
    if value is None:
        return ERROR_FREE_THRESHOLD
    lo, hi = ESA_RANGE
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise SpanError(f"the error-free threshold is {value!r}, not a number") from None
    if isinstance(value, bool) or not math.isfinite(t) or not lo <= t <= hi:
        raise SpanError(
            f"the error-free threshold is {value!r}; give a number from {lo:g} to {hi:g}"
        )
    return t


@dataclass(frozen=True, order=True)
class Span:
    """One error span (see the module docstring for offsets and sides)."""

    start: int
    end: int
    severity: Severity
    category: str
    side: Side = "target"

    @property
    def is_missing_mark(self) -> bool:
        return self.side == "source" and self.start == self.end

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "severity": str(self.severity),
            "category": self.category,
            "side": self.side,
        }


def is_non_translation(category: str) -> bool:
    """WMT's "Non-translation" (also spelt "Non-translation!"): the output is not a
    translation of the source at all."""
    return category.strip().rstrip("!").casefold() == "non-translation"


def is_source_error(category: str) -> bool:
    """WMT's "Source error": the rater found the source itself wrong."""
    return category.strip().casefold() == "source error"


def is_punctuation(category: str) -> bool:
    """Fluency/Punctuation (WMT writes the subcategory after a slash)."""
    top, _, sub = category.casefold().partition("/")
    return top.strip() == "fluency" and sub.strip() == "punctuation"


def penalty(span: Span, weights: Weights = WMT_WEIGHTS) -> float:
    """The MQM penalty of one span (module docstring)."""
    if is_non_translation(span.category):
        return weights.non_translation
    if span.severity is not Severity.MINOR:
        return weights.major
    if is_punctuation(span.category):
        return weights.minor_punctuation
    return weights.minor


def mqm_score(spans: Iterable[Span], weights: Weights = WMT_WEIGHTS) -> float:
    """−Σ penalties, rounded to 1e−9 so that equal sums compare equal (0.1 + 0.1 + 0.1)."""
    total = math.fsum(penalty(s, weights) for s in spans)
    return -round(total, 9) + 0.0  # + 0.0 turns −0.0 into 0.0


def mqm_label(spans: Iterable[Span]) -> int:
    """1 (adequate) when no span is major/critical or a non-translation, else 0; source
    errors do not count (they are not the translation's)."""
    return int(
        not any(
            (s.severity is not Severity.MINOR or is_non_translation(s.category))
            and not is_source_error(s.category)
            for s in spans
        )
    )


def derive(spans: Sequence[Span], weights: Weights = WMT_WEIGHTS) -> tuple[int, float]:
    """(binary label, MQM score) of a judgment."""
    return mqm_label(spans), mqm_score(spans, weights)


# ---------------------------------------------------------------- parsing and validation


def _category(value: Any, categories: Sequence[str] | None, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SpanError(f"{where}: the category is missing; pick one of {list(categories or [])}")
    value = value.strip()
    if categories is None:
        return value
    # "Accuracy/Mistranslation" is in the taxonomy when "accuracy" is (case-insensitive).
    top = value.partition("/")[0].strip().casefold()
    for c in categories:
        if c.casefold() in (value.casefold(), top):
            return value if "/" in value else c
    raise SpanError(f"{where}: category {value!r} is not one of {list(categories)}")


def _offset(value: Any, name: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpanError(f"{where}: {name} is {value!r}, not a whole number of characters")
    return value


def parse_spans(
    raw: Iterable[Mapping[str, Any] | Span],
    target: str,
    source: str = "",
    categories: Sequence[str] | None = DEFAULT_CATEGORIES,
) -> list[Span]:
    """Validated spans of one judgment, sorted by position. Identical spans are kept: each
    is an error the rater marked (WMT scores repeated marks once each).

    ``raw`` holds :class:`Span` objects or their JSON form (``start``, ``end``,
    ``severity``, ``category``, optional ``side``). ``categories=None`` accepts any
    category (imports keep the file's own taxonomy). Raises :class:`SpanError` naming the
    span (1-based, in the order given) and what to do.
    """
    if isinstance(raw, str | bytes | Mapping) or not isinstance(raw, Iterable):
        raise SpanError(
            f"the spans are {type(raw).__name__} {str(raw)[:40]!r}, not a list of spans "
            "([] for no errors)"
        )
    out: list[Span] = []
    for n, item in enumerate(raw, start=1):
        where = f"span {n}"
        if n > MAX_SPANS:
            raise SpanError(f"more than {MAX_SPANS} spans in one judgment; merge some")
        if isinstance(item, Span):
            item = item.to_json()
        if not isinstance(item, Mapping):
            raise SpanError(f"{where}: expected an object with start, end, severity, category")
        side = item.get("side", "target")
        if side not in SIDES:
            raise SpanError(f"{where}: side is {side!r}; use 'target' or 'source'")
        start = _offset(item.get("start"), "start", where)
        end = _offset(item.get("end"), "end", where)
        text = target if side == "target" else source
        if not 0 <= start <= end <= len(text):
            raise SpanError(
                f"{where}: [{start}, {end}) is not inside the {side} text "
                f"({len(text)} characters); select text that is shown"
            )
        if side == "target" and start == end:
            raise SpanError(
                f"{where}: an empty selection of the output; select the wrong words, or mark "
                "an omission in the source"
            )
        try:
            severity = Severity(str(item.get("severity", "")).strip().casefold())
        except ValueError:
            raise SpanError(
                f"{where}: severity {item.get('severity')!r} is not one of "
                f"{[s.value for s in Severity]}"
            ) from None
        out.append(
            Span(start, end, severity, _category(item.get("category"), categories, where), side)
        )
    return sorted(out)


# ---------------------------------------------------------------- selection


def _wordlike(ch: str) -> bool:
    """Part of a word a selection snaps to: letters, digits, marks, ``_``, ``'`` and ``-``
    inside words; not East Asian wide characters (CJK has no spaces, so its "words" are
    single characters)."""
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return False
    return bool(re.match(r"[\w'’\-]", ch)) or unicodedata.category(ch).startswith("M")


def snap_to_words(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Grow ``[start, end)`` to whole words and trim surrounding white space; None when the
    selection holds nothing but white space. A selection of punctuation alone stays as is.
    Offsets outside the text are clamped to it (the browser's values are not trusted)."""
    lo, hi = sorted((start, end))
    start, end = min(max(0, lo), len(text)), min(max(0, hi), len(text))
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start == end:
        return None
    if _wordlike(text[start]):
        while start > 0 and _wordlike(text[start - 1]):
            start -= 1
    if _wordlike(text[end - 1]):
        while end < len(text) and _wordlike(text[end]):
            end += 1
    return start, end
