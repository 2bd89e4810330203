"""Which side of a preference screen each output goes to: one bit of a keyed hash, stable
across reloads and independent across slots (annotation.judging.preference for real pairs,
annotation.judging.tutorial_items for a tutorial's). A leaf: it imports nothing of Tandem."""

from __future__ import annotations

import hashlib


def first_on_left(annotator_id: int, assignment_id: int) -> bool:
    """Whether the slot's first text (``Slot.text``) is shown on the left to this
    annotator: one bit of a keyed hash, stable across reloads, independent across slots."""
    digest = hashlib.blake2b(f"pref:{annotator_id}:{assignment_id}".encode(), digest_size=8)
    return digest.digest()[0] & 1 == 0
