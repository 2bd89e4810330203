"""The estimators' common ground: the one result type, multiplicity (Holm, Bonferroni, rank sets),
pair verdicts, scratch arrays."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "multiple": ["RankSet", "bonferroni_alpha", "holm", "pairs", "rank_sets"],
        "result": [
            "EstimateResult",
            "MIN_LABELS_FOR_VERDICT",
            "MIN_LABELS_METRIC_ASSISTED",
            "Unavailable",
            "critical_value",
            "difference_bounds",
            "guarded",
            "reason_text",
            "unavailable_result",
            "wald_interval",
            "within",
        ],
        "scratch": ["SCRATCH"],
        "verdicts": ["ERROR_RATE_TEXT", "ErrorRate", "Outcome", "PairVerdict", "fixed_n_words"],
    },
)
