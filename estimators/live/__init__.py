"""The live monitor: anytime-valid intervals, verdicts and forecasts after every label, and the
ranking from them."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "monitor": ["CampaignMonitor"],
        "ranking": ["ranking_csv", "ranking_latex", "ranking_rows"],
        "status": ["MonitorReport", "settled_pairs"],
    },
)
