"""The error-span page's ESA slider and span draft, driven by AppTest on a real SQLite
database: the slider shows ESA's anchors and an untouched handle is no score; a draft the
browser offers back after a reload is shown when it fits the item and dropped when it does
not; a saved item's draft is forgotten. Browser side: tests/browser/test_span_draft_browser.py."""

from __future__ import annotations

from sqlalchemy import Engine

from annotation.judging.session import Slot
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from tests.app.test_annotate import annotator_app
from tests.app.test_annotate_spans import click, event, saved, spans_campaign, widget
from views.spans.extras import restored


def test_esa_slider_has_its_anchors_and_an_untouched_handle_is_no_score(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine, meta={META_KEY: SpanConfig(ask_esa=True).to_meta()})
    at, _ = annotator_app(app_engine, cid)
    (slider,) = at.slider
    assert (slider.min, slider.max) == (0, 100)
    captions = " ".join(h.value for h in at.html)
    for anchor in (
        "<b>0</b> · no meaning preserved",
        "<b>33</b> · some meaning preserved",
        "<b>66</b> · most meaning preserved",
        "<b>100</b> · perfect meaning and grammar",
    ):
        assert anchor in captions
    at = click(at, "span_no_errors")  # the handle where it started: refused, nothing saved
    assert "Set the overall score first" in at.warning[0].value and saved(app_engine) == []
    at.slider[0].set_value(33)
    at = click(at, "span_no_errors")
    assert saved(app_engine)[0][:5] == ("label", 1, 0.0, [], 33.0)


def test_a_draft_that_fits_is_restored_and_a_bad_one_dropped(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine)
    at, _ = annotator_app(app_engine, cid)
    w = widget(at)
    assert w["draft_mode"] == "offer" and w["draft_key"].startswith(f"tandem-span-draft:{cid}:")
    word = w["target"].split()[1]
    start = w["target"].index(word)
    span = {
        "start": start,
        "end": start + len(word),
        "severity": "major",
        "category": "accuracy",
        "side": "target",
    }
    at = event(at, type="restore", spans=[span])
    w = widget(at)
    assert w["spans"] == [span] and w["draft_mode"] == "keep"
    at = event(at, type="restore", spans=[span | {"severity": "minor"}])  # only once
    assert widget(at)["spans"] == [span]
    key = w["draft_key"]
    at = event(at, type="key", key="Enter")
    assert saved(app_engine)[0][:4] == ("label", 0, -5.0, [span])
    w = widget(at)
    assert key in w["forget"] and w["draft_key"] != key and w["spans"] == []
    fresh, _ = annotator_app(app_engine, cid, name="other")
    fresh = event(fresh, type="restore", spans=[span | {"end": 10**6}])  # not this text
    assert not fresh.exception and widget(fresh)["spans"] == []
    assert widget(fresh)["draft_mode"] == "keep"  # the bad draft is overwritten, not offered


def test_only_spans_that_fit_the_item_are_taken() -> None:
    slot = Slot(1, 1, 1, text="Ein Haus.", source="A house.", reference=None, scores=None)
    good = {"start": 4, "end": 8, "severity": "minor", "category": "style", "side": "target"}
    assert restored([good], slot, SpanConfig()) == [good]
    for bad in (
        [good | {"end": 10**6}],
        [good | {"category": "<b>x</b>"}],
        [good | {"severity": "fatal"}],
        [good | {"start": "4"}],
        [{"a": 1}],
        [None],
        "x",
        {"spans": []},
        [],
        None,
    ):
        assert restored(bad, slot, SpanConfig()) is None, bad


def test_esa_no_errors_key_asks_for_the_score_and_a_score_of_50_counts(
    app_engine: Engine,
) -> None:
    """Issue 34.6: `n` before a score asks for it in the page's words (not the terse
    "this campaign asks for…"), and 50 (where the handle starts) can be given."""
    cid = spans_campaign(app_engine, meta={META_KEY: SpanConfig(ask_esa=True).to_meta()})
    at, _ = annotator_app(app_engine, cid)
    at = event(at, type="key", key="n")  # `n` pressed in the span widget
    (hint,) = [w.value for w in at.warning]
    assert hint.startswith("Set the overall score first") and "type it in the box" in hint
    assert saved(app_engine) == []
    at.slider[0].set_value(50).run()  # "moved" onto where it rests: no change to notice
    at = event(at, type="key", key="n")
    assert saved(app_engine) == []  # still no score: an untouched handle is none
    (box,) = at.number_input
    assert box.value is None  # the box shows the score is not set
    box.set_value(50).run()
    assert at.slider[0].value == 50 and not any("Not set yet" in c.value for c in at.caption)
    at = event(at, type="key", key="n")
    assert not at.exception, at.exception
    assert saved(app_engine)[0][:5] == ("label", 1, 0.0, [], 50.0)
