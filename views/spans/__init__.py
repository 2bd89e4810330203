"""The error-span screens (MQM / ESA, ESA^AI): the span widget, its events and keys, the unsaved
spans, the comparative span screen."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "compare": ["page_keys", "span_screen"],
        "item": ["span_item"],
    },
)
