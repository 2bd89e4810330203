"""Tasks and quotas: the queue cut into batches one annotator finishes, their administration and
expiry."""
