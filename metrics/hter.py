"""HTER: the translation edit rate of an output against its human post-edit (Snover et al. 2006).

``hter(output, post_edit)`` = TER edits (insertions, deletions, substitutions, shifts) needed
to turn the output into the post-edit, divided by the number of post-edit words — computed by
sacrebleu's TER with its defaults (tercom tokenisation, case-insensitive, punctuation kept),
as a fraction: ``sacrebleu.sentence_ter(output, [post_edit]).score / 100``.

Defined edge cases (sacrebleu's): 0.0 when both are empty or whitespace-only, 1.0 when
exactly one of them is. HTER is lower-is-better; 0.0 means the annotator changed nothing
(up to case). It can exceed 1.0 when the output is much longer than the post-edit.
"""

from __future__ import annotations

from collections.abc import Sequence

from sacrebleu.metrics import TER

from metrics.base import Progress
from metrics.sacrebleu_metrics import SacrebleuMetric, score_many

_TER = TER()


def hter(output: str, post_edit: str) -> float:
    """TER edits / post-edit length (fraction); 0 when both are empty."""
    return float(_TER.sentence_score(output or "", [post_edit or ""]).score) / 100.0


def hter_many(
    outputs: Sequence[str], post_edits: Sequence[str], progress: Progress | None = None
) -> list[float]:
    """:func:`hter` of many (output, post-edit) pairs: identical pairs are scored once, an
    unchanged output is 0.0 without running TER's shift search, and large batches use both
    cores (the same sacrebleu TER, so the values equal :func:`hter`'s exactly)."""
    pairs = [(o or "", p or "") for o, p in zip(outputs, post_edits, strict=True)]
    todo = sorted({pair for pair in pairs if pair[0] != pair[1] and pair not in _MEMO})
    if todo:
        scored = score_many(
            [SacrebleuMetric("ter")], [o for o, _ in todo], [p for _, p in todo], progress
        )["ter"]
        if len(_MEMO) + len(todo) > _MEMO_MAX:
            _MEMO.clear()
        _MEMO.update((pair, v / 100.0) for pair, v in zip(todo, scored, strict=True))
    return [0.0 if o == p else _MEMO[(o, p)] for o, p in pairs]


# Re-imports and round-trips meet the same post-edits again; TER is slow on long texts.
_MEMO: dict[tuple[str, str], float] = {}
_MEMO_MAX = 200_000
