"""The annotator's view (issue 17, item 8) through Streamlit's AppTest: the label buttons'
colours, the annotator's own batch in the progress line, what an undo took back, the
output's place among its source's outputs with all of them side by side (paired design),
and the guidelines the administrators write on the Annotators page."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from streamlit.testing.v1 import AppTest

from accounts.invites import create_annotator
from annotation.campaign import guidelines as campaign_guidelines
from tests.views.conftest import APP, admin_page
from tests.views.pages.test_annotate import (
    TRICKY,
    annotator_app,
    make_campaign,
    shown_output,
    texts_of,
)

PLAIN = [[f"output {j} of system {k} is here" for k in range(3)] for j in range(2)]


def _progress(at) -> str:  # type: ignore[no-untyped-def]
    return at.get("progress")[0].proto.text


def _text_in(engine: Engine, html: str) -> str:
    """The output text a shown item's html holds."""
    return next(t for t in texts_of(engine).values() if f">{t}<" in html)


def _expander(at, label: str):  # type: ignore[no-untyped-def]
    return next((e for e in at.expander if e.label == label), None)


SIDE_BY_SIDE = "All outputs for this source (side by side)"


@pytest.mark.parametrize("mode", ["binary", "both"])
def test_label_buttons_are_coloured_by_meaning_not_streamlit_primary(
    app_engine: Engine, mode: str
) -> None:
    cid = make_campaign(app_engine, PLAIN, mode=mode)
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    if mode == "binary":  # (AppTest lists a form's submit buttons apart, by widget id)
        assert at.button(key="adequate").proto.type != "primary"  # Streamlit's primary is red
        assert at.button(key="inadequate").proto.type != "primary"
    style = next(h.value for h in at.html if ".st-key-adequate" in h.value)
    assert "#15803d" in style and "#b42318" in style  # green adequate, red inadequate


@pytest.mark.slow
def test_progress_shows_the_annotators_own_batch(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)
    at, _ = annotator_app(app_engine, cid)
    assert _progress(at) == ("You: 0 judged, 0 skipped · 6 left for you · Campaign: 0 of 6 done")
    at.button(key="adequate").click().run()
    other, _ = annotator_app(app_engine, cid, "other")  # takes the second item (3 outputs)
    assert _progress(other) == "You: 0 judged, 0 skipped · 3 left for you · Campaign: 1 of 6 done"
    at.button(key="inadequate").click().run()
    assert _progress(at) == "You: 2 judged, 0 skipped · 1 left for you · Campaign: 2 of 6 done"
    assert at.get("progress")[0].proto.value == 66  # the bar: their own 2 of 3


def test_undo_says_what_it_took_back(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)
    at, _ = annotator_app(app_engine, cid)
    first = shown_output(at)
    at.button(key="adequate").click().run()
    assert not at.info
    at.button(key="undo").click().run()
    (info,) = [i.value.replace("\\", "") for i in at.info]  # markdown-escaped: literal
    assert info == (
        f"Undone: your Adequate label on your item 1 (output 1 of 3 for its source): "
        f"“{_text_in(app_engine, first)}”. The item is shown again: judge it anew."
    )
    assert shown_output(at) == first
    at.button(key="inadequate").click().run()
    assert not at.info  # said once, gone with the next action


def test_paired_position_and_side_by_side_literal(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, [TRICKY])  # one source, four systems
    at, _ = annotator_app(app_engine, cid)
    for k in range(1, 5):
        assert f"Output {k} of 4 for this source" in shown_output(at)
        box = _expander(at, SIDE_BY_SIDE)
        assert box is not None
        (cells,) = [h.value for h in box.get("html")]
        assert cells.count("tandem-sibling-cell") == 4
        assert f"Output {k} · the one you judge now" in cells
        assert "<script>" not in cells and "&lt;script&gt;alert(1)&lt;/script&gt;" in cells
        for text in TRICKY[1:]:
            assert text in cells
        assert "secret-system" not in cells and "tandem-output" not in cells
        at.button(key="adequate").click().run()


def test_unpaired_campaign_shows_no_position(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN, paired=False)
    at, _ = annotator_app(app_engine, cid)
    assert "for this source" not in shown_output(at)
    assert _expander(at, SIDE_BY_SIDE) is None


@pytest.mark.slow
def test_admin_writes_guidelines_and_annotators_see_them(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)
    at, _ = annotator_app(app_engine, cid, "before")
    assert _expander(at, "Guidelines for this campaign") is None  # none written yet

    admin = admin_page("views/pages/annotators.py", "demo")
    admin.text_area(key=f"guidelines_text_{cid}").input("Judge the **meaning**, not style.")
    admin.text_area(key=f"guidelines_examples_{cid}").input("- *Der Hund* for “the cat”: 0")
    admin.button(key="save_guidelines").click().run()
    assert not admin.exception, admin.exception
    stored = campaign_guidelines.guidelines(app_engine, cid)
    assert stored.text == "Judge the **meaning**, not style."
    assert any("Guidelines saved" in s.value for s in admin.success)
    assert any("when 0 labels existed" in c.value for c in admin.caption)

    token = create_annotator(app_engine, cid, "after").token
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["token"] = token
    at.run()
    box = _expander(at, "Guidelines for this campaign")
    assert box is not None and box.proto.expanded  # open on the first item
    shown = [m.value for m in box.markdown]
    assert shown == [
        "Judge the **meaning**, not style.",
        "**Examples**",
        "- *Der Hund* for “the cat”: 0",
    ]
    assert all(not m.proto.allow_html for m in box.markdown)  # markdown, never HTML
    at.button(key="adequate").click().run()
    # the next time they open their link, having judged, the panel starts closed
    reopened = AppTest.from_file(APP, default_timeout=30)
    reopened.query_params["token"] = token
    reopened.run()
    box = _expander(reopened, "Guidelines for this campaign")
    assert box is not None and not box.proto.expanded


def test_span_mode_shows_position_and_side_by_side(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN, mode="spans")
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    assert "The output below is output 1 of 3 for this source." in [c.value for c in at.caption]
    assert _expander(at, SIDE_BY_SIDE) is not None
    assert "You: 0 judged, 0 skipped · 6 left for you" in _progress(at)
