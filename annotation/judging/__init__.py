"""The annotator's judgments: the session, saving, skipping and undoing a judgment on every screen
(labels, spans, DA, comparative), tutorials."""
