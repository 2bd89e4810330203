"""The annotate page in DA / SQM mode, driven by AppTest on a real SQLite database: the
slider element with its anchors, the typed score, refusals that save nothing, skip and
undo, and SQM's seven points. The slider's browser side (keys, mouse, reload) is tested in
tests/browser/test_da_browser.py."""

from __future__ import annotations

from sqlalchemy import Engine, select
from streamlit.testing.v1 import AppTest

from db.engine import session_scope
from db.schema.models import Annotation
from tests.views.pages.test_annotate import PLAIN, annotator_app, make_campaign


def saved(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(
            select(
                Annotation.kind,
                Annotation.label,
                Annotation.da_score,
                Annotation.esa_score,
                Annotation.output_id,
            ).order_by(Annotation.id)
        ).all()


def typed(at: AppTest, value: float | None) -> AppTest:
    (box,) = [n for n in at.number_input if n.key.startswith("da_typed_")]
    box.set_value(value)
    at.button(key="da_save_typed").click()
    return at.run()


def test_da_page_shows_anchors_and_saves_a_typed_score(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN, mode="da")
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    caption = " ".join(c.value for c in at.caption)
    assert "No meaning preserved" in caption and "Perfect meaning and grammar" in caption
    assert "`Enter` saves" in caption and "`0`–`9`" in caption
    assert "adequate" not in [b.key for b in at.button]  # no label buttons in DA mode
    at = typed(at, 73)
    assert not at.exception, at.exception
    ((kind, label, da, esa, _),) = saved(app_engine)
    assert (kind, label, da, esa) == ("label", None, 73.0, None)


def test_an_unset_score_is_refused_and_saves_nothing(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN, mode="da")
    at, _ = annotator_app(app_engine, cid)
    at = typed(at, None)
    assert saved(app_engine) == []
    assert any("set the score first" in w.value for w in at.warning)


def test_sqm_stores_the_point_on_the_hundred_scale_and_undo_takes_it_back(
    app_engine: Engine,
) -> None:
    cid = make_campaign(app_engine, PLAIN, mode="sqm")
    at, _ = annotator_app(app_engine, cid)
    caption = " ".join(c.value for c in at.caption)
    assert "Most meaning preserved and few grammar mistakes" in caption and "`0`–`6`" in caption
    at = typed(at, 4)
    assert [r[2] for r in saved(app_engine)] == [100.0 * 4 / 6]
    at.button(key="undo").click()
    at = at.run()
    assert [r[0] for r in saved(app_engine)] == ["label", "undo"]
    at.button(key="skip").click()
    at = at.run()
    assert [r[0] for r in saved(app_engine)] == ["label", "undo", "skip"]
