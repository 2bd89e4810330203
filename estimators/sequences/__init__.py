"""Anytime-valid confidence sequences: predictable increments, betting capital, group-sequential
designs."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "betting_carry": ["CarriedBetting"],
        "betting_control_carry": ["CarriedControl"],
        "designs": [
            "DEFAULT_ALPHA",
            "DEFAULT_DESIGN",
            "DEFAULT_MARGIN",
            "DESIGN_TEXT",
            "ERROR_RATES",
            "ESTIMAND_TEXT",
            "FALLBACK_DESIGN",
            "GUARANTEE",
            "SCORE_DESIGN",
            "SCORE_KINDS",
            "default_design",
            "LEVEL_KEYS",
            "LateChange",
            "LiveDesign",
            "LivePlan",
            "META_PLAN_KEYS",
            "PLAN_KEYS",
            "TEST_SET",
            "design_paths",
            "plan_in_force",
        ],
    },
)
