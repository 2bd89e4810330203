"""The dashboard's panels: estimates, pairwise verdicts, the plan, controls, quality, sampling,
position bias, span agreement, and their wording."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "controls": ["draw_controls"],
        "document_scores": ["draw_document_scores"],
        "estimates": ["draw_estimates"],
        "pairs": ["draw_pairs"],
        "plan": ["draw_plan"],
        "position_bias": ["draw_position_bias"],
        "quality": ["draw_quality"],
        "sampling": ["draw_sampling"],
        "statistics_box": ["statistics_settings"],
    },
)
