"""What the annotate page draws around and for an item: label buttons, DA sliders, comparative
screens, document scores, context, tutorials, task progress."""
