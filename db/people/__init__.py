"""Annotators of a campaign, their invite links and study links."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "annotators": ["list_annotators"],
        "study": ["has_study_link"],
    },
)
