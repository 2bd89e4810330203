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
``features``  ``log_len_ratio``, ``src_len``, ``out_len``,  features                nominal
              ``copy_src``, ``num_mismatch``, ``empty_out``
============  =========================================  ======================  ==========

A stored key (``bertscore_f``) is accepted as a name too and selects its family.
"""

from __future__ import annotations

from collections.abc import Iterable

from metrics.base import Metric, MetricConfigError
from metrics.bertscore import BERTSCORE_KEYS, BertScoreConfig, BertScoreMetric
from metrics.features import FEATURE_KEYS, FeaturesMetric
from metrics.features import HIGHER_IS_BETTER as FEATURE_DIRECTIONS
from metrics.sacrebleu_metrics import SACREBLEU_KEYS, SacrebleuMetric

METRIC_NAMES: tuple[str, ...] = (*SACREBLEU_KEYS, "bertscore", "features")
#: What both the Campaigns page and ``cli.py score`` score unless told otherwise (one list, so the
#: two cannot differ). BERTScore is opt-in: its offline model is English (all-MiniLM-L6-v2), slow on
#: 2 cores, and WMT reports the sacrebleu trio.
DEFAULT_METRICS: tuple[str, ...] = ("bleu", "chrf", "ter")
KEYS: dict[str, tuple[str, ...]] = {
    **{k: (k,) for k in SACREBLEU_KEYS},
    "bertscore": BERTSCORE_KEYS,
    "features": FEATURE_KEYS,
}
#: Every stored key → True when larger is better.
HIGHER_IS_BETTER: dict[str, bool] = {
    **{k: k != "ter" for k in SACREBLEU_KEYS},
    **dict.fromkeys(BERTSCORE_KEYS, True),
    **FEATURE_DIRECTIONS,
}
_ALIASES = {
    "chrfpp": "chrf++", "chrf2": "chrf++",
    **dict.fromkeys(BERTSCORE_KEYS, "bertscore"), **dict.fromkeys(FEATURE_KEYS, "features"),
}  # fmt: skip

#: What a pair with an empty or whitespace-only side scores (documented contract, tested).
EMPTY_INPUT_SCORES: dict[str, str] = {
    "bleu": "0.0 (sacrebleu)",
    "chrf": "0.0 (sacrebleu)",
    "chrf++": "0.0 (sacrebleu)",
    "ter": "100.0, or 0.0 when both sides are empty (sacrebleu)",
    "bertscore_p": "0.0 raw (rescaled like any raw score when rescale is on)",
    "bertscore_r": "0.0 raw (rescaled like any raw score when rescale is on)",
    "bertscore_f": "0.0 raw (rescaled like any raw score when rescale is on)",
    **dict.fromkeys(FEATURE_KEYS, "defined per feature (metrics.features; empty_out = 1)"),
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
        elif name == "features":
            metrics.append(FeaturesMetric())
        else:
            metrics.append(SacrebleuMetric.for_lang(name, target_lang))
    return metrics


def resolve_signatures(stored: Iterable[tuple[str, str]], wanted: Iterable[str]) -> list[str]:
    """Metric names or signatures → the stored signatures they name, in order.

    ``stored``: a campaign's (metric, signature) pairs, built-in and imported alike, so
    ``comet22`` finds the imported metric's signature as ``chrf`` finds chrF's. A name that
    matches no signature, or several, raises :class:`MetricConfigError` listing them.
    """
    pairs = list(stored)
    out: list[str] = []
    for name in wanted:
        key = name.strip()
        matches = [sig for _, sig in pairs if sig == key] or [
            sig for metric, sig in pairs if metric == key or metric == key.lower()
        ]
        if len(matches) != 1:
            known = ", ".join(f"{m} ({s})" for m, s in pairs) or "none (score the campaign first)"
            what = "no stored signature" if not matches else f"{len(matches)} signatures"
            raise MetricConfigError(
                f"metric {key!r} matches {what}; give one of the campaign's metric names or "
                f"signatures: {known}"
            )
        if matches[0] not in out:
            out.append(matches[0])
    return out


def split_metric_names(names: str | Iterable[str] | None) -> tuple[list[str], list[str]]:
    """Split a ``--metrics`` list into built-in names (computed here) and the others
    (imported metrics, resolved against the campaign by the caller)."""
    raw = names.split(",") if isinstance(names, str) else list(names or [])
    builtin: list[str] = []
    other: list[str] = []
    for name in (n.strip() for n in raw):
        if not name:
            continue
        key = _ALIASES.get(name.lower(), name.lower())
        target = builtin if key in METRIC_NAMES else other
        if (key if target is builtin else name) not in target:
            target.append(key if target is builtin else name)
    return builtin, other
