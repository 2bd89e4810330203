"""Anytime-valid confidence sequences: predictable increments, betting capital, group-sequential
designs."""
