"""The installation's administration: app settings, background jobs, administrator accounts."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "accounts": ["AccountNameTaken", "AccountRow", "ThrottleState"],
        "jobs": ["CANCELLED", "CANCELLING", "DONE", "JobRow"],
        "settings": ["add_setting_if_absent", "get_setting", "set_setting"],
    },
)
