"""The human judgments themselves: agreement, annotator noise, z-scores, position bias."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "agreement": ["Agreement", "SpanAgreement", "agreement_note", "span_f1"],
        "position_bias": ["screens_matrix"],
        "zscores": ["zscored_campaign"],
    },
)
