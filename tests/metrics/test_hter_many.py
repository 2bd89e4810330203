"""hter_many is hter over a batch: the same values, edge cases included."""

from __future__ import annotations

import pytest

from metrics.hter import hter, hter_many

PAIRS = [
    ("Der Hund bellt.", "Der Hund bellt laut."),
    ("same text", "same text"),
    ("", ""),
    ("", "nicht leer"),
    ("nicht leer", ""),
    ("A B C D", "D C B A"),
    ("Der Hund bellt.", "Der Hund bellt laut."),  # a repeat is scored once
]


def test_batch_equals_single() -> None:
    outputs, edits = zip(*PAIRS, strict=True)
    assert hter_many(list(outputs), list(edits)) == pytest.approx(
        [hter(o, p) for o, p in PAIRS], abs=1e-12
    )


def test_unchanged_output_is_zero_and_empty_edit_is_one() -> None:
    assert hter_many(["x y z"], ["x y z"]) == [0.0]
    assert hter_many(["x"], [""]) == [hter("x", "")] == [1.0]
