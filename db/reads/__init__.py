"""A campaign read into plain arrays for the estimators, in full or as a delta since the last
read."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "campaign": ["CampaignData", "campaign_id", "fingerprint", "read_campaign"],
        "delta": ["DeltaState", "read_delta"],
    },
)
