"""The span widget's values are bounded on the server: a selection at or past the text's
end, non-numeric offsets, indexes or event numbers, and spans that are not a list never end
the page run in an exception; ``judging.submit`` refuses them as InvalidJudgment."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine

from accounts.invites import create_annotator
from annotation.judging import save as judging
from annotation.judging import session
from annotation.judging.spans import SpanError, parse_spans, snap_to_words
from annotation.queue import build as queue_build
from tests.annotation.test_queue import make_campaign
from tests.app.conftest import app_engine  # noqa: F401  (the AppTest database fixture)
from tests.app.test_annotate import annotator_app
from tests.app.test_annotate_spans import event, saved, spans_campaign, widget


@pytest.mark.parametrize(
    ("text", "start", "end", "expected"),
    [
        ("Hallo Welt", 10, 12, None),  # starts at the end: IndexError before
        ("Hallo Welt", 50, 60, None),
        ("Hallo Welt", 12, 3, (0, 10)),  # reversed and past the end: clamped, then snapped
        ("Hallo Welt", -5, 2, (0, 5)),
        ("", 0, 3, None),
    ],
)
def test_snap_to_words_clamps_offsets(text: str, start: int, end: int, expected) -> None:  # type: ignore[no-untyped-def]
    assert snap_to_words(text, start, end) == expected


@given(st.text(max_size=30), st.integers(-100, 100), st.integers(-100, 100))
def test_snap_to_words_stays_inside_the_text(text: str, start: int, end: int) -> None:
    got = snap_to_words(text, start, end)
    assert got is None or 0 <= got[0] < got[1] <= len(text)


@pytest.mark.parametrize("spans", [5, "abc", {"start": 0}, 2.5, True, b"x"])
def test_parse_spans_refuses_what_is_not_a_list(spans: object) -> None:
    with pytest.raises(SpanError, match="not a list of spans"):
        parse_spans(spans, "Hallo Welt")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "spans",
    [
        5,
        "abc",
        {"start": 0, "end": 3},
        [5],
        [{"start": "0", "end": 3, "severity": "minor", "category": "accuracy"}],
        [{"start": 0, "end": 10**9, "severity": "minor", "category": "accuracy"}],
        [{"start": 0, "end": 3, "severity": ["minor"], "category": "accuracy"}],
        [{"start": 0, "end": 3, "severity": "minor", "category": 7}],
        [{"start": 0, "end": 3, "severity": "minor", "category": "accuracy", "side": ["x"]}],
    ],
)
def test_submit_refuses_hostile_spans_as_invalid_judgment(engine: Engine, spans: object) -> None:
    cid = make_campaign(engine, 2, 1, mode="spans")
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    with pytest.raises(session.InvalidJudgment):
        judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, spans=spans)  # type: ignore[arg-type]
    # nothing was saved and the slot is still held: a valid judgment goes through
    judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, spans=[])


@pytest.mark.parametrize(
    "data",
    [
        {"type": "select", "side": "target", "start": 10_000, "end": 10_010},
        {"type": "select", "side": "target", "start": "abc", "end": 3},
        {"type": "select", "side": "target", "start": None, "end": 3},
        {"type": "select", "side": "target", "start": 1.5, "end": 3},
        {"type": "select", "side": "source", "start": 10_000, "end": 10_000},
        {"type": "select", "side": "nowhere", "start": 0, "end": 3},
        {"type": "click_span", "index": "x"},
        {"type": "click_span", "index": 99},
        {"type": "click_span"},
        {"type": "key", "key": None},
    ],
)
def test_hostile_widget_events_never_raise(app_engine: Engine, data: dict) -> None:  # noqa: F811
    cid = spans_campaign(app_engine)
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    at = event(at, **data)
    assert not at.exception, at.exception
    pending = widget(at)["pending"]
    target, source = widget(at)["target"], widget(at)["source"]
    if pending is not None:  # what was kept lies inside its text
        text = target if pending["side"] == "target" else source
        assert 0 <= pending["start"] <= pending["end"] <= len(text)
    at = event(at, type="key", key="n")  # the page still saves
    assert not at.exception, at.exception
    assert len(saved(app_engine)) == (0 if pending is not None else 1)


def test_non_numeric_event_numbers_are_dropped(app_engine: Engine) -> None:  # noqa: F811
    cid = spans_campaign(app_engine)
    at, _ = annotator_app(app_engine, cid)
    nonce = widget(at)["nonce"]
    for n in ("zz", None, 2.5, [1]):
        at.session_state["span_widget"] = {
            "session": "hostile",
            "events": [{"n": n, "nonce": nonce, "type": "key", "key": "n"}, "not an event"],
        }
        at = at.run()
        assert not at.exception, at.exception
    assert saved(app_engine) == []
