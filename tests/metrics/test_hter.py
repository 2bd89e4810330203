"""HTER = sacrebleu TER of the output against the post-edit, as a fraction."""

from __future__ import annotations

import pytest
import sacrebleu

from metrics.hter import hter

CASES = [
    ("Das ist ein kleiner Test.", "Das ist ein sehr kleiner Test."),
    ("Er geht nach Hause heute.", "Heute geht er nach Hause."),
    ("Völlig anders.", "Etwas ganz anderes steht hier."),
    ("Gleich.", "Gleich."),
]


@pytest.mark.parametrize(("output", "post_edit"), CASES)
def test_hter_equals_sacrebleu_ter_over_100(output: str, post_edit: str) -> None:
    assert hter(output, post_edit) == sacrebleu.sentence_ter(output, [post_edit]).score / 100


def test_hter_definition_and_edge_cases() -> None:
    assert hter("Gleich.", "Gleich.") == 0.0
    assert hter("a b c d", "a b x d") == pytest.approx(1 / 4)  # one substitution / 4 words
    assert hter("", "") == 0.0
    assert hter("  ", "") == 0.0
    assert hter("", "ein Wort") == 1.0
    assert hter("ein Wort", "") == 1.0
