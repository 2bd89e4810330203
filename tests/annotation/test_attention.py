"""Attention checks: the SEScore-style edits, their severities, and the word diff."""

from __future__ import annotations

import numpy as np
import pytest

from annotation.attention import MAJOR, MINOR, apply_edit, degrade
from annotation.diff import diff_html, literal_html, word_diff

WORDS = [
    "the",
    "committee",
    "approved",
    "the",
    "new",
    "budget",
    "for",
    "the",
    "coming",
    "year",
    "after",
    "a",
    "long",
    "debate",
]
DONOR = ["bananas", "orbit", "quietly", "around", "purple", "mountains"]


@pytest.mark.parametrize(
    ("op", "major", "severity"),
    [
        ("delete", False, MINOR),
        ("delete", True, MAJOR),
        ("swap", False, MINOR),
        ("swap", True, MAJOR),
        ("insert", False, MINOR),
        ("insert", True, MAJOR),
        ("replace", False, MAJOR),
        ("replace", True, MAJOR),
    ],
)
def test_each_edit_has_the_severity_it_implies(op: str, major: bool, severity: int) -> None:
    for seed in range(50):
        out, rec = apply_edit(WORDS, op, major, np.random.default_rng(seed), DONOR)
        assert rec["op"] == op and rec["severity"] == severity
        assert out != WORDS
        if op == "delete":
            assert len(out) == len(WORDS) - len(rec["span"].split())
            assert len(rec["span"].split()) >= (2 if major else 1)
        if op == "swap":
            assert sorted(out) == sorted(WORDS)
            assert (rec["with"] - rec["at"] >= 3) == major
        if op == "insert":
            assert len(out) == len(WORDS) + len(rec["span"].split())
            assert all(w in DONOR for w in rec["span"].split())
        if op == "replace":
            assert all(w in DONOR for w in rec["by"].split())


def test_degrade_always_carries_a_major_error_and_expects_inadequate() -> None:
    rng = np.random.default_rng(0)
    ops = set()
    for _ in range(300):
        d = degrade(" ".join(WORDS), rng, " ".join(DONOR))
        assert d is not None and d.text != " ".join(WORDS)
        assert d.operations[0]["severity"] == MAJOR
        assert d.severity == MAJOR and d.expected_label == 0
        assert d.mqm == sum(o["severity"] for o in d.operations) <= MAJOR
        assert 1 <= len(d.operations) <= 3
        ops |= {o["op"] for o in d.operations}
    assert ops == {"delete", "swap", "insert", "replace"}


def test_short_outputs_are_not_degraded() -> None:
    assert degrade("too short", np.random.default_rng(0)) is None


def test_word_diff_and_escaping() -> None:
    ops = word_diff("the cat sat on the mat", "the dog sat on a mat")
    assert [(o.op, o.words) for o in ops] == [
        ("equal", ("the",)),
        ("delete", ("cat",)),
        ("insert", ("dog",)),
        ("equal", ("sat", "on")),
        ("delete", ("the",)),
        ("insert", ("a",)),
        ("equal", ("mat",)),
    ]
    html = diff_html("<b>x</b> y", "<b>x</b> <script>z</script>")
    assert "<script>" not in html and "&lt;script&gt;z&lt;/script&gt;</ins>" in html
    assert "<del" in html and "y</del>" in html
    lit = literal_html("**bold** <i>x</i>\nשלום")
    assert 'dir="auto"' in lit and "&lt;i&gt;" in lit and "<i>" not in lit
