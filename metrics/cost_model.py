"""How long a sentence metric takes on a given text: the cost model behind the estimate.

Seconds per output, serial, on the project machine (2 cores, other work running), fitted on
600 Chaganty summaries and 1,500 WMT21 TED segments per metric:

* BLEU, chrF, chrF++ are linear in the characters of output + reference:
  1.5, 4.1 and 4.7 µs per character (the same on both sets to ±10 %, 20 % for chrF++);
* TER (:class:`metrics.ter_fast.FastTER`) grows with the number of shift candidates times
  the rows each one recomputes: ``1.67e-8 × (hyp words × ref words) ** 1.5`` s, which fits
  both sets (predicted/actual 0.95 on Chaganty, 1.04 on WMT; a linear model in words or
  characters misses WMT by 4×);
* BERTScore is per output (its inputs are truncated to the model's length).

The estimate (:mod:`metrics.scoring_job`) multiplies these by a factor learned from the
machine's last runs.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Serial seconds per character of output + reference.
SECONDS_PER_CHAR = {"bleu": 1.5e-6, "chrf": 4.1e-6, "chrf++": 4.7e-6}
#: TER: seconds × (hypothesis words × reference words) ** TER_POWER, plus a fixed part.
TER_SECONDS = 1.67e-8
TER_POWER = 1.5
TER_FIXED_S = 5e-5
BERTSCORE_SECONDS_PER_OUTPUT = 1 / 160
#: Metrics outside the table (imported or new ones): per output.
FALLBACK_SECONDS_PER_OUTPUT = 0.002


def output_seconds(metric: str, hypothesis: str | None, reference: str | None) -> float:
    """Serial seconds the metric should take on one (output, reference) pair."""
    hyp, ref = hypothesis or "", reference or ""
    if metric == "ter":
        words = len(hyp.split()) * len(ref.split())
        return TER_FIXED_S + TER_SECONDS * words**TER_POWER
    if metric in SECONDS_PER_CHAR:
        return SECONDS_PER_CHAR[metric] * (len(hyp) + len(ref) + 1)
    if metric == "bertscore":
        return BERTSCORE_SECONDS_PER_OUTPUT
    return FALLBACK_SECONDS_PER_OUTPUT


def total_seconds(metric: str, pairs: Iterable[tuple[str | None, str | None]]) -> float:
    """Serial seconds of the metric over (output, reference) pairs."""
    return sum(output_seconds(metric, h, r) for h, r in pairs)
