"""ESA^AI on the annotate page, driven by AppTest on a real SQLite database: the item starts
with its AI spans (tagged, draft "offer"), `j` selects, `a` accepts, a severity key edits, a
selection over the selected span moves it, `Del` deletes; a reload's draft replaces the
prefill (an empty one too) and a forged AI tag is dropped; a campaign without the prefill
shows none. Browser side: tests/browser/test_esa_ai_browser.py."""

from __future__ import annotations

from sqlalchemy import Engine

from annotation.imports.ai_spans import import_ai_spans, set_prefill
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from tests.app.test_annotate import annotator_app
from tests.app.test_annotate_spans import OUTPUTS, click, event, saved, spans_campaign, widget


def _campaign(engine: Engine, prefill: bool = True) -> int:
    cid = spans_campaign(engine, meta={META_KEY: SpanConfig(ask_esa=True).to_meta()})
    rows = ["item_id,system,start,end,severity,category"]
    for j, texts in enumerate(OUTPUTS):
        for k, text in enumerate(texts):
            words = text.split()
            a, b = text.index(words[1]), text.index(words[2])
            rows.append(f"i{j},secret-system-{k},{a},{a + len(words[1])},minor,fluency")
            rows.append(f"i{j},secret-system-{k},{b},{b + len(words[2])},major,made-up")
    import_ai_spans(engine, "\n".join(rows).encode(), "demo", source="qe", filename="ai.csv")
    if not prefill:
        set_prefill(engine, cid, False)
    return cid


def _marks(w: dict) -> list[tuple]:
    return [
        (w["target"][s["start"] : s["end"]], s["severity"], s.get("ai_state")) for s in w["spans"]
    ]


def test_prefill_accept_edit_move_delete_and_save(app_engine: Engine) -> None:
    cid = _campaign(app_engine)
    at, _ = annotator_app(app_engine, cid)
    w = widget(at)
    words = w["target"].split()
    assert _marks(w) == [(words[1], "minor", "unchecked"), (words[2], "major", "unchecked")]
    assert w["draft_mode"] == "offer" and w["keep_empty"] is True
    assert all(s["category"] in ("fluency", "other") for s in w["spans"])
    at = event(at, type="key", key="j")
    at = event(at, type="key", key="a")  # accepts the selected one only
    assert [m[2] for m in _marks(widget(at))] == ["accepted", "unchecked"]
    at = event(at, type="key", key="j")
    at = event(at, type="key", key="q")  # the second: major → minor
    assert _marks(widget(at))[1] == (words[2], "minor", "edited")
    text = w["target"]
    start = text.index(words[2])
    end = text.index(words[3]) + len(words[3])
    at = event(at, type="select", side="target", start=start + 1, end=end - 1)  # move it
    assert _marks(widget(at))[1] == (f"{words[2]} {words[3]}", "minor", "edited")
    at = event(at, type="key", key="j")  # wraps to the first
    at = event(at, type="key", key="Delete")
    assert _marks(widget(at)) == [(f"{words[2]} {words[3]}", "minor", "edited")]
    assert widget(at)["draft_mode"] == "keep"
    at.slider[0].set_value(40)
    at = event(at, type="key", key="Enter")
    ((kind, label, _, spans, esa, _),) = saved(app_engine)
    assert (kind, label, esa) == ("label", 1, 40.0)
    assert [(text[s["start"] : s["end"]], s["severity"]) for s in spans] == [
        (f"{words[2]} {words[3]}", "minor")
    ]
    assert all("ai" not in s for s in spans)  # the judgment stores plain final spans


def test_a_reload_draft_replaces_the_prefill_and_forged_tags_are_dropped(
    app_engine: Engine,
) -> None:
    cid = _campaign(app_engine)
    at, _ = annotator_app(app_engine, cid)
    w = widget(at)
    kept = dict(w["spans"][0]) | {"ai_state": "accepted"}
    forged = dict(w["spans"][1]) | {"ai": 10**6, "ai_state": "accepted"}
    at = event(at, type="restore", spans=[kept, forged])
    w = widget(at)
    assert [s.get("ai_state") for s in w["spans"]] == ["accepted", None]
    fresh, _ = annotator_app(app_engine, cid, name="other")
    fresh = event(fresh, type="restore", spans=[])  # every AI span deleted before the reload
    assert widget(fresh)["spans"] == [] and widget(fresh)["draft_mode"] == "keep"


def test_no_prefill_when_the_setting_is_off(app_engine: Engine) -> None:
    cid = _campaign(app_engine, prefill=False)
    at, _ = annotator_app(app_engine, cid)
    assert widget(at)["spans"] == [] and not widget(at)["keep_empty"]
    at = click(at, "span_no_errors")  # no score yet: refused as in any ESA campaign
    assert saved(app_engine) == []


def test_import_tab_refuses_naming_the_row_then_imports(app_engine: Engine) -> None:
    from tests.app.conftest import admin_page

    spans_campaign(app_engine, meta={META_KEY: SpanConfig(ask_esa=True).to_meta()})
    at = admin_page("views/pages/import_campaign.py")
    at.selectbox(key="ai-spans-campaign").set_value("demo").run()
    good = b"item_id,system,start,end,severity\ni0,secret-system-0,4,9,major\n"
    bad = good + b"i0,secret-system-1,4,99,major\n"
    at.file_uploader(key="ai-spans-file").upload("ai.csv", bad, "text/csv").run()
    [button] = [b for b in at.button if b.label == "Import AI spans"]
    button.click().run()
    assert "Name the source" in at.error[0].value  # no source yet: nothing tried
    at.text_input(key="ai-spans-source").input("xcomet").run()
    [button] = [b for b in at.button if b.label == "Import AI spans"]
    button.click().run()
    [error] = at.error
    assert "Nothing was imported" in error.value
    shown = error.value.replace("\\", "")  # markdown escapes
    assert "ai.csv, row 2, column 'end': [4, 99) goes beyond the output (31 characters)" in shown
    at.file_uploader(key="ai-spans-file").upload("ai.csv", good, "text/csv").run()
    [button] = [b for b in at.button if b.label == "Import AI spans"]
    button.click().run()
    assert not at.error and "Imported 1 AI span(s)" in at.success[-1].value.replace("\\", "")
