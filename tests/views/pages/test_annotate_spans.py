"""The annotate page in error-span mode, driven by AppTest on a real SQLite database: no
spans, mark (widget events and buttons), edit, delete, ESA score, blind mode, attention
checks, and literal text in the span widget. The widget's own browser side is tested in
tests/browser/test_spans_browser.py."""

from __future__ import annotations

import itertools
import json

import pytest
from sqlalchemy import Engine, select
from streamlit.testing.v1 import AppTest

from annotation.imports.modes import esa_span_config
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from db.engine import session_scope
from db.judging.annotator_stats import annotator_work
from db.schema.models import Annotation, Campaign, MetricScore, Output
from tests.views.pages.test_annotate import TRICKY, annotator_app, make_campaign

OUTPUTS = [
    ["Die Katze sitzt auf der Matte.", "Der Hund bellt sehr laut heute."],
    ["Ein kleines Haus am See.", "Ein großes Haus am Meer."],
    ["Guten Morgen, liebe Leute.", "Gute Nacht, alle zusammen."],
]


def spans_campaign(engine: Engine, **settings) -> int:
    return make_campaign(engine, OUTPUTS, mode="spans", **settings)


_EVENTS = itertools.count(1)


def widget(at: AppTest) -> dict:
    (el,) = [u for u in at.get("component_instance")]
    return json.loads(el.proto.json_args)


def event(at: AppTest, **data) -> AppTest:
    """What the widget sends: a selection, a click on a span, or a key."""
    w = widget(at)
    event = {"n": next(_EVENTS), "nonce": w["nonce"], **data}
    at.session_state["span_widget"] = {"session": "apptest", "events": [event]}
    return at.run()


def click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click()
    return at.run()


def saved(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(
            select(
                Annotation.kind,
                Annotation.label,
                Annotation.score,
                Annotation.spans,
                Annotation.esa_score,
                Annotation.output_id,
            ).order_by(Annotation.id)
        ).all()


def output_id(engine: Engine, text: str) -> int:
    with session_scope(engine) as s:
        return s.scalar(select(Output.id).where(Output.text == text))


def test_no_errors_is_one_key_and_saves_an_empty_judgment(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine)
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    first = widget(at)["target"]
    at = event(at, type="key", key="n")
    assert not at.exception, at.exception
    ((kind, label, score, spans, esa, oid),) = saved(app_engine)
    assert (kind, label, score, spans, esa) == ("label", 1, 0.0, [], None)
    assert oid == output_id(app_engine, first)
    assert widget(at)["target"] != first  # the next item is shown
    at = click(at, "span_no_errors")  # the button does the same
    assert len(saved(app_engine)) == 2


def test_mark_edit_delete_and_save(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine)
    at, _ = annotator_app(app_engine, cid)
    text = widget(at)["target"]
    # a sloppy mouse selection inside two words snaps to both whole words
    word = text.split()[1]
    i = text.index(word)
    at = event(at, type="select", side="target", start=i + 1, end=i + len(word) + 2)
    pending = widget(at)["pending"]
    second = text.split()[2]
    assert text[pending["start"] : pending["end"]] == f"{word} {second}"
    at = event(at, type="key", key="w")  # major
    at = event(at, type="key", key="1")  # accuracy → the span is added
    assert widget(at)["spans"] == [
        {
            "start": i,
            "end": pending["end"],
            "severity": "major",
            "category": "accuracy",
            "side": "target",
        }
    ]
    # a second span by buttons: first word, minor, fluency
    at = event(at, type="select", side="target", start=0, end=1)
    at = click(at, "span_cat_1")
    at = click(at, "span_sev_minor")
    assert [s["category"] for s in widget(at)["spans"]] == ["accuracy", "fluency"]
    # edit: click the first span, make it minor with a key; then change the second's category
    at = event(at, type="click_span", index=0)
    assert widget(at)["selected"] == 0
    at = event(at, type="key", key="q")
    assert widget(at)["spans"][0]["severity"] == "minor"
    sel = [s for s in at.selectbox if s.key and s.key.startswith("span_edit_cat_")][1]
    sel.set_value("style")
    at = at.run()
    assert widget(at)["spans"][1]["category"] == "style"
    # delete the selected first span (Del), then an omission in the source
    at = event(at, type="click_span", index=0)
    at = event(at, type="key", key="Delete")
    assert [s["category"] for s in widget(at)["spans"]] == ["style"]
    at = event(at, type="select", side="source", start=3, end=3)
    at = event(at, type="key", key="e")
    at = event(at, type="key", key="4")  # critical; category 4 = style
    # saving with an unfinished selection is refused; Enter saves otherwise
    at = event(at, type="select", side="target", start=0, end=3)
    at = event(at, type="key", key="Enter")
    assert "selection is still open" in at.warning[0].value and saved(app_engine) == []
    at = event(at, type="key", key="Escape")
    at = event(at, type="key", key="Enter")
    ((kind, label, score, spans, _, oid),) = saved(app_engine)
    assert oid == output_id(app_engine, text)
    assert (kind, label, score) == ("label", 0, -6.0)  # minor style −1, critical −5
    assert [(s["side"], s["severity"], s["category"]) for s in spans] == [
        ("target", "minor", "style"),  # stored in order of position
        ("source", "critical", "style"),
    ]


@pytest.mark.slow
def test_n_refuses_when_spans_are_marked_and_undo_brings_the_item_back(
    app_engine: Engine,
) -> None:
    cid = spans_campaign(app_engine)
    at, _ = annotator_app(app_engine, cid)
    text = widget(at)["target"]
    at = event(at, type="select", side="target", start=0, end=3)
    at = event(at, type="key", key="q")
    at = event(at, type="key", key="2")
    at = event(at, type="key", key="n")
    assert "delete them" in at.warning[0].value and saved(app_engine) == []
    at = event(at, type="key", key="Enter")
    assert saved(app_engine)[0][1:3] == (1, -1.0)
    at = event(at, type="key", key="u")
    assert [r[0] for r in saved(app_engine)] == ["label", "undo"]
    assert widget(at)["target"] == text
    # the item comes back with its span, to correct: make it major and save again
    assert [(s["start"], s["severity"]) for s in widget(at)["spans"]] == [(0, "minor")]
    at = event(at, type="click_span", index=0)
    at = event(at, type="key", key="w")
    at = event(at, type="key", key="Enter")
    assert [r[:3] for r in saved(app_engine)] == [
        ("label", 1, -1.0),
        ("undo", None, None),
        ("label", 0, -5.0),
    ]


def test_esa_score_is_asked_and_stored(app_engine: Engine) -> None:
    meta = {META_KEY: SpanConfig(ask_esa=True).to_meta()}
    cid = spans_campaign(app_engine, meta=meta)
    at, _ = annotator_app(app_engine, cid)
    at = click(at, "span_no_errors")
    assert "Set the overall score first" in at.warning[0].value and saved(app_engine) == []
    at.slider[0].set_value(87)  # the ESA slider (views/spans/extras.py)
    at = click(at, "span_no_errors").run()
    assert saved(app_engine)[0][:5] == ("label", 1, 0.0, [], 87.0)


def test_blind_mode_hides_metric_scores(app_engine: Engine) -> None:
    for blind in (False, True):
        cid = make_campaign(app_engine, OUTPUTS, mode="spans", show_metrics=not blind)
        with session_scope(app_engine) as s:
            s.query(Campaign).filter(Campaign.id == cid).update({"name": f"c{blind}"})
            for oid in s.scalars(select(Output.id)):
                score = MetricScore(output_id=oid, metric="chrf", signature=f"c{cid}", value=42.0)
                s.add(score)
        at, _ = annotator_app(app_engine, cid, name=f"a{blind}")
        shown = [m.value for m in at.markdown] + [t.value for t in at.text]
        assert ("**Metric scores**" in shown) is not blind
        assert any("42" in t for t in shown) is not blind


def test_attention_check_is_shown_like_any_item_and_judged_by_spans(app_engine: Engine) -> None:
    long = [["eins zwei drei vier fünf sechs sieben acht neun zehn", "a b c d e f g h i j"]] * 4
    cid = make_campaign(app_engine, long, mode="spans", attention_rate=0.5)
    at, aid = annotator_app(app_engine, cid)
    for _ in range(30):
        w = widget(at)
        at = event(at, type="select", side="target", start=0, end=len(w["target"]))
        at = event(at, type="key", key="w")
        at = event(at, type="key", key="1")
        at = event(at, type="key", key="Enter")
        assert not at.exception, at.exception
        if not at.get("component_instance"):
            break
    with session_scope(app_engine) as s:
        (work,) = [w for w in annotator_work(s, cid) if w.annotator_id == aid]
        kinds = [k for (k,) in s.execute(select(Annotation.kind))]
    assert kinds.count("attention") == work.attention_answered > 0
    assert work.attention_pass_rate == 1.0  # the whole output marked major covers every edit
    assert kinds.count("label") == 8


def test_item_text_is_literal_in_the_span_widget(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, [[t] for t in TRICKY], mode="spans")
    at, _ = annotator_app(app_engine, cid)
    seen = set()
    for _ in TRICKY:
        w = widget(at)
        seen.add(w["target"])
        # the widget gets the raw text (it writes it with textContent, never innerHTML)
        assert w["target"] in TRICKY
        at = event(at, type="select", side="target", start=0, end=len(w["target"]))
        at = event(at, type="key", key="q")
        at = event(at, type="key", key="6")
        (listed,) = [m.value for m in at.markdown if m.value.startswith("1. ")]
        if "<script>" in w["target"]:  # the span list escapes markdown and HTML
            assert "\\<script\\>" in listed and "\\*\\*bold\\*\\*" in listed
        at = event(at, type="key", key="Enter")
    assert seen == set(TRICKY)


def test_dashboard_shows_span_f1_for_a_span_campaign(app_engine: Engine) -> None:
    from annotation.imports.mqm import import_mqm_tsv
    from formats.mqm.tsv import COLUMNS
    from tests.views.conftest import admin_page

    rows = [
        ("1", "r1", "<v>Eins</v> zwei", "Accuracy", "Major"),
        ("1", "r2", "<v>Eins zwei</v>", "Accuracy", "Major"),
        ("2", "r1", "drei vier", "No-error", "No-error"),
        ("2", "r2", "drei <v>vier</v>", "Fluency", "Minor"),
    ]
    text = (
        "\t".join(COLUMNS)
        + "\n"
        + "".join(f"A\td\t{seg}\t{seg}\t{r}\ts\t{t}\t{c}\t{v}\n" for seg, r, t, c, v in rows)
    )
    import_mqm_tsv(app_engine, text.encode(), "mqm", filename="m.tsv")
    at = admin_page("views/pages/dashboard.py", "mqm")
    (f1,) = [m for m in at.metric if m.label == "Span F1 (characters)"]
    assert f1.value == f"{2 * 4 / (4 + 9 + 4):.3f}"


def test_spans_with_a_post_edit_box(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, OUTPUTS, mode="spans_post_edit")
    at, _ = annotator_app(app_engine, cid)
    text = widget(at)["target"]
    at = event(at, type="select", side="target", start=0, end=3)
    at = event(at, type="key", key="w")
    at = event(at, type="key", key="1")
    (box,) = at.text_area
    box.set_value(text.replace(".", "!"))
    at = click(at.run(), "span_save")
    ((kind, label, score, spans, _, oid),) = saved(app_engine)
    assert (kind, label, score, len(spans)) == ("label", 0, -5.0, 1)
    with session_scope(app_engine) as s:
        (post_edit,) = s.execute(select(Annotation.post_edit)).one()
    assert post_edit == text.replace(".", "!") and oid == output_id(app_engine, text)


def test_row_widgets_follow_their_span_after_a_delete(app_engine: Engine) -> None:
    cid = spans_campaign(app_engine)
    at, _ = annotator_app(app_engine, cid)
    text = widget(at)["target"]
    second = text.index(" ") + 1
    for (start, end), sev, cat in (((0, 2), "w", "1"), ((second, second + 1), "q", "2")):
        at = event(at, type="select", side="target", start=start, end=end)
        at = event(at, type="key", key=sev)
        at = event(at, type="key", key=cat)
    at = click(at, next(b.key for b in at.button if b.key.startswith("span_del_")))
    assert [(s["severity"], s["category"]) for s in widget(at)["spans"]] == [("minor", "fluency")]
    sev = [s for s in at.selectbox if s.key.startswith("span_edit_sev_")]
    cat = [s for s in at.selectbox if s.key.startswith("span_edit_cat_")]
    assert [s.value for s in sev] == ["minor"] and [c.value for c in cat] == ["fluency"]


def test_import_page_takes_an_mqm_tsv(app_engine: Engine, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.annotation.imports.test_mqm import SMALL
    from views.admin.import_mqm import is_mqm_tsv

    assert is_mqm_tsv("x.tsv", SMALL) and not is_mqm_tsv("x.csv", SMALL)
    assert not is_mqm_tsv("x.tsv", b"item_id\tsource\treference\tsystem\toutput\n")
    path = tmp_path / "m.tsv"
    path.write_bytes(SMALL)
    at = AppTest.from_string(
        "from pathlib import Path\n"
        "from views.admin.import_mqm import import_mqm_form\n"
        "from views.admin.long_work import show_finished\n"
        "show_finished('import')\n"  # the finished import's report, as the Import page shows it
        f"import_mqm_form('m.tsv', Path({str(path)!r}).read_bytes())\n",
        default_timeout=30,
    ).run()
    assert "4 judgments with 4 error spans by 2 raters" in at.success[0].value
    at.button(key="mqm_import").click().run()
    assert any("4 judgments by 2 annotator\\(s\\)" in m.value for m in at.success)  # escaped
    with session_scope(app_engine) as s:
        assert s.scalar(select(Campaign.mode).where(Campaign.name == "m")) == "spans"
    at.run()
    assert "exists" in at.warning[0].value and at.button(key="mqm_import").disabled


def test_an_esa_item_asks_a_severity_only(app_engine: Engine) -> None:
    """ESA's spans carry a severity, minor or major: the page names no category and no
    critical severity, draws no category button or list, and a severity alone marks a span."""
    cid = spans_campaign(app_engine, meta={META_KEY: esa_span_config().to_meta()})
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    words = " ".join(c.value for c in at.caption)
    assert "then a severity — `q` minor, `w` major." in words, words
    assert "category" not in words and "critical" not in words
    assert "category" not in widget(at)["hint"] and "critical" not in widget(at)["hint"]
    assert not [b for b in at.button if str(b.key).startswith("span_cat_")]
    at = event(at, type="select", side="target", start=0, end=3)
    assert "choose a severity." in at.info[0].value
    at = event(at, type="key", key="Enter")
    warned = " ".join(w.value for w in at.warning)
    assert "give it a severity, or clear it" in warned, warned
    at = event(at, type="key", key="w")
    assert [(s["severity"], s["category"]) for s in widget(at)["spans"]] == [("major", "error")]
    sevs = [s for s in at.selectbox if str(s.key).startswith("span_edit_sev_")]
    assert [s.options for s in sevs] == [["minor", "major"]]
    assert not [s for s in at.selectbox if str(s.key).startswith("span_edit_cat_")]
