"""Fixed-n estimates of a system's quality: human-only, double sampling, von Däniken, control
variates (PPI++), learned controls."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "controls": [
            "LEARNED",
            "control_efficiency",
            "evaluate",
            "label_bounds",
            "label_grid",
            "learned_control",
        ],
        "efficiency": ["MetricEfficiency", "metric_efficiency"],
        "vondaniken": ["_trunc_beta", "drift_test", "rates_from_counts"],
        "vondaniken_posterior": ["MetricAccuracy", "Ratings", "posterior"],
    },
)
