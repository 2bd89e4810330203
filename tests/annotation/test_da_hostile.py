"""Hostile input to the two places a DA / SQM score enters from outside: the browser's
save (views.annotate.da_slider.sent_scores parses what the page sends) and the score check every
save passes (annotation.judging.da_judgments.checked_score). Hypothesis: whatever arrives, either a
clear refusal (ValueError / InvalidJudgment) or scores that are this screen's and in range."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.judging.da_judgments import checked_score
from annotation.judging.session import InvalidJudgment
from db.schema.vocabulary import CampaignMode

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=4),
    max_leaves=12,
)  # fmt: skip


def _sent_scores():  # type: ignore[no-untyped-def]
    # imported here: views/annotate/da_slider.py declares a Streamlit component at import
    from views.annotate.da_slider import sent_scores

    return sent_scores


@settings(max_examples=300, deadline=None)
@given(scores=st.dictionaries(st.text(max_size=4) | st.integers().map(str), JSONISH,
                              max_size=5), size=st.integers(1, 6))  # fmt: skip
def test_sent_scores_accepts_only_this_screens_numbers(scores, size) -> None:  # type: ignore[no-untyped-def]
    parse = _sent_scores()
    try:
        out = parse("1.1,2.1", size, {"ident": "1.1,2.1", "scores": scores})
    except ValueError as refused:
        assert "Nothing was saved" in str(refused) or "nothing was saved" in str(refused)
        return
    assert set(out) <= set(range(size))
    assert all(type(v) in (int, float) for v in out.values())


@settings(max_examples=200, deadline=None)
@given(sent=JSONISH)
def test_anything_else_sent_is_refused(sent) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=r"[Nn]othing was saved"):
        _sent_scores()("1.1", 1, sent)


@settings(max_examples=400, deadline=None)
@given(value=JSONISH, mode=st.sampled_from([CampaignMode.DA, CampaignMode.SQM]))
def test_checked_score_is_in_range_or_refused(value, mode) -> None:  # type: ignore[no-untyped-def]
    try:
        stored = checked_score(mode, value)
    except InvalidJudgment as refused:
        assert str(refused)
        return
    assert math.isfinite(stored) and 0.0 <= stored <= 100.0
    if mode == CampaignMode.SQM:
        assert round(stored * 6 / 100) * 100 / 6 == pytest.approx(stored)


def test_a_stale_screen_is_named() -> None:
    with pytest.raises(ValueError, match="changed since it was drawn"):
        _sent_scores()("1.1", 1, {"ident": "9.9", "scores": {"0": 50}})
    assert _sent_scores()("1.1", 1, {"ident": "1.1", "scores": {"0": 50}}) == {0: 50}


@pytest.mark.parametrize("value", [10**400, -(10**400), float("inf"), 100.0001, -0.0001])
def test_out_of_range_numbers_are_refused(value) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidJudgment, match="between 0 and 100"):
        checked_score(CampaignMode.DA, value)
