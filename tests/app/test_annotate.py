"""The annotate page and the Annotators admin page, driven by Streamlit's AppTest on a
real migrated SQLite database: label, skip, undo, post-edit, blind mode, attention checks,
literal text, and an annotator who cannot reach admin pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, delete, select
from streamlit.testing.v1 import AppTest

from accounts.invites import create_annotator, revoke_annotator
from annotation.campaign.public_title import DEFAULT
from annotation.judging import save as judging
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.judging import log
from db.schema.models import Annotation, Annotator, Campaign, Item, MetricScore, Output, System
from tests.app.conftest import APP

TRICKY = [
    "<script>alert(1)</script> und **bold** [link](http://x.test)",
    "مرحبا بالعالم هذا نص عربي طويل بما يكفي",
    "这是一个中文句子，用于测试显示是否正确。",
    "שלום עולם זה טקסט בעברית",
]


def make_campaign(engine: Engine, texts: list[list[str]], **settings) -> int:
    """One item per row of ``texts``, one system per column; the queue built (seed 1)."""
    with session_scope(engine) as s:
        camp = Campaign(name="demo", **settings)
        s.add(camp)
        s.flush()
        systems = [
            System(campaign_id=camp.id, name=f"secret-system-{k}") for k in range(len(texts[0]))
        ]
        s.add_all(systems)
        for j, row in enumerate(texts):
            item = Item(
                campaign_id=camp.id,
                external_id=f"i{j}",
                source=f"Quelle Nummer {j} mit Text",
                reference=f"reference number {j}",
            )
            s.add(item)
            s.flush()
            s.add_all(
                Output(item_id=item.id, system_id=sy.id, text=t)
                for sy, t in zip(systems, row, strict=True)
            )
        cid = camp.id
    queue_build.build_queue(engine, cid, seed=1)
    return cid


def annotator_app(engine: Engine, cid: int, name: str = "ann") -> tuple[AppTest, int]:
    invite = create_annotator(engine, cid, name)
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["token"] = invite.token
    return at.run(), invite.annotator_id


def shown_output(at: AppTest) -> str:
    return next(h.value for h in at.html if "tandem-output" in h.value)


def rows(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(
            select(
                Annotation.kind,
                Annotation.label,
                Annotation.output_id,
                Annotation.supersedes_id,
                Annotation.skip_reason,
                Annotation.seconds,
            ).order_by(Annotation.id)
        ).all()


def texts_of(engine: Engine) -> dict[int, str]:
    with session_scope(engine) as s:
        return dict(s.execute(select(Output.id, Output.text)).all())


PLAIN = [[f"output {j} of system {k} is here" for k in range(2)] for j in range(3)]


def test_label_shows_next_item_and_records_time(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)
    at, _ = annotator_app(app_engine, cid)
    assert not at.exception, at.exception
    assert at.title[0].value == DEFAULT  # the public title, not the campaign name
    first = shown_output(at)
    assert "secret-system" not in str([h.value for h in at.html])  # system names hidden
    assert "0 of 6 done" in at.get("progress")[0].proto.text
    at.button(key="adequate").click().run()
    assert not at.exception
    assert shown_output(at) != first
    assert "1 of 6 done" in at.get("progress")[0].proto.text
    ((kind, label, oid, _, _, seconds),) = rows(app_engine)
    assert (kind, label) == ("label", 1) and seconds is not None and seconds >= 0
    assert texts_of(app_engine)[oid] in first
    at.button(key="inadequate").click().run()
    assert [r[:2] for r in rows(app_engine)] == [("label", 1), ("label", 0)]


def test_skip_with_reason(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)
    at, _ = annotator_app(app_engine, cid)
    at.selectbox(key="skip_reason").select(judging.SKIP_REASONS[2]).run()
    at.button(key="skip").click().run()
    ((kind, label, _, _, reason, _),) = rows(app_engine)
    assert (kind, label, reason) == ("skip", None, judging.SKIP_REASONS[2])
    assert "You: 0 judged, 1 skipped" in at.get("progress")[0].proto.text


def test_undo_appends_and_brings_the_item_back(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)
    at, _ = annotator_app(app_engine, cid)
    first = shown_output(at)
    at.button(key="adequate").click().run()
    at.button(key="undo").click().run()
    assert shown_output(at) == first
    at.button(key="inadequate").click().run()
    log = rows(app_engine)
    assert [r[:2] for r in log] == [("label", 1), ("undo", None), ("label", 0)]
    assert log[1][3] is not None and log[0][2] == log[2][2]  # same output, nothing overwritten


def test_post_edit_stores_hter_and_shows_word_diff(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN, mode="post_edit")
    at, _ = annotator_app(app_engine, cid)
    assert "adequate" not in [b.key for b in at.button]
    area = at.text_area[0]
    original = area.value
    assert original and original in shown_output(at)
    edited = original.replace("here", "there now")
    area.input(edited)
    at.button(key="save_post_edit").click().run()
    assert not at.exception, at.exception
    with session_scope(app_engine) as s:
        ann = s.scalar(select(Annotation))
    assert ann.post_edit == edited and ann.label is None
    assert ann.hter is not None and 0 < ann.hter < 1
    diff = next(h.value for h in at.html if "tandem-diff" in h.value)
    assert "<del" in diff and "here</del>" in diff and "there now</ins>" in diff
    assert at.text_area[0].value != edited  # the next item's own text, prefilled


def test_both_mode_labels_with_the_post_edit(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN, mode="both")
    at, _ = annotator_app(app_engine, cid)
    at.text_area[0].input("a whole new text")
    at.button(key="inadequate").click().run()
    with session_scope(app_engine) as s:
        ann = s.scalar(select(Annotation))
    assert (ann.label, ann.post_edit) == (0, "a whole new text") and ann.hter > 0


def test_metric_scores_shown_then_blind_mode_hides_them(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)
    at, _ = annotator_app(app_engine, cid, "seeing")
    assert "not scored yet" in [c.value for c in at.caption]
    assert any("reference number" in h.value for h in at.html)
    with session_scope(app_engine) as s:
        s.add_all(
            MetricScore(output_id=oid, metric=m, signature=f"{m}|v", value=v)
            for oid in s.scalars(select(Output.id))
            for m, v in (("bleu", 41.27), ("chrf", 60.0), ("ter", 35.5), ("bertscore_f", 0.9123))
        )
    at.button(key="adequate").click().run()
    table = at.text[0].value
    assert "BLEU: 41.3" in table and "BERTScore-F: 0.912" in table and "TER: 35.5" in table

    with session_scope(app_engine) as s:  # a campaign never scored with BERTScore
        s.execute(delete(MetricScore).where(MetricScore.metric == "bertscore_f"))
    at.button(key="adequate").click().run()
    table = at.text[0].value
    assert "BLEU: 41.3" in table and "chrF: 60.0" in table and "BERTScore" not in table

    queue_admin.update_queue_settings(app_engine, cid, show_metrics=False, show_reference=False)
    blind, _ = annotator_app(app_engine, cid, "blind")
    assert not blind.exception
    assert "Metric scores" not in [m.value for m in blind.markdown]
    assert not blind.text and "not scored yet" not in [c.value for c in blind.caption]
    assert not any("reference number" in h.value for h in blind.html)


def test_text_is_literal_rtl_and_cjk(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, [[t] for t in TRICKY])
    at, _ = annotator_app(app_engine, cid)
    seen = []
    for _ in TRICKY:
        html = shown_output(at)
        assert 'dir="auto"' in html and "<script>" not in html and "<strong>" not in html
        seen.append(html)
        at.button(key="adequate").click().run()
    joined = "\n".join(seen)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; und **bold** [link](http://x.test)" in joined
    for t in TRICKY[1:]:
        assert t in joined  # RTL and CJK text verbatim, laid out by dir="auto"


def test_attention_checks_are_answered_apart_and_pass_rate_shown(app_engine: Engine) -> None:
    words = "the quick brown fox jumps over the lazy dog today"
    cid = make_campaign(
        app_engine, [[f"{words} {j} {k}" for k in range(2)] for j in range(6)], attention_rate=0.25
    )
    at, _ = annotator_app(app_engine, cid)
    originals = set(texts_of(app_engine).values())
    degraded_seen = 0
    for _ in range(16):
        if at.success:  # "Nothing left for you"
            break
        shown = shown_output(at)
        is_check = not any(f">{o}<" in shown for o in originals)
        degraded_seen += is_check
        at.button(key="inadequate" if is_check else "adequate").click().run()
    assert degraded_seen == 4  # 25 % of 16 positions
    with session_scope(app_engine) as s:
        kinds = [k for (k,) in s.execute(select(Annotation.kind))]
        judged = log.current_judgments(s, cid)
    assert kinds.count("attention") == 4 and kinds.count("label") == 12 == len(judged)
    admin = AppTest.from_file(APP, default_timeout=30)
    admin.session_state["role"] = "admin"
    admin.switch_page("views/pages/annotators.py").run()
    assert not admin.exception, admin.exception
    frame = admin.dataframe[0].value
    row = frame[frame["annotator"] == "ann"].iloc[0]
    assert row["attention checks"] == 4 and row["attention pass rate"] == 1.0
    assert row["labels"] == 12


def test_annotator_cannot_reach_admin_pages(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN)
    at, aid = annotator_app(app_engine, cid)
    token = at.query_params["token"]
    # Only the annotate page is registered for an annotator session: AppTest (like the
    # server for a URL) has no route to any admin page.
    for page in ("views/pages/campaigns.py", "views/pages/import_campaign.py",
                 "views/pages/annotators.py", "views/pages/dashboard.py"):  # fmt: skip
        # (annotate.py is registered under every admin URL too, so deep links open it)
        only_annotate = r"Known pages: \['[^']*views/annotate\.py'(, '[^']*views/annotate\.py')*\]"
        with pytest.raises(ValueError, match=only_annotate):
            at.switch_page(page)
    assert at.title[0].value == DEFAULT and at.session_state["role"] == "annotator"
    # An admin page run directly refuses an annotator session…
    page = AppTest.from_file(str(Path(APP).parent / "views" / "campaigns.py"), default_timeout=30)
    page.session_state["role"] = "annotator"
    page.run()
    assert page.error, f"no refusal shown; the run raised {[e.value for e in page.exception]}"
    assert "administrators" in page.error[0].value and not page.dataframe
    # …and a revoked link stops working: at the next click, and for any new visit.
    revoke_annotator(app_engine, aid)
    at.button(key="adequate").click().run()
    assert "not valid" in at.error[0].value and not at.button
    assert "role" not in at.session_state
    again = AppTest.from_file(APP, default_timeout=30)
    again.query_params["token"] = token
    again.run()
    assert "not valid" in again.error[0].value and not again.button
    bad = AppTest.from_file(APP, default_timeout=30)
    bad.query_params["token"] = "forged-token"
    bad.run()
    assert "not valid" in bad.error[0].value and "role" not in bad.session_state


def test_admin_creates_invite_builds_queue_and_revokes(app_engine: Engine) -> None:
    with session_scope(app_engine) as s:
        camp = Campaign(name="fresh")
        s.add(camp)
        s.flush()
        sy = System(campaign_id=camp.id, name="A")
        it = Item(campaign_id=camp.id, external_id="1", source="s")
        s.add_all([sy, it])
        s.flush()
        s.add(Output(item_id=it.id, system_id=sy.id, text="t"))
    at = AppTest.from_file(APP, default_timeout=30)
    at.session_state["role"] = "admin"
    at.switch_page("views/pages/annotators.py").run()
    assert not at.exception, at.exception
    at.button(key="build_queue").click().run()
    assert "Queued 1 outputs of 1 items" in at.success[0].value
    next(t for t in at.text_input if t.label == "Name").input("Maya")
    next(b for b in at.button if b.label == "Create invite link").click().run()
    link = at.code[0].value
    assert "?token=" in link
    token = link.split("?token=")[1]
    with session_scope(app_engine) as s:
        stored = s.scalar(select(Annotator.token_hash).where(Annotator.name == "Maya"))
    assert stored is not None and token not in stored and len(stored) == 64
    at.run()
    assert not at.code  # shown once
    next(b for b in at.button if b.label == "Revoke").click().run()
    frame = at.dataframe[0].value
    assert list(frame["status"]) == ["revoked"]


def _judgments(engine: Engine) -> list[tuple]:
    with session_scope(engine) as s:
        return s.execute(
            select(Annotation.label, Annotation.post_edit, Annotation.hter).order_by(Annotation.id)
        ).all()


def test_both_mode_untouched_box_stores_the_label_only_unless_confirmed(
    app_engine: Engine,
) -> None:
    """Issue 17: an a/i click with the box untouched is no perfect post-edit."""
    cid = make_campaign(app_engine, PLAIN, mode="both")
    at, _ = annotator_app(app_engine, cid)
    at.button(key="adequate").click().run()
    assert not at.exception, at.exception
    assert _judgments(app_engine) == [(1, None, None)]
    assert not any("tandem-diff" in h.value for h in at.html)  # no "last post-edit" diff

    second = at.text_area[0].value
    assert at.checkbox[0].value is False  # a fresh item: the confirmation starts unticked
    at.checkbox[0].check()
    at.button(key="inadequate").click().run()
    assert _judgments(app_engine)[1] == (0, second, 0.0)

    at.checkbox[0].check()  # ticked, yet the text changed: refused, nothing saved
    at.text_area[0].input("a corrected text")
    held = shown_output(at)
    at.button(key="adequate").click().run()
    assert not at.exception, at.exception
    assert len(_judgments(app_engine)) == 2 and shown_output(at) == held
    assert any("No edit needed" in w.value for w in at.warning)


def test_both_mode_done_editing_records_nothing(app_engine: Engine) -> None:
    """Ctrl+Enter's button in a "both" campaign: no label chosen, so nothing is recorded."""
    cid = make_campaign(app_engine, PLAIN, mode="both")
    at, _ = annotator_app(app_engine, cid)
    held = shown_output(at)
    at.text_area[0].input("an edited text")
    at.button(key="done_editing").click().run()
    assert not at.exception, at.exception
    assert _judgments(app_engine) == [] and shown_output(at) == held
    assert any("choose Adequate or Inadequate" in w.value for w in at.warning)
    assert at.text_area[0].value == "an edited text"  # the edit is kept
    at.button(key="inadequate").click().run()
    ((label, post_edit, hter),) = _judgments(app_engine)
    assert (label, post_edit) == (0, "an edited text") and hter > 0


def test_post_edit_mode_untouched_save_needs_the_confirmation(app_engine: Engine) -> None:
    cid = make_campaign(app_engine, PLAIN, mode="post_edit")
    at, _ = annotator_app(app_engine, cid)
    held = shown_output(at)
    original = at.text_area[0].value
    at.button(key="save_post_edit").click().run()
    assert not at.exception, at.exception
    assert _judgments(app_engine) == [] and shown_output(at) == held
    assert any("unchanged" in w.value for w in at.warning)
    at.checkbox[0].check()
    at.button(key="save_post_edit").click().run()
    assert _judgments(app_engine) == [(None, original, 0.0)] and shown_output(at) != held
    assert not any("unchanged" in w.value for w in at.warning)


def test_busy_database_on_skip_and_undo_says_so_without_a_traceback(
    app_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A skip or undo whose transaction stays deadlocked past its retries (session.Busy)
    shows the plain message on the item and saves nothing; before, only the label action
    caught it and a skip or undo ended in a traceback."""
    from annotation.judging import session, undo

    cid = make_campaign(app_engine, PLAIN)
    at, _ = annotator_app(app_engine, cid)
    first = shown_output(at)

    def busy(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise session.Busy(session.BUSY)

    monkeypatch.setattr(judging, "skip", busy)
    monkeypatch.setattr(undo, "undo", busy)
    at.button(key="skip").click().run()
    assert not at.exception
    assert any(session.BUSY in w.value for w in at.warning)
    assert shown_output(at) == first and rows(app_engine) == []
    at.button(key="undo").click().run()
    assert not at.exception
    assert any(session.BUSY in w.value for w in at.warning)
