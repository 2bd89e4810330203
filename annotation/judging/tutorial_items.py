"""Tutorial and check items: what each shows and expects, read from a file
(formats.tutorial_file) or written on the Annotators page, and whether it fits the
campaign's screen (annotation.judging.tutorial sets, serves and grades them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from annotation.judging import tutorial_checks as checks
from db.schema.vocabulary import CampaignMode
from formats.tutorial_file import TutorialFileError, parse_tutorial_file
from formats.tutorial_file import item as file_item

MAX_ITEMS = 50


class TutorialError(ValueError):
    """A tutorial that cannot be set, or an answer out of turn; nothing was changed."""


@dataclass(frozen=True)
class TutorialItem:
    """One tutorial or check item and what its answer must meet (any of them: an expected
    label, a score range ``(lo, hi)`` on the campaign's 0–100 scale, expected error spans in
    formats.tutorial_file's shape). ``silent``: the answer is recorded and shown to the
    organiser, never to the annotator, and it does not count towards the pass mark."""

    source: str
    output: str
    label: int | None  # 1 adequate, 0 inadequate; None: not asked
    explanation: str
    reference: str | None = None
    score: tuple[float, float] | None = None
    spans: tuple[dict[str, Any], ...] | None = None
    silent: bool = False
    instructions: str | None = None
    warning: str | None = None
    #: spans shown already marked when the item opens (a lesson in deleting one)
    prefill: tuple[dict[str, Any], ...] = ()
    #: a preference item: the second output, the expected winner ("first", "second" or
    #: "tie") and whether a tie is also accepted
    output_b: str | None = None
    winner: str | None = None
    tie_ok: bool = False

    @property
    def expected(self) -> int | None:
        return self.label

    @property
    def expects(self) -> str:
        """What the item checks, in the organiser's words."""
        parts = []
        if self.label is not None:
            parts.append("adequate" if self.label else "inadequate")
        if self.score is not None:
            lo, hi = self.score
            parts.append(f"score {lo:g}" if lo == hi else f"score {lo:g}–{hi:g}")
        if self.spans is not None:
            parts.append(
                "; ".join(checks.describe_span(w, self.output) for w in self.spans) or "no error"
            )
        if self.winner is not None:
            parts.append(checks.describe_winner(self.winner, self.tie_ok))
        return ", ".join(parts)


def item_of(raw: dict[str, Any]) -> TutorialItem:
    """An item from its stored (or formats.tutorial_file's) dict; old tutorials stored the
    label as ``expected``."""
    raw = dict(raw)
    if "expected" in raw:
        raw["label"] = raw.pop("expected")
    raw["score"] = tuple(raw["score"]) if raw.get("score") is not None else None
    raw["spans"] = tuple(raw["spans"]) if raw.get("spans") is not None else None
    raw["prefill"] = tuple(raw.get("prefill") or ())
    known = set(TutorialItem.__dataclass_fields__)
    return TutorialItem(**{k: v for k, v in raw.items() if k in known})


def stored(it: TutorialItem) -> dict[str, Any]:
    out = asdict(it)
    out["score"] = list(it.score) if it.score is not None else None
    out["spans"] = list(it.spans) if it.spans is not None else None
    out["prefill"] = list(it.prefill)
    return out


def parse_file(data: bytes, filename: str = "tutorial file") -> list[TutorialItem]:
    """Tutorial items of a CSV, JSONL or Pearmut JSON file (formats.tutorial_file);
    TutorialError naming the row, the column and what to do."""
    try:
        return [item_of(raw) for raw in parse_tutorial_file(data, filename)]
    except TutorialFileError as refused:
        raise TutorialError(str(refused)) from None


def parse_csv(data: bytes) -> list[TutorialItem]:
    """Tutorial items of a CSV (``source, output, expected_label, explanation``, optional
    ``reference``, and the columns of formats.tutorial_file)."""
    return parse_file(data, "the tutorial file")


def written_item(**fields: Any) -> TutorialItem:
    """An item written on the Annotators page, checked as a file's row would be."""
    try:
        return item_of(file_item(fields, "the new item", 1))
    except TutorialFileError as refused:
        raise TutorialError(str(refused)) from None


def fits_mode(it: TutorialItem, mode: CampaignMode, k: int) -> None:
    """An item must check what the campaign's screen asks for."""
    if mode.asks_preference or it.winner is not None:
        if (
            not mode.asks_preference
            or it.winner is None
            or it.output_b is None
            or any(x is not None for x in (it.label, it.score, it.spans))
        ):
            raise TutorialError(
                f"tutorial item {k}: a preference campaign checks which of two outputs is "
                "better: give output_b and expected_winner only (and only there)"
            )
        return
    if mode.asks_spans:
        if it.label is not None or (it.score is None and it.spans is None):
            raise TutorialError(
                f"tutorial item {k}: an error-span campaign checks spans and the score: give "
                "expected spans or a score range, not a label"
            )
    elif mode.asks_slider:
        if it.score is None or it.label is not None or it.spans is not None:
            raise TutorialError(f"tutorial item {k}: a {mode.value} campaign checks a score: give "
                                "a score range only")  # fmt: skip
    elif it.label is None or it.score is not None or it.spans is not None:
        raise TutorialError(f"tutorial item {k}: this campaign checks a label: give "
                            "expected_label (1 or 0) only")  # fmt: skip


def pair_sides(annotator_id: int, index: int) -> bool:
    """Whether a pair item's first output is shown on the left to this annotator: the
    sides of a real pair (annotation.judging.sides.first_on_left), keyed by the item."""
    from annotation.judging.sides import first_on_left

    return first_on_left(annotator_id, -(index + 1))


def chosen_side(preference: str | None, first_left: bool) -> str | None:
    """A shown answer (left / right / tie) as the item's own: first / second / tie."""
    if preference in (None, "tie"):
        return preference
    return "first" if (preference == "left") == first_left else "second"


def shown_item(item: TutorialItem, shown: tuple[str, str]) -> tuple[str, str]:
    """What the item expects and its output(s), in the words of the sides shown."""
    if item.winner is None or item.output_b is None:
        return item.expects, item.output
    texts = {shown[0]: item.output, shown[1]: item.output_b}
    both = f"left: {texts['left']} · right: {texts['right']}"
    return checks.describe_winner(item.winner, item.tie_ok, shown), both
