"""Documents as the sampling unit: ratio estimates, cluster-robust intervals, fixed-n document
results."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "clustered": ["DocumentUnit", "MIN_DOCUMENTS", "icc_anova"],
        "evaluation": ["document_evaluation", "documents_result"],
    },
)
