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

from sacrebleu.metrics import TER

_TER = TER()


def hter(output: str, post_edit: str) -> float:
    """TER edits / post-edit length (fraction); 0 when both are empty."""
    return float(_TER.sentence_score(output or "", [post_edit or ""]).score) / 100.0
