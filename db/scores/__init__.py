"""Automatic metric scores, thresholds, ρ/η calibration sets and AI error spans."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "ai_spans": ["campaign_spans"],
        "calibration": ["applied_sets", "remove_set", "store_set"],
        "metric_scores": [
            "IMPORTED_MARK",
            "campaign_info",
            "campaign_signatures",
            "imported_score_rows",
            "item_sources",
            "outputs_with_references",
            "save_threshold",
        ],
    },
)
