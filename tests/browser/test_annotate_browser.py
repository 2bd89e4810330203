"""End to end in a real browser: open an invite link, label three items with the keyboard,
reload and see them persisted, undo one, and check the database."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from accounts.invites import create_annotator
from annotation.campaign.public_title import DEFAULT as PUBLIC_TITLE
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.judging import log as annotation_log
from db.schema.models import Annotation, Campaign, Item, MetricScore, Output, System
from tests.browser.conftest import PROJECT_ROOT, Server, screenshot_path, seed_edit_campaign

SCREENSHOT = PROJECT_ROOT / "docs" / "screenshots" / "annotate.png"
OUTPUTS = [
    ["Das Haus ist klein, aber gemütlich.", "Das Haus klein ist gemütlich aber."],
    ["<script>alert(1)</script> Ein **fetter** Satz.", "Ein fetter Satz."],
    ["Der Zug fährt um acht Uhr ab.", "Der Zug um acht fährt."],
    ["هذا نص عربي للتجربة", "这是一个中文句子。"],
]
SOURCES = [
    "The house is small but cosy.",
    "A **bold** sentence.",
    "The train leaves at eight.",
    "A mixed-script line.",
]


def _seed(server: Server) -> str:
    engine = server.engine
    with session_scope(engine) as s:
        camp = Campaign(name="WMT demo en-de", source_lang="en", target_lang="de")
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in ("sys-alpha", "sys-beta")]
        s.add_all(systems)
        for j, (src, outs) in enumerate(zip(SOURCES, OUTPUTS, strict=True)):
            item = Item(campaign_id=camp.id, external_id=str(j), source=src, reference=src)
            s.add(item)
            s.flush()
            for sy, text in zip(systems, outs, strict=True):
                out = Output(item_id=item.id, system_id=sy.id, text=text)
                s.add(out)
                s.flush()
                s.add_all(
                    MetricScore(output_id=out.id, metric=m, signature=f"{m}|demo", value=v)
                    for m, v in (
                        ("bleu", 23.4),
                        ("chrf", 51.2),
                        ("ter", 61.0),
                        ("bertscore_f", 0.87),
                    )
                )
        cid = camp.id
    queue_build.build_queue(engine, cid, seed=3)
    return create_annotator(engine, cid, "Ana").token


def _output_text(page) -> str:  # type: ignore[no-untyped-def]
    return page.locator(".tandem-output").first.inner_text()


def _press_and_wait(page, key: str, before: str) -> str:  # type: ignore[no-untyped-def]
    """Press ``key`` and wait until its run has drawn the whole page (the key listener's
    draw number moved and the script is idle) with another output than ``before``."""
    page.wait_for_function("window.__tandemKeysInstalled === true")  # listener ready
    rev = page.evaluate("window.__tandemKeysRev")
    page.keyboard.press(key)
    page.wait_for_function(
        "([before, rev]) => { const el = document.querySelector('.tandem-output');"
        " const app = document.querySelector(\"[data-testid='stApp']\");"
        " return el && el.innerText !== before && window.__tandemKeysRev !== rev"
        " && app && app.dataset.testScriptState === 'notRunning'; }",
        arg=[before, rev],
    )
    return _output_text(page)


def _labels(server: Server) -> list[tuple[str, int | None, int, int | None]]:
    with session_scope(server.engine) as s:
        return [
            tuple(r)
            for r in s.execute(
                select(
                    Annotation.kind,
                    Annotation.label,
                    Annotation.output_id,
                    Annotation.supersedes_id,
                ).order_by(Annotation.id)
            )
        ]


def _text_of(server: Server, output_id: int) -> str:
    with session_scope(server.engine) as s:
        return s.scalar(select(Output.text).where(Output.id == output_id))


@pytest.mark.browser
def test_keyboard_labelling_persists_and_undo(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    token = _seed(server)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{server.url}/?token={token}")
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(".st-key-adequate button")
    # annotators see the public title, never the organiser's campaign name
    assert page.locator("h1").first.inner_text().strip() == PUBLIC_TITLE
    assert "WMT demo en-de" not in page.content()
    assert "sys-alpha" not in page.content() and "sys-beta" not in page.content()

    # Label three items with the keyboard: a (adequate), i (inadequate), j (adequate).
    shown = [_output_text(page)]
    for key in ("a", "i", "j"):
        shown.append(_press_and_wait(page, key, shown[-1]))
    log = _labels(server)
    assert [(k, lab) for k, lab, _, _ in log] == [("label", 1), ("label", 0), ("label", 1)]
    assert [_text_of(server, oid) for _, _, oid, _ in log] == shown[:3]

    # Literal text: markdown and a <script> in outputs show as characters, never run.
    assert page.locator(".tandem-output strong, .tandem-source strong").count() == 0
    assert page.locator(".tandem-output script").count() == 0

    # Reload: a new browser session; the labels are in the database and counted.
    page.reload()
    page.locator(".tandem-output").first.wait_for()
    page.wait_for_selector(".st-key-undo button")
    assert "You: 3 judged" in page.locator("[data-testid='stProgress']").first.inner_text()
    assert _output_text(page) == shown[3]  # the item held before the reload comes back

    page.screenshot(path=str(screenshot_path(SCREENSHOT)), full_page=True)

    # Undo with the keyboard: the last labelled item comes back; the log gets an undo row.
    back = _press_and_wait(page, "u", shown[3])
    assert back == shown[2]
    log = _labels(server)
    assert [(k, lab) for k, lab, _, _ in log][-1] == ("undo", None)
    label_ids = _label_ids(server)
    assert log[-1][3] == label_ids[2] and log[-1][2] == log[2][2]
    with session_scope(server.engine) as s:
        judged = annotation_log.current_judgments(s, _campaign_id(server))
    assert [(j.label, _text_of(server, j.output_id)) for j in judged] == [
        (1, shown[0]),
        (0, shown[1]),
    ]
    assert all(j.position is not None and j.inclusion_prob == 1.0 for j in judged)
    assert all(j.seconds is not None and j.seconds > 0 for j in judged)
    assert dialogs == []  # no alert(1) ever ran


@pytest.mark.browser
def test_annotator_link_never_reaches_admin_pages(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    """Typing an admin page's URL with an invite token shows no admin content: app.py routes
    an invite session to the annotate page only, whatever the path."""
    token = _seed(server)
    for path in ("campaigns", "import_campaign", "annotators", "dashboard", "calibration"):
        page.goto(f"{server.url}/{path}?token={token}")
        page.locator(".tandem-output").first.wait_for()
        assert page.locator("h1").first.inner_text().strip() == PUBLIC_TITLE
        body = page.locator("body").inner_text()
        for secret in ("sys-alpha", "Invite an annotator", "Download", "administrators"):
            assert secret not in body, (path, secret)
        assert page.locator("[data-testid='stDataFrame']").count() == 0, path


def _label_ids(server: Server) -> list[int]:
    with session_scope(server.engine) as s:
        return list(
            s.scalars(
                select(Annotation.id).where(Annotation.kind == "label").order_by(Annotation.id)
            )
        )


def _campaign_id(server: Server) -> int:
    with session_scope(server.engine) as s:
        return s.scalar(select(Campaign.id))


def _seed_post_edit(server: Server, mode: str) -> str:
    return seed_edit_campaign(
        server.engine,
        mode,
        name=f"post-edit {mode}",
        system="sys-gamma",
        annotator=f"editor-{mode}",
        n_items=3,
    )


def _annotations(server: Server) -> list[tuple]:
    with session_scope(server.engine) as s:
        return s.execute(
            select(Annotation.kind, Annotation.label, Annotation.post_edit, Annotation.hter)
        ).all()


@pytest.mark.browser
def test_post_edit_focus_and_no_shortcuts_while_typing(server: Server, page) -> None:  # type: ignore[no-untyped-def]
    # "both": the box has the focus; typing shortcut letters edits text and labels nothing.
    page.goto(f"{server.url}/?token={_seed_post_edit(server, 'both')}")
    box = page.locator("textarea").first
    box.wait_for()
    page.wait_for_function(
        "document.activeElement && document.activeElement.tagName === 'TEXTAREA'"
    )
    original = box.input_value()
    page.keyboard.type(" ja ik su")
    page.wait_for_timeout(500)
    assert _annotations(server) == [] and box.input_value() == original + " ja ik su"
    # Esc leaves the box; then "i" labels inadequate together with the post-edit.
    page.keyboard.press("Escape")
    before = _output_text(page)
    _press_and_wait(page, "i", before)
    ((kind, label, post_edit, hter),) = _annotations(server)
    assert (kind, label, post_edit) == ("label", 0, original + " ja ik su") and hter > 0

    # "post_edit": Ctrl+Enter in the box saves; the word diff of the save is offered.
    page.goto(f"{server.url}/?token={_seed_post_edit(server, 'post_edit')}")
    box = page.locator("textarea").first
    box.wait_for()
    page.wait_for_function(
        "document.activeElement && document.activeElement.tagName === 'TEXTAREA'"
    )
    before = _output_text(page)
    box.fill(before.replace("fast gut", "sehr gut"))
    page.keyboard.press("Control+Enter")
    page.wait_for_function(
        "(b) => { const el = document.querySelector('.tandem-output');"
        " return el && el.innerText !== b; }",
        arg=before,
    )
    rows = _annotations(server)
    assert rows[-1][:3] == ("label", None, before.replace("fast gut", "sehr gut"))
    assert rows[-1][3] > 0 and len(rows) == 2  # exactly one save, no double submit
    assert page.get_by_text("Your last post-edit (word diff)").count() == 1
