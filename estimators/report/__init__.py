"""The dashboard's numbers: a campaign's arrays through every estimator into tables."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "campaign_report": [
            "CampaignReport",
            "PREFERRED_METRICS",
            "WIDTH_PAIRS",
            "dashboard_report",
            "default_signatures",
            "draws_width_paths",
        ],
        "columns": ["METHODS"],
    },
)
