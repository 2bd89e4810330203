"""The comment per output on the binary and DA / SQM side-by-side screens (real migrated
SQLite): what a browser sends with the screen's save is parsed by
views/annotate/da_slider.py ``sent_comments`` (a stale screen, a position not on it or a
comment that is not text is refused in words, nothing saved; Hypothesis over any value
sent), and a save of a screen whose campaign offers the box stores each output's comment on
its own judgment through the screens' own save paths (compare_da.save_screen,
compare._save via compare_draft.on_saved). AppTest: the page hands the elements a comment
box per output only on those screens and only when the campaign offers it; the
single-output DA page keeps its one Streamlit box. The browser side:
tests/browser/test_compare_comment_browser.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
import streamlit as st
from hypothesis import given, settings
from hypothesis import strategies as hs
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.campaign.guidelines import set_comment_box
from annotation.judging import comparative, session
from annotation.judging.save import MAX_COMMENT
from db.engine import session_scope
from db.schema.models import Annotation
from tests.views.pages.test_annotate import annotator_app, make_campaign
from views.annotate import compare, compare_da, compare_draft, da_slider
from views.annotate.da_slider import sent_comments
from views.spans.extras import output_comment_boxes

TEXTS = [[f"Ausgabe {k} für Satz {j} ist hier" for k in range(3)] for j in range(3)]
SCREEN = "10.2,11.2,12.2"
JSONISH = hs.recursive(
    hs.none() | hs.booleans() | hs.integers() | hs.floats() | hs.text(max_size=8),
    lambda inner: hs.lists(inner, max_size=4) | hs.dictionaries(hs.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=12,
)  # fmt: skip


# ---------------------------------------------------------------- what the page sends


def test_a_screens_own_comments_are_taken() -> None:
    sent = {"ident": SCREEN, "scores": {"0": 50}, "comments": {"0": " odd name ", "2": ""}}
    # as typed: stripping, the length and a NUL byte are the save's (checked_comment)
    assert sent_comments(SCREEN, 3, sent) == {0: " odd name ", 2: ""}
    assert sent_comments(SCREEN, 3, {"ident": SCREEN, "labels": {}}) == {}  # no boxes: none


@pytest.mark.parametrize(
    ("sent", "says"),
    [
        (None, "changed since"),
        ("save", "changed since"),
        ({"ident": "10.1,11.2,12.2", "comments": {"0": "x"}}, "changed since"),  # older claim
        ({"comments": {"0": "x"}}, "changed since"),
        ({"ident": SCREEN, "comments": ["x", "y"]}, "not one per output"),
        ({"ident": SCREEN, "comments": "x"}, "not one per output"),
        ({"ident": SCREEN, "comments": None}, "not one per output"),
        ({"ident": SCREEN, "comments": {"3": "x"}}, "'3'"),  # no 4th output
        ({"ident": SCREEN, "comments": {"-1": "x"}}, "'-1'"),
        ({"ident": SCREEN, "comments": {"٣": "x"}}, "'٣'"),  # a digit, not an ASCII one
        ({"ident": SCREEN, "comments": {"1e3": "x"}}, "'1e3'"),
        ({"ident": SCREEN, "comments": {" 1": "x"}}, "' 1'"),
        ({"ident": SCREEN, "comments": {"9" * 5000: "x"}}, "'9999"),  # past int()'s digits
        ({"ident": SCREEN, "comments": {"99999999999999999999": "x"}}, "'9999"),
        ({"ident": SCREEN, "comments": {"0": 5}}, ": 5."),
        ({"ident": SCREEN, "comments": {"0": None}}, ": None."),
        ({"ident": SCREEN, "comments": {"0": True}}, ": True."),
        ({"ident": SCREEN, "comments": {"0": ["x"]}}, "['x']"),
        ({"ident": SCREEN, "comments": {"0": {"text": "x"}}}, "{'text': 'x'}"),
        ({"ident": SCREEN, "comments": {"0": list(range(10**5))}}, "[0, 1, 2"),
    ],
)
def test_anything_else_is_refused(sent: object, says: str) -> None:
    with pytest.raises(ValueError, match=r"[Nn]othing was saved") as refused:
        sent_comments(SCREEN, 3, sent)
    assert says in str(refused.value)
    assert len(str(refused.value)) < 200  # a huge value is not echoed whole to the page


@settings(max_examples=300, deadline=None)
@given(
    comments=hs.dictionaries(hs.text(max_size=6) | hs.integers().map(str),
                             hs.text(max_size=20) | JSONISH, max_size=5),
    size=hs.integers(1, 6),
)  # fmt: skip
def test_sent_comments_are_this_screens_text_or_refused(comments, size) -> None:  # type: ignore[no-untyped-def]
    try:
        out = sent_comments(SCREEN, size, {"ident": SCREEN, "comments": comments})
    except ValueError as refused:
        assert "othing was saved" in str(refused)
        return
    assert set(out) <= set(range(size))
    assert all(type(v) is str for v in out.values())
    assert out == {int(k): v for k, v in comments.items()}


@settings(max_examples=200, deadline=None)
@given(sent=JSONISH)
def test_anything_sent_that_is_not_the_screens_is_refused(sent) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=r"[Nn]othing was saved"):
        sent_comments(SCREEN, 3, sent)


# ---------------------------------------------------------------- a save stores them


def _screen(engine: Engine, mode: str, comment: bool) -> tuple[int, int, comparative.Screen]:
    cid = make_campaign(engine, TEXTS, mode=mode)
    comparative.set_comparative(engine, cid, True)
    set_comment_box(engine, cid, comment)
    annotator = create_annotator(engine, cid, "ann").annotator_id
    shown = comparative.screen(engine, annotator, session.start_next_task(engine, annotator))
    assert shown is not None and shown.size == 3
    return cid, annotator, shown


@pytest.fixture
def bare() -> Iterator[None]:
    """Bare Streamlit session state: the test is the page's run."""
    st.session_state.clear()
    yield
    st.session_state.clear()


def stored(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(
            select(Annotation.screen_position, Annotation.comment, Annotation.da_score,
                   Annotation.label)
            .order_by(Annotation.screen_position)
        ).all()  # fmt: skip


def _da_save(engine: Engine, comment: bool, sent_comments_: Any) -> tuple[list, list]:
    """A DA screen's save, as the slider element's trigger hands it to the page."""
    _, annotator, shown = _screen(engine, "da", comment)
    views: list[session.View] = []

    def save(scores: dict[int, float], comments: dict[int, str]) -> None:  # as da_screen's
        compare_da.save_screen(annotator, shown, views.append, 4.0, scores,
                               comments if comment else None)  # fmt: skip

    screen = da_slider.ident(shown.outputs)
    sent = {"ident": screen, "scores": {"0": 20, "1": 100, "2": 65}}
    if sent_comments_ is not None:
        sent["comments"] = sent_comments_
    st.session_state[da_slider.KEY] = {"save": sent}
    try:
        da_slider.on_saved(screen, shown.size, save, comments=comment)
    except session.InvalidJudgment as refused:  # the page's guard shows it
        st.session_state["hint"] = str(refused)
    return stored(engine), views


def test_a_da_screen_stores_each_outputs_comment(app_engine: Engine, bare) -> None:  # type: ignore[no-untyped-def]
    rows, views = _da_save(app_engine, True, {"0": "  a name left in English ", "1": "",
                                              "2": "Enter s u j k typed"})  # fmt: skip
    assert "da_hint" not in st.session_state and "hint" not in st.session_state
    assert rows == [(0, "a name left in English", 20.0, None), (1, None, 100.0, None),
                    (2, "Enter s u j k typed", 65.0, None)]  # fmt: skip
    assert len(views) == 1


def test_a_da_screen_without_the_box_stores_no_comment(app_engine: Engine, bare) -> None:  # type: ignore[no-untyped-def]
    rows, _ = _da_save(app_engine, False, {"0": "sent anyway", "1": 5})  # not even parsed
    assert [(r[0], r[1], r[2]) for r in rows] == [(0, None, 20.0), (1, None, 100.0),
                                                  (2, None, 65.0)]  # fmt: skip


@pytest.mark.parametrize(
    ("comments", "hint"),
    [
        ({"0": "fine", "1": 5}, "Not a comment on this screen"),
        ({"0": "fine", "7": "x"}, "Not a comment on this screen"),
        (["fine"], "not one per output"),
        ({"1": "x" * (MAX_COMMENT + 1)}, "output 2: the comment is"),
        ({"2": "a\x00b"}, "output 3: the comment contains a NUL byte"),
    ],
)
def test_a_da_comment_that_does_not_fit_saves_nothing(app_engine: Engine, bare, comments,  # type: ignore[no-untyped-def]
                                                      hint) -> None:  # fmt: skip
    rows, views = _da_save(app_engine, True, comments)
    said = st.session_state.get("da_hint") or st.session_state.get("hint")
    assert said is not None and hint in said
    assert rows == [] and views == []


def _binary_save(engine: Engine, comment: bool, sent_comments_: Any) -> tuple[list, list]:
    """A binary screen's save, as the draft's trigger hands it to the page."""
    _, annotator, shown = _screen(engine, "binary", comment)
    views: list[session.View] = []
    work = compare._state(shown)
    save = partial(compare._save, annotator, shown, work, views.append, lambda: 4.0, comment)
    sent = {"ident": compare_draft.ident(shown), "labels": {"0": 1, "1": 0, "2": 1}}
    if sent_comments_ is not None:
        sent["comments"] = sent_comments_
    st.session_state[compare_draft.KEY] = {"save": sent}
    compare_draft.on_saved(shown, work, save, comments=comment)
    return stored(engine), views


def test_a_binary_screen_stores_each_outputs_comment(app_engine: Engine, bare) -> None:  # type: ignore[no-untyped-def]
    rows, views = _binary_save(app_engine, True, {"0": "a i j k s u", "2": " spelling "})
    assert "cmp_hint" not in st.session_state
    assert rows == [(0, "a i j k s u", None, 1), (1, None, None, 0), (2, "spelling", None, 1)]
    assert len(views) == 1


def test_a_binary_screen_without_the_box_stores_no_comment(app_engine: Engine, bare) -> None:  # type: ignore[no-untyped-def]
    rows, _ = _binary_save(app_engine, False, {"0": "sent anyway", "1": ["x"]})
    assert [(r[0], r[1], r[3]) for r in rows] == [(0, None, 1), (1, None, 0), (2, None, 1)]


@pytest.mark.parametrize(
    ("comments", "hint"),
    [
        ({"0": None}, "Not a comment on this screen"),
        ({"3": "x"}, "Not a comment on this screen"),
        ("fine", "not one per output"),
        ({"0": "x" * (MAX_COMMENT + 1)}, "output 1: the comment is"),
        ({"1": "a\x00b"}, "output 2: the comment contains a NUL byte"),
    ],
)
def test_a_binary_comment_that_does_not_fit_saves_nothing(app_engine: Engine, bare,  # type: ignore[no-untyped-def]
                                                          comments, hint) -> None:  # fmt: skip
    rows, views = _binary_save(app_engine, True, comments)
    assert hint in st.session_state["cmp_hint"]
    assert rows == [] and views == []


# ---------------------------------------------------------------- what the page draws


def _data_with(at, key: str) -> dict:  # type: ignore[no-untyped-def]
    """The data the page hands its one components v2 element that takes ``key``."""
    found = []
    for el in at.get("bidi_component"):
        raw = json.loads(el.proto.json)
        found += [d for d in [raw.get("data", raw)] if isinstance(d, dict) and key in d]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("mode", ["da", "binary"])
def test_the_screen_offers_a_box_per_output_only_when_the_campaign_does(  # type: ignore[no-untyped-def]
    app_engine: Engine, mode: str
) -> None:
    cid = make_campaign(app_engine, TEXTS, mode=mode)
    comparative.set_comparative(app_engine, cid, True)
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    data = _data_with(at, "comment")
    assert data["comment"] is None
    places = [h for h in at.html if "tandem-cmp-comment" in h.value and "data-pos" in h.value]
    assert places == []
    set_comment_box(app_engine, cid, True)
    at, _ = annotator_app(app_engine, cid, "ann2")
    assert not at.exception, at.exception
    data = _data_with(at, "comment")
    assert data["comment"] == json.loads(json.dumps(output_comment_boxes(3)))
    assert data["comment"]["labels"] == [f"Comment on output {k} (optional)" for k in (1, 2, 3)]
    assert data["comment"]["max"] == MAX_COMMENT
    assert all("Comment" not in t.label for t in at.text_input)  # no Streamlit box as well
    places = [h for h in at.html if 'class="tandem-cmp-comment"' in h.value]
    assert len(places) == (3 if mode == "binary" else 0)  # a DA screen draws its own


def test_the_single_output_da_page_keeps_its_one_box(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS, mode="da")
    set_comment_box(app_engine, cid, True)
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    assert [t.label for t in at.text_input] == ["Comment (optional)"]  # Streamlit's box
    assert _data_with(at, "comment")["comment"] is None  # none in the slider element
