"""The comparative screen of an error-span campaign (cESA), AppTest on a real migrated
SQLite database: one span widget per output (source drawn once above them), spans marked
through each output's widget and the shared severity / category buttons, an ESA slider per
output, a save refused until every score is set, then one save of the whole screen with
positions and derived labels; a key in an output's box saves the screen; undo brings the
screen back with its spans."""

from __future__ import annotations

import itertools
import json

from sqlalchemy import Engine, select

from annotation.campaign.guidelines import set_comment_box
from annotation.imports.modes import esa_span_config
from annotation.judging import comparative, span_judgments
from annotation.judging.spans import SpanConfig
from db.engine import session_scope
from db.schema.models import Annotation, Assignment
from tests.views.pages.test_annotate import annotator_app, make_campaign

TEXTS = [[f"Ausgabe {k} für Satz {j} ist hier" for k in range(3)] for j in range(3)]
_EVENTS = itertools.count(1)


def cesa_campaign(engine: Engine, ask_esa: bool = True) -> int:
    cid = make_campaign(engine, TEXTS, mode="spans")
    span_judgments.set_campaign_config(engine, cid, SpanConfig(ask_esa=ask_esa))
    comparative.set_comparative(engine, cid, True)
    return cid


def widgets(at) -> list[dict]:  # type: ignore[no-untyped-def]
    return [json.loads(el.proto.json_args) for el in at.get("component_instance")]


def select_words(at, k: int, start: int, end: int):  # type: ignore[no-untyped-def]
    """What output k's widget sends for a mouse selection."""
    nonce = widgets(at)[k]["nonce"]
    event = {"n": next(_EVENTS), "nonce": nonce, "type": "select", "side": "target",
             "start": start, "end": end}  # fmt: skip
    at.session_state[f"cmp_span_widget_{k}"] = {"session": "apptest", "events": [event]}
    return at.run()


def key_in(at, k: int, key: str):  # type: ignore[no-untyped-def]
    event = {"n": next(_EVENTS), "nonce": widgets(at)[k]["nonce"], "type": "key", "key": key}
    at.session_state[f"cmp_span_widget_{k}"] = {"session": "apptest", "events": [event]}
    return at.run()


def click(at, key: str):  # type: ignore[no-untyped-def]
    at.button(key=key).click()
    return at.run()


def set_scores(at, scores: list[int]):  # type: ignore[no-untyped-def]
    keys = [s.key for s in at.slider if str(s.key).startswith("span_esa_")]
    assert len(keys) == len(scores)
    for key, score in zip(keys, scores, strict=True):
        at = at.slider(key=key).set_value(score).run()
    return at


def saved(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(
            select(Annotation.kind, Annotation.screen_position, Annotation.screen_size,
                   Annotation.label, Annotation.score, Annotation.esa_score, Assignment.id)
            .join(Assignment, Assignment.id == Annotation.assignment_id)
            .order_by(Annotation.id)
        ).all()  # fmt: skip


def test_cesa_screen_marks_scores_and_saves_every_output(app_engine: Engine) -> None:
    cesa_campaign(app_engine)
    at, _ = annotator_app(app_engine, 1)
    assert not at.exception, at.exception
    shown = widgets(at)
    assert len(shown) == 3 and all(w["source"] is None for w in shown)  # source drawn once
    assert sum("tandem-source" in h.value for h in at.html) == 1
    targets = [w["target"] for w in shown]
    assert "secret-system" not in "".join(h.value for h in at.html)

    # output 2: "Ausgabe" (0..7) major accuracy, by its widget and the shared buttons
    at = select_words(at, 1, 0, 5)  # snapped to the whole word
    assert widgets(at)[1]["pending"]["end"] == 7
    at = click(at, "cmp_sev_major")
    at = click(at, "cmp_cat_0")
    assert [len(w["spans"]) for w in widgets(at)] == [0, 1, 0]
    # output 3: a minor one, keys typed in its own box
    at = select_words(at, 2, 10, 13)
    at = key_in(at, 2, "q")
    at = key_in(at, 2, "2")
    assert [len(w["spans"]) for w in widgets(at)] == [0, 1, 1]
    assert widgets(at)[2]["spans"][0]["severity"] == "minor"

    at = click(at, "cmp_save")  # no score moved yet: refused, nothing saved
    warned = " ".join(w.value for w in at.warning)
    assert "overall score" in warned and "1, 2, 3 before saving" in warned, warned
    assert saved(app_engine) == []
    at = set_scores(at, [90, 15, 70])
    at = click(at, "cmp_save")
    assert not at.exception, at.exception
    assert not at.warning, [w.value for w in at.warning]
    rows = saved(app_engine)
    assert [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows] == [
        ("label", 0, 3, 1, 0.0, 90.0), ("label", 1, 3, 0, -5.0, 15.0),
        ("label", 2, 3, 1, -1.0, 70.0)]  # fmt: skip
    assert [w["target"] for w in widgets(at)] != targets  # the next screen

    at = click(at, "cmp_undo")  # the whole screen back, its spans with it
    assert [w["target"] for w in widgets(at)] == targets
    assert [len(w["spans"]) for w in widgets(at)] == [0, 1, 1]


def test_enter_in_an_output_box_saves_the_screen(app_engine: Engine) -> None:
    cesa_campaign(app_engine, ask_esa=False)
    at, _ = annotator_app(app_engine, 1)
    assert not [s for s in at.slider if str(s.key).startswith("span_esa_")]  # no ESA asked
    at = select_words(at, 0, 0, 3)  # a selection left open: refused with the output named
    at = key_in(at, 0, "Enter")
    warned = " ".join(w.value for w in at.warning).replace("\\", "")  # markdown escapes
    assert "Output(s) 1: a selection is still open" in warned, warned
    assert saved(app_engine) == []
    at = key_in(at, 0, "Escape")
    at = key_in(at, 1, "Enter")
    assert not at.exception, at.exception
    rows = saved(app_engine)
    assert [(r[1], r[3], r[5]) for r in rows] == [(0, 1, None), (1, 1, None), (2, 1, None)]


def test_screens_with_attention_checks_save_only_the_check(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, TEXTS * 2, mode="spans", attention_rate=0.5)
    comparative.set_comparative(app_engine, cid, True)
    at, _ = annotator_app(app_engine, cid)
    sizes = []
    for _ in range(20):
        assert not at.exception, at.exception
        if not at.get("component_instance"):
            break
        sizes.append(len(widgets(at)))
        before = len(saved(app_engine))
        at = key_in(at, 0, "Enter")  # nothing marked: "no errors" for each output
        assert not at.warning, [w.value for w in at.warning]
        assert len(saved(app_engine)) > before
    rows = saved(app_engine)
    kinds = [r[0] for r in rows]
    assert "attention" in kinds and kinds.count("label") == 6 * 3
    assert set(sizes) == {3}  # a check is shown among its source's other outputs
    assert all(r[2] == 3 for r in rows)


def test_dashboard_position_bias_reads_span_labels(app_engine: Engine) -> None:
    """Screens saved with spans (a major error on the first place only): the dashboard's
    position-bias panel shows the derived labels by place."""
    from accounts.invites import create_annotator
    from annotation.judging import session
    from annotation.queue import build as queue_build
    from tests.annotation.queue.test_queue import make_campaign as bulk_campaign
    from tests.views.pages.test_dashboard import _dashboard

    cid = bulk_campaign(app_engine, 12, 3, name="cesa", mode="spans")
    comparative.set_comparative(app_engine, cid, True)
    queue_build.build_queue(app_engine, cid, seed=2)
    ann = create_annotator(app_engine, cid, "ann").annotator_id
    view = session.next_view(app_engine, ann)
    major = {"start": 0, "end": 6, "severity": "major", "category": "accuracy", "side": "target"}
    while view.slot is not None:
        shown = comparative.screen(app_engine, ann, view)
        assert shown is not None
        marked = {k: {"spans": [major] if k == 0 else []} for k in range(shown.size)}
        view = comparative.submit(app_engine, ann, shown, marked)
    at = _dashboard("cesa")
    assert not at.exception, at.exception
    [bias] = [d.value for d in at.dataframe if "place on screen" in d.value]
    assert bias["share adequate"].tolist() == [0.0, 1.0, 1.0]
    assert "12 complete screens of 3 outputs" in " ".join(str(c.value) for c in at.caption)


def esa_cesa_campaign(engine: Engine) -> int:
    """A cESA campaign in ESA's settings (one category, the score asked), comment box on."""
    cid = make_campaign(engine, TEXTS, mode="spans")
    span_judgments.set_campaign_config(engine, cid, esa_span_config())
    comparative.set_comparative(engine, cid, True)
    set_comment_box(engine, cid, True)
    return cid


def test_esa_cesa_screen_speaks_of_severity_only_and_saves_a_comment_per_output(
    app_engine: Engine,
) -> None:
    cid = esa_cesa_campaign(app_engine)
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    words = " ".join(c.value for c in at.caption)
    assert "a severity — `q` minor, `w` major;" in words, words
    assert "category" not in words and "critical" not in words
    assert not [b for b in at.button if str(b.key).startswith("cmp_cat_")]  # no category
    boxes = [t for t in at.text_input if str(t.key).startswith("comment-")]
    assert [t.label for t in boxes] == [f"Comment on output {k} (optional)" for k in (1, 2, 3)]

    at = select_words(at, 0, 0, 5)
    at = key_in(at, 0, "Enter")  # a selection left open: said without a category
    warned = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "give it a severity, or clear it" in warned, warned
    at = key_in(at, 0, "w")  # a severity alone marks the span (ESA's one category)
    assert [(s["severity"], s["category"]) for s in widgets(at)[0]["spans"]] == [("major", "error")]
    sevs = [s for s in at.selectbox if str(s.key).startswith("span_edit_sev_")]
    assert [s.options for s in sevs] == [["minor", "major"]]  # no critical in ESA
    assert not [s for s in at.selectbox if str(s.key).startswith("span_edit_cat_")]

    for box, text in zip(boxes, ["first  ", "", "third one"], strict=True):
        at = at.text_input(key=box.key).input(text).run()
    at = set_scores(at, [40, 80, 60])
    at = click(at, "cmp_save")
    assert not at.exception, at.exception
    with session_scope(app_engine) as s:
        rows = s.execute(
            select(Annotation.screen_position, Annotation.comment, Annotation.esa_score)
            .order_by(Annotation.screen_position)
        ).all()  # fmt: skip
    assert rows == [(0, "first", 40.0), (1, None, 80.0), (2, "third one", 60.0)]
    # the next screen's boxes start empty
    assert [t.value for t in at.text_input if str(t.key).startswith("comment-")] == ["", "", ""]
