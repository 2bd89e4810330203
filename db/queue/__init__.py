"""The assignment queue's SQL: building it, claiming slots atomically, tasks, racing and active-
sampling rounds, document blocks."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "claim": ["queue_transaction"],
        "settings": ["setting_changes"],
        "task_facts": ["annotation_tasks"],
    },
)
