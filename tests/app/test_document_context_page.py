"""Document context on the annotate page and its switch on the Annotators page and in the
CLI (AppTest and Typer's runner on a real migrated SQLite database)."""

from __future__ import annotations

import html
import re

from sqlalchemy import Engine
from typer.testing import CliRunner

from annotation.campaign import context
from annotation.judging.session import next_view
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.engine import get_engine, session_scope
from db.schema.models import Campaign, Item, Output, System
from tests.app.conftest import admin_page
from tests.app.test_annotate import TRICKY, annotator_app, shown_output

N = 6  # segments of the one document; system names must never reach the page


def make_document(engine: Engine, mode: str = "binary") -> int:
    """One document of N segments (tricky text), two systems, plus one item of another
    document; the queue built."""
    with session_scope(engine) as s:
        camp = Campaign(name="demo", mode=mode, attention_rate=0.0, overlap=0.0)
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=f"secret-system-{k}") for k in range(2)]
        s.add_all(systems)
        s.flush()
        for j in range(N + 1):
            doc = "talk-1" if j < N else "talk-2"
            item = Item(campaign_id=camp.id, external_id=f"seg{j}", doc_id=doc,
                        source=f"source {j} {TRICKY[j % len(TRICKY)]}")  # fmt: skip
            s.add(item)
            s.flush()
            s.add_all(Output(item_id=item.id, system_id=sy.id, text=f"out {j} by {k}")
                      for k, sy in enumerate(systems))  # fmt: skip
        cid = camp.id
    queue_build.build_queue(engine, cid, seed=5)
    return cid


def context_blocks(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [h.value for h in at.html if "tandem-context-segment" in h.value]


def test_annotate_page_shows_the_documents_earlier_segments(app_engine: Engine) -> None:
    cid = make_document(app_engine)
    context.set_document_context(app_engine, cid, True, window=2)
    at, _ = annotator_app(app_engine, cid)
    checked = 0
    for _ in range(2 * (N + 1)):
        assert not at.exception, at.exception
        j, k = map(int, re.search(r"out (\d+) by (\d)", shown_output(at)).groups())
        blocks = context_blocks(at)
        if j == 0 or j == N:  # first of its document, or the other document's only item
            assert blocks == []
        else:
            text = "".join(blocks)
            outs = [int(x) for x in re.findall(rf"out (\d+) by {k}", text)]
            assert outs == list(range(j)), (j, k, outs)  # earlier ones, in order
            assert f"by {1 - k}" not in text  # the same system only
            assert "secret-system" not in text
            assert html.escape(TRICKY[0]) in text and 'dir="auto"' in text  # literal, bidi
            assert "<script>" not in text
            visible, collapsed = blocks[-1], blocks[:-1]
            assert [int(x) for x in re.findall(r"out (\d+)", visible)] == list(range(j))[-2:]
            assert len(collapsed) == (1 if j > 2 else 0)
            expanders = [e.label for e in at.expander if "earlier segment" in e.label]
            assert expanders == ([f"{j - 2} earlier segment(s) of this document"]
                                 if j > 2 else [])  # fmt: skip
            checked += 1
        at.button(key="adequate").click().run()
    assert checked == 2 * (N - 1)


def test_span_mode_shows_the_context_too(app_engine: Engine) -> None:
    cid = make_document(app_engine, mode="spans")
    context.set_document_context(app_engine, cid, True, window=N)
    at, ann = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    held = next_view(app_engine, ann).slot  # the item the page holds
    assert held is not None
    j, k = map(int, re.search(r"out (\d+) by (\d)", held.text).groups())
    assert 0 < j < N  # the queue's seed puts a segment with context first
    text = "".join(context_blocks(at))
    assert [int(x) for x in re.findall(rf"out (\d+) by {k}", text)] == list(range(j))


def test_context_off_shows_nothing(app_engine: Engine) -> None:
    cid = make_document(app_engine)
    at, _ = annotator_app(app_engine, cid)
    for _ in range(N + 1):
        assert context_blocks(at) == []
        at.button(key="adequate").click().run()


def test_switch_on_the_annotators_page(app_engine: Engine) -> None:
    cid = make_document(app_engine)
    at = admin_page("views/pages/annotators.py", "demo")
    assert at.toggle(key="document_context").value is False
    at.toggle(key="document_context").set_value(True)
    at.number_input(key="document_context_window").set_value(4)
    next(b for b in at.button if b.label == "Save document context").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert context.context_setting(app_engine, cid) == context.ContextSetting(True, 4)
    assert [c.key for c in queue_admin.setting_changes(app_engine, cid)] == [context.KEY]


def test_switch_refused_without_doc_ids(app_engine: Engine) -> None:
    with session_scope(app_engine) as s:
        s.add(Campaign(name="demo"))
    at = admin_page("views/pages/annotators.py", "demo")
    at.toggle(key="document_context").set_value(True)
    next(b for b in at.button if b.label == "Save document context").click().run()
    assert not at.exception
    assert any("doc" in e.value and "no item of this campaign" in e.value for e in at.error)


def test_cli_document_context(app_engine: Engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import cli

    cid = make_document(app_engine)
    monkeypatch.setenv("DATABASE_URL", str(app_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()
    try:
        on = runner.invoke(cli.app, ["document-context", "--campaign", "demo", "on",
                                     "--window", "5"])  # fmt: skip
        again = runner.invoke(cli.app, ["document-context", "--campaign", "demo", "on",
                                        "--window", "5"])  # fmt: skip
        bad = runner.invoke(cli.app, ["document-context", "--campaign", "demo", "on",
                                      "--window", "0"])  # fmt: skip
        word = runner.invoke(cli.app, ["document-context", "--campaign", "demo", "maybe"])
    finally:
        get_engine.cache_clear()
    assert on.exit_code == 0 and "document context on, window 5" in on.output
    assert again.exit_code == 0 and "already on" in again.output
    assert bad.exit_code != 0 and "window must be" in bad.output and "Traceback" not in bad.output
    assert word.exit_code != 0 and "on or off" in word.output
    assert context.context_setting(app_engine, cid) == context.ContextSetting(True, 5)


def test_a_viewer_cannot_switch_it(app_engine: Engine) -> None:
    from accounts.grants import grant_campaign
    from accounts.registry import create_account
    from tests.app.test_accounts_page import _as

    cid = make_document(app_engine)
    vic, _ = create_account(app_engine, "vic", "viewer", "vic's long password")
    grant_campaign(app_engine, "vic", "demo")
    at = _as(vic, "views/pages/annotators.py")
    save = next(b for b in at.button if b.label == "Save document context")
    assert save.disabled  # the save runs only with allowed(campaign_id) too
    assert context.context_setting(app_engine, cid).on is False
    assert queue_admin.setting_changes(app_engine, cid) == []
