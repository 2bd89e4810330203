"""The assignment queue: building it, its seeded draws, attention checks, imported slots, racing
and active sampling."""
