"""Planning: the difference a campaign can detect and the labels it needs, in items or documents."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "documents": ["document_plan", "document_pool_fit"],
        "inputs": ["planning_inputs"],
        "labels_needed": [
            "PERFECT_METRIC",
            "PlannedMetric",
            "human_labels_needed",
            "measurable_difference",
            "min_metric_accuracy",
            "score_labels_needed",
        ],
        "tables": [
            "FIGURE1_ACCURACY",
            "FIGURE1_METRIC",
            "TABLE1_HUMANS",
            "TABLE1_METRIC",
            "calibration_rates",
            "epsilon_grid",
            "epsilon_vs_accuracy",
        ],
    },
)
