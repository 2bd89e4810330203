"""Attention checks: the SEScore-style edits, their severities, and the word diff."""

from __future__ import annotations

import numpy as np
import pytest

from annotation.judging.diff import diff_html, literal_html, word_diff
from annotation.queue.attention import MAJOR, MINOR, apply_edit, degrade

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


def test_edits_record_where_they_are_in_the_degraded_text() -> None:
    """Every edit's regions lie inside the degraded text and hold what it put there: the
    inserted or replacing words, both swapped words, the words around a deletion."""
    text = " ".join(WORDS)
    for seed in range(300):
        d = degrade(text, np.random.default_rng(seed), " ".join(DONOR))
        assert d is not None
        for op in d.operations:
            regions = op["regions"]
            assert regions, op
            covered = " ".join(d.text[s:e] for s, e in regions)
            assert all(0 <= s < e <= len(d.text) for s, e in regions)
            if op["op"] == "insert" and op is d.operations[-1]:  # later edits may move words
                assert op["span"] in covered or set(op["span"].split()) & set(covered.split())


def test_span_level_attention_rule() -> None:
    from db.judging.annotator_stats import span_attention_passed

    ops = [
        {"op": "replace", "severity": MAJOR, "regions": [[10, 20]]},
        {"op": "swap", "severity": MINOR, "regions": [[30, 35]]},
        {"mqm": -6},
    ]

    def span(s: int, e: int, sev: str, side: str = "target") -> dict:
        return {"start": s, "end": e, "severity": sev, "category": "accuracy", "side": side}

    assert span_attention_passed([span(15, 25, "major")], ops, MAJOR) is True
    assert span_attention_passed([span(15, 25, "critical")], ops, MAJOR) is True
    assert span_attention_passed([span(15, 25, "minor")], ops, MAJOR) is False  # too mild
    assert span_attention_passed([span(20, 25, "major")], ops, MAJOR) is False  # touches only
    assert span_attention_passed([span(30, 35, "major")], ops, MAJOR) is False  # the minor edit
    assert span_attention_passed([span(12, 14, "major", "source")], ops, MAJOR) is False
    assert span_attention_passed([], ops, MAJOR) is False
    assert span_attention_passed([span(31, 32, "minor")], ops, MINOR) is True
    assert (
        span_attention_passed([span(0, 5, "major")], [{"op": "delete", "severity": MAJOR}], MAJOR)
        is None
    )


def test_word_diff_keeps_a_summarys_line_breaks() -> None:
    """Issue 17.10: paragraphs of a summary survive the post-edit diff."""
    before = "First line here.\nSecond line.\n\nThird."
    after = "First line here.\nSecond sentence.\n\nThird."
    ops = word_diff(before, after)
    assert (ops[0].op, ops[0].words) == ("equal", ("First", "line", "here.", "\n", "Second"))
    html = diff_html(before, after)
    assert "white-space: pre-wrap" in html
    assert "<span>First line here.\nSecond</span>" in html
    assert "<span>\n\nThird.</span>" in html
    assert " \n" not in html and "\n " not in html  # no stray spaces around line breaks
    # Windows line ends count as line breaks too
    assert [o.op for o in word_diff("a\r\nb", "a\nb")] == ["equal"]
