"""Cheap text features of an output: inputs to the learned control (docs/statistics-notes.md §23).

Stored like metric scores (one key each, with a signature), so they are computed once per
output, cached by :mod:`metrics.scoring`, shown with the metrics and usable as controls or
as features of the learned control ŷ (:mod:`estimators.fixed_n.learned`). None of them reads human
work (post-edits, HTER, ratings): a feature derived from the label would leak it.

==================  ===========================================================
key                 value
==================  ===========================================================
``log_len_ratio``   log((chars(output)+1)/(chars(reference)+1)); the source stands
                    in when the item has no reference
``src_len``         characters of the source (whitespace not counted)
``out_len``         characters of the output (whitespace not counted)
``copy_src``        1 when the output equals the source (case and spacing ignored)
``num_mismatch``    numbers in the reference (else the source) missing from the
                    output plus numbers in the output not in it (multiset difference)
``empty_out``       1 when the output is empty or whitespace only
==================  ===========================================================

Characters, not words, so the features mean the same in scripts without spaces (zh, ja).
Their direction is nominal (``higher_is_better`` matters only for thresholds).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from metrics.base import Metric, MetricConfigError, Progress

FEATURE_KEYS = ("log_len_ratio", "src_len", "out_len", "copy_src", "num_mismatch", "empty_out")
#: Bump when a definition changes: the signature changes and old values are not reused.
VERSION = "1"
#: Nominal direction of each feature (for thresholds; controls do not need one).
HIGHER_IS_BETTER = {
    "log_len_ratio": True, "src_len": True, "out_len": True,
    "copy_src": False, "num_mismatch": False, "empty_out": False,
}  # fmt: skip

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _chars(text: str | None) -> int:
    return 0 if not text else sum(1 for ch in text if not ch.isspace())


def _numbers(text: str | None) -> Counter[str]:
    """Digit runs with their separators removed: '1,000' and '1.000' and '1000' match."""
    return Counter(re.sub(r"[.,]", "", m) for m in _NUMBER.findall(text or ""))


def _norm(text: str | None) -> str:
    return " ".join((text or "").casefold().split())


def text_features(
    source: str | None, reference: str | None, output: str | None
) -> dict[str, float]:
    """The features of one output (see the module docstring)."""
    anchor = reference if reference and reference.strip() else source
    nums_a, nums_o = _numbers(anchor), _numbers(output)
    out_norm = _norm(output)
    return {
        "log_len_ratio": math.log((_chars(output) + 1) / (_chars(anchor) + 1)),
        "src_len": float(_chars(source)),
        "out_len": float(_chars(output)),
        "copy_src": float(bool(out_norm) and out_norm == _norm(source)),
        "num_mismatch": float(sum(((nums_a - nums_o) + (nums_o - nums_a)).values())),
        "empty_out": float(not out_norm),
    }


class FeaturesMetric(Metric):
    """The cheap features as a metric family (``cli.py score --metrics features``)."""

    name = "features"
    keys = FEATURE_KEYS
    needs_reference = False

    def signatures(self) -> dict[str, str]:
        return {k: f"feature:{k}|chars:nonspace|version:{VERSION}" for k in self.keys}

    def higher_is_better(self, key: str) -> bool:
        return HIGHER_IS_BETTER[key]

    def score(
        self,
        hypotheses: Sequence[str],
        references: Sequence[str],
        progress: Progress | None = None,
        sources: Sequence[str | None] | None = None,
    ) -> dict[str, list[float]]:
        """Features of each output; ``sources`` (aligned with ``hypotheses``) are needed."""
        if sources is None or len(sources) != len(hypotheses):
            raise MetricConfigError("the features need each output's source text")
        out: dict[str, list[float]] = {k: [] for k in self.keys}
        for i, (src, ref, hyp) in enumerate(zip(sources, references, hypotheses, strict=True)):
            for k, v in text_features(src, ref, hyp).items():
                out[k].append(v)
            if progress and (i + 1) % 5000 == 0:
                progress(i + 1, len(hypotheses))
        if progress:
            progress(len(hypotheses), len(hypotheses))
        return out
