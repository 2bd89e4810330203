"""The comparative DA screen in AppTest (real SQLite): every output of the source goes to
the slider element with its text and place and no system name; skip acts on the
whole screen (undo: the last skipped output). The browser side (keys, mouse, reload, save) is
tests/browser/test_da_browser.py::test_da_comparative_screen."""

from __future__ import annotations

import json

from sqlalchemy import Engine, select

from annotation.judging import comparative
from db.engine import session_scope
from db.schema.models import Annotation
from tests.app.test_annotate import annotator_app, make_campaign

TEXTS = [[f"Ausgabe {k} für Satz {j} ist hier" for k in range(3)] for j in range(3)]


def slider_data(at) -> dict:  # type: ignore[no-untyped-def]
    """The data the page hands the slider element (views/annotate/da_slider.py)."""
    (el,) = at.get("bidi_component")
    return json.loads(el.proto.json)


def test_the_da_screen_sends_every_output_and_skips_whole(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS, mode="da")
    comparative.set_comparative(app_engine, cid, True)
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    data = slider_data(at)
    data = data.get("data", data)
    shown = [row["text"] for row in data["rows"]]
    assert sorted(shown) == sorted(next(r for r in TEXTS if shown[0] in r))  # one source
    assert [row["title"] for row in data["rows"]] == [f"Output {k} of 3" for k in (1, 2, 3)]
    assert "secret-system" not in json.dumps(data)
    assert data["top"] == 100 and data["anchors"][0] == [0, "No meaning preserved"]
    caption = " ".join(c.value for c in at.caption)
    assert "`↓` / `↑` (or `j` / `k`) next / previous output" in caption
    at.button(key="cmp_skip").click()
    at = at.run()
    with session_scope(app_engine) as s:
        kinds = s.scalars(select(Annotation.kind).order_by(Annotation.id)).all()
    assert kinds == ["skip"] * 3
    at.button(key="cmp_undo").click()
    at = at.run()
    with session_scope(app_engine) as s:
        kinds = s.scalars(select(Annotation.kind).order_by(Annotation.id)).all()
    # skips are saved one output at a time (as on the label screen), so undo takes back the
    # last one: the screen comes back with that output to judge
    assert kinds == ["skip"] * 3 + ["undo"]
