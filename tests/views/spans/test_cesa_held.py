"""The held cESA screen's save (views/spans/cesa_held.py ``on_save``) on a real migrated
SQLite database: what a page sends for a screen of three outputs is taken only when it is
that screen's (its identity, each output's nonce in its place) and every output's spans and
score fit; then the screen's own save writes every output's judgment in one go. Anything
else: a hint, nothing taken, nothing saved. (The page itself:
tests/browser/test_cesa_held_browser.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import streamlit as st
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.campaign.guidelines import set_comment_box
from annotation.judging import comparative, session
from annotation.judging.save import MAX_COMMENT
from db.engine import session_scope
from db.schema.models import Annotation
from tests.views.spans.test_compare import cesa_campaign
from views.spans import cesa_held, extras
from views.spans.actions import item_work, span_config
from views.spans.compare import _Screen
from views.spans.events import nonce
from views.spans.held import MALFORMED, STALE


@pytest.fixture
def screen(app_engine: Engine) -> Iterator[tuple[_Screen, list[session.View]]]:
    """A cESA screen of three outputs, as the annotate page builds it (bare Streamlit
    session state: the test is the page's run); the views its save hands on."""
    cid = cesa_campaign(app_engine)
    annotator = create_annotator(app_engine, cid, "ann").annotator_id
    view = session.start_next_task(app_engine, annotator)
    shown = comparative.screen(app_engine, annotator, view)
    assert shown is not None and shown.size == 3
    st.session_state.clear()
    st.session_state.update(annotator_id=annotator, view=view)
    views: list[session.View] = []
    config = span_config(cid)
    yield (_Screen(annotator, cid, shown, {"current": 0}, config, views.append, lambda: 4.0,
                   lambda: None), views)  # fmt: skip
    st.session_state.clear()


def payload(screen: _Screen, scores: list[Any], spans: list[list[dict]] | None = None,
            comments: list[Any] | None = None) -> dict:  # fmt: skip
    spans = spans or [[] for _ in screen.slots]
    outputs = [
        {"nonce": nonce(slot), "esa": score, "spans": marked}
        for slot, score, marked in zip(screen.slots, scores, spans, strict=True)
    ]
    for out, comment in zip(outputs, comments or [], strict=False):
        out["comment"] = comment
    return {"screen": cesa_held.ident(screen.slots), "t": 1, "outputs": outputs}


def send(screen: _Screen, sent: Any) -> None:
    st.session_state[cesa_held.KEY] = {"save": sent}
    cesa_held.on_save(screen)


def saved(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(
            select(Annotation.screen_position, Annotation.screen_size, Annotation.esa_score,
                   Annotation.label, Annotation.spans, Annotation.seconds)
            .order_by(Annotation.screen_position)
        ).all()  # fmt: skip


def first_word(slot: session.Slot, severity: str = "major") -> dict:
    end = slot.text.index(" ")
    return {"start": 0, "end": end, "severity": severity, "category": "accuracy",
            "side": "target"}  # fmt: skip


def test_one_save_writes_every_output_of_the_screen(app_engine: Engine, screen) -> None:  # type: ignore[no-untyped-def]
    held, views = screen
    marked = [[first_word(held.slots[0])], [], [first_word(held.slots[2], "minor")]]
    send(held, payload(held, [20, 100, 75.5], marked))
    assert "cmp_hint" not in st.session_state
    rows = saved(app_engine)
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [(0, 3, 20.0, 0), (1, 3, 100.0, 1),
                                                        (2, 3, 75.5, 1)]  # fmt: skip
    assert [[(x["start"], x["end"], x["severity"]) for x in r[4]] for r in rows] == [
        [(0, marked[0][0]["end"], "major")], [], [(0, marked[2][0]["end"], "minor")]]  # fmt: skip
    assert len(views) == 1  # the page is handed the next view once


@pytest.mark.parametrize(
    ("change", "hint"),
    [
        (lambda p: p | {"screen": "1:1|2:1|3:1"}, STALE),  # another screen's save
        (lambda p: p | {"outputs": p["outputs"][::-1]}, None),  # the outputs in another order
        (lambda p: p | {"outputs": p["outputs"][:2]}, MALFORMED),  # an output missing
        (lambda p: {**p, "outputs": [*p["outputs"][:2], p["outputs"][2] | {"esa": 101}]},
         MALFORMED),  # a score off the scale
        (lambda p: {**p, "outputs": [*p["outputs"][:2], p["outputs"][2] | {"esa": "50"}]},
         MALFORMED),
        (lambda p: {**p, "outputs": [*p["outputs"][:2], p["outputs"][2] | {"spans": [
            {"start": 0, "end": 999, "severity": "major", "category": "accuracy",
             "side": "target"}]}]}, MALFORMED),  # a span past the output's end
        (lambda p: {**p, "outputs": [*p["outputs"][:2], p["outputs"][2] | {"spans": "x"}]},
         MALFORMED),
        (lambda p: "save", STALE),
    ],
)  # fmt: skip
def test_a_save_that_does_not_fit_saves_nothing(app_engine: Engine, screen, change, hint) -> None:  # type: ignore[no-untyped-def]
    held, views = screen
    good = payload(held, [20, 100, 75], [[first_word(held.slots[0])], [], []])
    send(held, change(good))
    assert st.session_state["cmp_hint"] == (hint or STALE)
    assert saved(app_engine) == [] and views == []
    # nothing of it was taken: the first output's work is as it was, no score set
    assert item_work(held.slots[0])["spans"] == []
    assert extras.esa_value(held.slots[0]) is None


def test_a_score_missing_is_the_screens_own_refusal(app_engine: Engine, screen) -> None:  # type: ignore[no-untyped-def]
    held, views = screen
    send(held, payload(held, [20, None, 75]))
    assert st.session_state["cmp_hint"] == cesa_held.SCORE_FIRST.format("2")
    assert saved(app_engine) == [] and views == []
    del st.session_state["cmp_hint"]
    send(held, payload(held, [20, 0, 75]))  # then given: the same screen saves
    assert [r[2] for r in saved(app_engine)] == [20.0, 0.0, 75.0]


@pytest.fixture
def commented(app_engine: Engine, screen):  # type: ignore[no-untyped-def]
    """The same screen in a campaign whose comment box is on."""
    held, views = screen
    set_comment_box(app_engine, held.campaign_id, True)
    held.comment = extras.comment_offered(held.campaign_id)
    assert held.comment
    return held, views


def comments(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(
            select(Annotation.screen_position, Annotation.comment)
            .order_by(Annotation.screen_position)
        ).all()  # fmt: skip


def test_each_outputs_comment_is_saved_with_its_judgment(app_engine: Engine, commented) -> None:  # type: ignore[no-untyped-def]
    held, views = commented
    send(held, payload(held, [20, 100, 75], comments=["  odd name  ", "", "garbled end"]))
    assert "cmp_hint" not in st.session_state
    # stripped as the single-output comment is; an empty box stores nothing
    assert comments(app_engine) == [(0, "odd name"), (1, None), (2, "garbled end")]
    assert len(views) == 1


def test_no_comment_box_no_comment_stored(app_engine: Engine, screen) -> None:  # type: ignore[no-untyped-def]
    held, _ = screen
    assert not held.comment
    send(held, payload(held, [20, 100, 75], comments=["a", "b", "c"]))
    assert comments(app_engine) == [(0, None), (1, None), (2, None)]


@pytest.mark.parametrize(
    ("sent", "hint"),
    [
        (["fine", 5, None], MALFORMED),  # not text
        (["fine", ["x"], None], MALFORMED),
        (["fine", "x" * (MAX_COMMENT + 1), None], "output 2: the comment is"),
        (["fine", "a\x00b", None], "output 2: the comment contains a NUL byte"),
    ],
)
def test_a_comment_that_does_not_fit_saves_nothing(app_engine: Engine, commented, sent, hint):  # type: ignore[no-untyped-def]
    held, views = commented
    send(held, payload(held, [20, 100, 75], comments=sent))
    assert st.session_state["cmp_hint"].startswith(hint)
    assert saved(app_engine) == [] and views == []
