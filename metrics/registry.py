"""The metric registry: names users type → configured :class:`~metrics.base.Metric` objects.

============  =========================================  ======================  ==========
name          stored keys                                family module           better
============  =========================================  ======================  ==========
``bleu``      ``bleu``                                   sacrebleu_metrics       higher
``chrf``      ``chrf``                                   sacrebleu_metrics       higher
``chrf++``    ``chrf++``                                 sacrebleu_metrics       higher
``ter``       ``ter``                                    sacrebleu_metrics       lower
``bertscore`` ``bertscore_p``, ``bertscore_r``,          bertscore               higher
              ``bertscore_f``
============  =========================================  ======================  ==========

A stored key (``bertscore_f``) is accepted as a name too and selects its family.
"""

from __future__ import annotations

from collections.abc import Iterable

from metrics.base import Metric, MetricConfigError
from metrics.bertscore import BERTSCORE_KEYS, BertScoreConfig, BertScoreMetric
from metrics.sacrebleu_metrics import SACREBLEU_KEYS, SacrebleuMetric

METRIC_NAMES: tuple[str, ...] = (*SACREBLEU_KEYS, "bertscore")
DEFAULT_METRICS: tuple[str, ...] = ("bleu", "chrf", "ter", "bertscore")
KEYS: dict[str, tuple[str, ...]] = {
    **{k: (k,) for k in SACREBLEU_KEYS},
    "bertscore": BERTSCORE_KEYS,
}
#: Every stored key → True when larger is better.
HIGHER_IS_BETTER: dict[str, bool] = {
    **{k: k != "ter" for k in SACREBLEU_KEYS},
    **dict.fromkeys(BERTSCORE_KEYS, True),
}
_ALIASES = {"chrfpp": "chrf++", "chrf2": "chrf++", **dict.fromkeys(BERTSCORE_KEYS, "bertscore")}

#: What a pair with an empty or whitespace-only side scores (documented contract, tested).
EMPTY_INPUT_SCORES: dict[str, str] = {
    "bleu": "0.0 (sacrebleu)",
    "chrf": "0.0 (sacrebleu)",
    "chrf++": "0.0 (sacrebleu)",
    "ter": "100.0, or 0.0 when both sides are empty (sacrebleu)",
    "bertscore_p": "0.0 raw (rescaled like any raw score when rescale is on)",
    "bertscore_r": "0.0 raw (rescaled like any raw score when rescale is on)",
    "bertscore_f": "0.0 raw (rescaled like any raw score when rescale is on)",
}


def parse_metric_names(names: str | Iterable[str] | None) -> list[str]:
    """``"bleu,chrf, bertscore_f"`` → ``["bleu", "chrf", "bertscore"]`` (deduplicated).

    None or empty → :data:`DEFAULT_METRICS`. Unknown names raise
    :class:`~metrics.base.MetricConfigError` (a ValueError) naming the option.
    """
    if names is None:
        return list(DEFAULT_METRICS)
    raw = names.split(",") if isinstance(names, str) else list(names)
    out: list[str] = []
    for name in raw:
        key = name.strip().lower()
        if not key:
            continue
        key = _ALIASES.get(key, key)
        if key not in METRIC_NAMES:
            raise MetricConfigError(
                f"unknown metric {name.strip()!r} in the `metrics` option (cli.py --metrics); "
                "known metrics: "
                f"{', '.join(METRIC_NAMES)} (BERTScore keys {', '.join(BERTSCORE_KEYS)} "
                "select bertscore)"
            )
        if key not in out:
            out.append(key)
    return out or list(DEFAULT_METRICS)


def build_metrics(
    names: str | Iterable[str] | None,
    target_lang: str | None = None,
    bertscore: BertScoreConfig | None = None,
) -> list[Metric]:
    """Configured metrics for a campaign whose outputs are in ``target_lang``."""
    metrics: list[Metric] = []
    for name in parse_metric_names(names):
        if name == "bertscore":
            metrics.append(BertScoreMetric(bertscore))
        else:
            metrics.append(SacrebleuMetric.for_lang(name, target_lang))
    return metrics
