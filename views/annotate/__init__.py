"""What the annotate page draws around and for an item: label buttons, DA sliders, comparative
screens, document scores, context, tutorials, task progress."""

import lazy_loader

# Each name loads its module on first use: importing one module of this room does not
# import the others (an annotator's page never loads the dashboard's estimators).
__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "compare": ["compare_page", "is_on"],
        "document_context": ["document_context_panel"],
        "document_score": ["document_step"],
        "item_surroundings": ["guidelines_panel", "position_text", "side_by_side"],
        "label_buttons": ["button_colours", "no_edit_key", "post_edit_form", "post_edit_key"],
        "slider": ["slider_item"],
    },
)
