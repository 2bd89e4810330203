"""The estimators' common ground: the one result type, multiplicity (Holm, Bonferroni, rank sets),
pair verdicts, scratch arrays."""
