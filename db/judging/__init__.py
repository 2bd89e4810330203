"""The append-only annotation log and what is read from it: exports, review, annotator statistics,
document scores, tutorial answers."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "annotator_stats": ["AnnotatorWork", "attention_passed", "span_attention_passed"],
        "document_scores": ["stamp"],
        "log": ["ATTENTION", "JUDGMENT_KINDS", "LABEL", "SKIP", "campaign_log"],
        "log_export": ["annotation_log"],
        "review": ["labelled_outputs"],
    },
)
