"""A campaign as plain arrays: what every estimator reads (db.reads.campaign fills it)."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "campaign": [
            "CampaignData",
            "ESA_MAX",
            "Judgments",
            "LABEL_KINDS",
            "LabelKind",
            "MetricInfo",
            "available_label_kinds",
            "binarise",
            "default_label_kind",
            "display_scale",
            "document_index",
            "kind_range",
        ],
    },
)
