"""The span model: validation, WMT's MQM weights, the derived label, word snapping."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.judging.spans import (
    Span,
    SpanConfig,
    SpanError,
    Weights,
    derive,
    mqm_label,
    mqm_score,
    parse_spans,
    snap_to_words,
)
from db.schema.vocabulary import Severity

MINOR, MAJOR, CRITICAL = Severity.MINOR, Severity.MAJOR, Severity.CRITICAL
TEXT = "Der Hund sitzt auf der Matte."


def sp(start: int, end: int, sev: Severity = MINOR, cat: str = "accuracy", side: str = "target"):
    return Span(start, end, sev, cat, side)  # type: ignore[arg-type]


def test_wmt_weights() -> None:
    assert mqm_score([]) == 0.0 and mqm_label([]) == 1
    assert derive([sp(0, 3)]) == (1, -1.0)
    assert derive([sp(0, 3, MAJOR)]) == (0, -5.0)
    assert derive([sp(0, 3, CRITICAL)]) == (0, -5.0)  # critical is scored as major
    assert derive([sp(28, 29, MINOR, "Fluency/Punctuation")]) == (1, -0.1)
    assert derive([sp(28, 29, MAJOR, "Fluency/Punctuation")]) == (0, -5.0)
    # Non-translation weighs 25 whatever its severity, and is never adequate.
    assert derive([sp(0, 29, MINOR, "Non-translation!")]) == (0, -25.0)
    # Sums of 0.1 compare equal to the decimal value.
    three = [sp(i, i + 1, MINOR, "fluency/punctuation") for i in range(3)]
    assert mqm_score(three) == -0.3
    assert mqm_score([sp(0, 3), sp(4, 8, MAJOR)]) == -6.0
    # a major "Source error" is scored (as WMT's official scores do) but is not inadequacy
    assert derive([sp(0, 3, MAJOR, "Source error", "source")]) == (1, -5.0)


def test_configured_weights() -> None:
    w = Weights.from_mapping({"major": 10, "minor": 2})
    assert mqm_score([sp(0, 3), sp(4, 8, MAJOR)], w) == -12.0
    with pytest.raises(SpanError, match="unknown MQM weight"):
        Weights.from_mapping({"majr": 10})
    with pytest.raises(SpanError, match="finite number"):
        Weights.from_mapping({"major": -1})
    cfg = SpanConfig.from_meta({"categories": ["a", "b"], "weights": {"major": 3}, "ask_esa": 1})
    assert SpanConfig.from_meta(cfg.to_meta()) == cfg
    with pytest.raises(SpanError, match="distinct"):
        SpanConfig.from_meta({"categories": ["x", "X"]})


def test_parse_accepts_and_normalises() -> None:
    spans = parse_spans(
        [
            {"start": 4, "end": 8, "severity": "Major", "category": "Accuracy/Mistranslation"},
            {"start": 0, "end": 3, "severity": "minor", "category": "Fluency"},
            {"start": 0, "end": 3, "severity": "minor", "category": "Fluency"},
            {"start": 5, "end": 5, "severity": "major", "category": "accuracy", "side": "source"},
        ],
        TEXT,
        source="The dog sits on the mat.",
    )
    assert spans == [
        sp(0, 3, MINOR, "fluency"),
        sp(0, 3, MINOR, "fluency"),  # the same mark twice is two errors (WMT counts both)
        sp(4, 8, MAJOR, "Accuracy/Mistranslation"),
        sp(5, 5, MAJOR, "accuracy", "source"),
    ]
    assert spans[3].is_missing_mark


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"start": 0, "end": 99, "severity": "minor", "category": "style"}, "not inside"),
        ({"start": -1, "end": 2, "severity": "minor", "category": "style"}, "not inside"),
        ({"start": 3, "end": 3, "severity": "minor", "category": "style"}, "empty selection"),
        ({"start": "0", "end": 3, "severity": "minor", "category": "style"}, "whole number"),
        ({"start": True, "end": 3, "severity": "minor", "category": "style"}, "whole number"),
        ({"start": 0, "end": 3, "severity": "huge", "category": "style"}, "severity 'huge'"),
        ({"start": 0, "end": 3, "severity": "minor", "category": "vibes"}, "'vibes' is not one"),
        ({"start": 0, "end": 3, "severity": "minor", "category": " "}, "category is missing"),
        ({"start": 0, "end": 3, "severity": "minor", "category": "x", "side": "ref"}, "side"),
        ("0-3", "expected an object"),
    ],
)
def test_parse_refuses_with_a_specific_message(raw: object, message: str) -> None:
    with pytest.raises(SpanError, match=message) as err:
        parse_spans([raw], TEXT)  # type: ignore[list-item]
    assert str(err.value).startswith("span 1")


hostile = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=60
)


@settings(max_examples=300, deadline=None)
@given(text=hostile, data=st.data())
def test_parse_offsets_over_hostile_text(text: str, data: st.DataObject) -> None:
    """Any in-range, non-empty selection of any text round-trips through its JSON form;
    any out-of-range one is refused."""
    n = len(text)
    start = data.draw(st.integers(-3, n + 3))
    end = data.draw(st.integers(-3, n + 3))
    raw = {"start": start, "end": end, "severity": "major", "category": "style"}
    if 0 <= start < end <= n:
        (span,) = parse_spans([raw], text)
        assert text[span.start : span.end] == text[start:end]
        assert parse_spans([span.to_json()], text) == [span]
        assert derive([span]) == (0, -5.0)
    else:
        with pytest.raises(SpanError):
            parse_spans([raw], text)


@settings(max_examples=300, deadline=None)
@given(text=hostile, data=st.data())
def test_snap_to_words_properties(text: str, data: st.DataObject) -> None:
    n = len(text)
    a = data.draw(st.integers(0, n))
    b = data.draw(st.integers(0, n))
    snapped = snap_to_words(text, a, b)
    lo, hi = min(a, b), max(a, b)
    if not text[lo:hi].strip():
        assert snapped is None
        return
    assert snapped is not None
    s, e = snapped
    assert 0 <= s < e <= n
    assert not text[s].isspace() and not text[e - 1].isspace()
    # It covers every non-space character that was selected, and is idempotent.
    assert s <= lo + (len(text[lo:hi]) - len(text[lo:hi].lstrip()))
    assert e >= hi - (len(text[lo:hi]) - len(text[lo:hi].rstrip()))
    assert snap_to_words(text, s, e) == (s, e)


def test_snap_examples() -> None:
    text = "Die Katze's Bett, sehr schön — 猫が好き"
    assert snap_to_words(text, 6, 7) == (4, 11)  # inside "Katze's" → the whole word
    assert snap_to_words(text, 3, 5) == (4, 11)  # the leading space is trimmed
    assert snap_to_words(text, 16, 17) == (16, 17)  # a comma alone stays a comma
    cjk = text.index("猫")
    assert snap_to_words(text, cjk, cjk + 1) == (cjk, cjk + 1)  # CJK: one character
    assert snap_to_words(text, 11, 12) is None  # a space alone
