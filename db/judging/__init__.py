"""The append-only annotation log and what is read from it: exports, review, annotator statistics,
document scores, tutorial answers."""
