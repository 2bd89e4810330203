"""The assignment queue: building it, its seeded draws, attention checks, imported slots, racing
and active sampling."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "active_sampling": ["draw_round", "sampling_rate"],
        "admin": [
            "annotator_overview",
            "queue_settings",
            "setting_changes",
            "update_queue_settings",
        ],
        "build": ["build_queue", "per_screen", "queue_paired", "rebuild_in_order"],
        "imported_slots": ["record_imported_columns"],
    },
)
