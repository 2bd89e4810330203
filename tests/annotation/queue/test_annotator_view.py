"""What the annotator's view tells them (issue 17, item 8), on SQLite and PostgreSQL: their
own batch (what is left for them), what an undo took back, an output's place among its
source's outputs in the paired design, and the administrators' guidelines."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.campaign import guidelines as campaign_guidelines
from annotation.judging import save as judging
from annotation.judging import session, undo
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.engine import session_scope
from db.judging import log
from db.queue import claim as dbq
from db.queue import slot_counts as dbcount
from db.schema.models import Assignment, AttentionCheck, Campaign, Output
from tests.annotation.queue.test_queue import make_campaign


def _claimable_by(engine: Engine, cid: int, annotator_id: int) -> int:
    """Brute force over every slot: held by the annotator, or open (pending) and not of an
    output they had a regular slot of."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(
                Assignment.state, Assignment.annotator_id, Assignment.kind, Assignment.output_id
            ).where(Assignment.campaign_id == cid)
        ).all()
    had = {o for _, a, k, o in rows if a == annotator_id and k == "regular"}
    return sum(
        (state == "claimed" and a == annotator_id)
        or (state in ("open", "pending") and (kind == "attention" or o not in had))
        for state, a, kind, o in rows
    )


def test_left_for_you_is_what_the_annotator_will_still_get(engine: Engine) -> None:
    cid = make_campaign(engine, 6, 3, attention_rate=0.1)
    queue_build.build_queue(engine, cid, seed=4)
    a = create_annotator(engine, cid, "a").annotator_id
    b = create_annotator(engine, cid, "b").annotator_id
    v = session.next_view(engine, a)
    assert v.progress.mine_left == _claimable_by(engine, cid, a) == v.progress.queue_total
    assert not v.progress.mine_left_at_most
    assert v.progress.mine_left_text == f"{v.progress.mine_left} left for you"
    # b works too: a's count follows (b's held slots are not a's to take)
    vb = session.next_view(engine, b)
    vb = judging.submit(engine, b, vb.slot.assignment_id, vb.slot.claim_version, label=1)
    v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1)
    v = judging.skip(engine, a, v.slot.assignment_id, v.slot.claim_version, "Other")
    assert v.progress.mine_left == _claimable_by(engine, cid, a) < v.progress.queue_open + 3
    assert (v.progress.mine_judged, v.progress.mine_skipped, v.progress.mine_done) == (1, 1, 2)
    v = undo.undo(engine, a)
    assert v.progress.mine_left == _claimable_by(engine, cid, a)
    # with b idle from here, "left for you" is exactly how many items a still gets
    promised, seen = v.progress.mine_left, 0
    while v.slot is not None:
        seen += 1
        v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=0)
        assert v.progress.mine_left == promised - seen
    assert seen == promised > 0
    assert v.progress.mine_left == 0 and v.progress.mine_left_text == "0 left for you"
    assert v.progress.mine_fraction == 1.0


def test_with_overlap_left_for_you_is_an_upper_bound(engine: Engine) -> None:
    cid = make_campaign(engine, 6, 3, overlap=0.5)
    queue_build.build_queue(engine, cid, seed=4)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    assert v.progress.mine_left == _claimable_by(engine, cid, a)
    assert v.progress.mine_left < v.progress.queue_total  # the overlap slots of its outputs
    assert v.progress.mine_left_at_most and v.progress.mine_left_text.startswith("up to ")
    promised, seen = v.progress.mine_left, 0
    while v.slot is not None:
        seen += 1
        v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=0)
        assert v.progress.mine_left <= promised - seen
    assert 0 < seen < promised  # one of each overlapped output's two slots


def test_active_sampling_says_at_most(engine: Engine) -> None:
    cid = make_campaign(engine, 30, 2)
    queue_admin.update_queue_settings(engine, cid, sampling="active")
    queue_build.build_queue(engine, cid, seed=2)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    assert v.progress.mine_left_at_most and v.progress.mine_left_text.startswith("up to ")


def test_paired_group_gives_the_position_and_every_output_in_queue_order(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 4)
    queue_build.build_queue(engine, cid, seed=9)
    a = create_annotator(engine, cid, "a").annotator_id
    with session_scope(engine) as s:
        order = s.execute(
            select(Assignment.item_id, Output.text)
            .join(Output, Output.id == Assignment.output_id)
            .where(Assignment.campaign_id == cid)
            .order_by(Assignment.position)
        ).all()
    v = session.next_view(engine, a)
    seen = []
    while v.slot is not None:
        g = v.slot.group
        assert g is not None and g.size == 4
        assert g.outputs[g.position - 1] == v.slot.text
        seen.append((g.position, g.outputs))
        v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1)
    assert [p for p, _ in seen] == [1, 2, 3, 4] * 3
    items = dict.fromkeys(i for i, _ in order)
    groups = [tuple(t for i, t in order if i == item) for item in items]
    assert [o for _, o in seen[::4]] == groups  # the queue's (shuffled, anonymous) order
    assert len({o for _, o in seen}) == 3


def test_unpaired_campaign_has_no_group(engine: Engine) -> None:
    cid = make_campaign(engine, 3, 2, paired=False)
    queue_build.build_queue(engine, cid, seed=1)
    v = session.next_view(engine, create_annotator(engine, cid, "a").annotator_id)
    assert v.slot.group is None


def test_attention_check_looks_like_any_output_of_its_source(engine: Engine) -> None:
    cid = make_campaign(engine, 8, 3, attention_rate=0.3)
    queue_build.build_queue(engine, cid, seed=5)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    checks = 0
    while v.slot is not None:
        g = v.slot.group
        assert g is not None and g.size == 3 and g.outputs[g.position - 1] == v.slot.text
        if v.slot.kind == "attention":
            checks += 1
            with session_scope(engine) as s:
                check = s.execute(
                    select(AttentionCheck.degraded_text, Output.item_id, Output.id)
                    .join(Output, Output.id == AttentionCheck.output_id)
                    .join(Assignment, Assignment.attention_check_id == AttentionCheck.id)
                    .where(Assignment.id == v.slot.assignment_id)
                ).one()
                siblings = dict(
                    s.execute(
                        select(Output.id, Output.text).where(Output.item_id == check[1])
                    ).all()
                )
            assert v.slot.text == check[0]
            assert set(g.outputs) == {*siblings.values()} - {siblings[check[2]]} | {check[0]}
        v = judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=0)
    assert checks > 0


def test_undo_says_what_it_took_back(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 3)
    queue_build.build_queue(engine, cid, seed=3)
    a = create_annotator(engine, cid, "a").annotator_id
    v1 = session.next_view(engine, a)
    v2 = judging.submit(engine, a, v1.slot.assignment_id, v1.slot.claim_version, label=1)
    v3 = judging.submit(engine, a, v2.slot.assignment_id, v2.slot.claim_version, label=0)
    assert v3.undone is None
    back = undo.undo(engine, a)
    u = back.undone
    assert back.notice is None and back.slot.output_id == v2.slot.output_id
    assert (u.what, u.ordinal, u.group_position, u.group_size, u.back) == (
        "your Inadequate label",
        2,
        2,
        3,
        True,
    )
    assert u.excerpt == v2.slot.text  # short enough to quote whole
    assert u.message == (
        "Undone: your Inadequate label on your item 2 (output 2 of 3 for its source): "
        f"“{v2.slot.text}”. The item is shown again: judge it anew."
    )
    again = undo.undo(engine, a).undone
    assert (again.what, again.ordinal, again.group_position) == ("your Adequate label", 1, 1)
    v = session.next_view(engine, a)
    v = judging.skip(engine, a, v.slot.assignment_id, v.slot.claim_version, "Other")
    assert v.undone is None  # the next action clears it
    assert undo.undo(engine, a).undone.what == "your skip (“Other”)"
    nothing = create_annotator(engine, cid, "b").annotator_id
    empty = undo.undo(engine, nothing)
    assert empty.undone is None and empty.notice == "Nothing to undo."


@pytest.mark.parametrize(
    ("mode", "kwargs", "what"),
    [
        ("post_edit", {"post_edit": "a new text"}, "your post-edit"),
        ("both", {"label": 1, "post_edit": "a new text"}, "your Adequate label and post-edit"),
        ("both", {"label": 0}, "your Inadequate label"),
        ("spans", {"spans": []}, "your error-span judgment (no errors marked)"),
    ],
)
def test_undo_names_each_kind_of_judgment(engine: Engine, mode: str, kwargs, what: str) -> None:
    cid = make_campaign(engine, 1, 1, mode=mode, paired=False)
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, **kwargs)
    u = undo.undo(engine, a).undone
    assert u.what == what and u.group_position is None
    assert u.message.startswith(f"Undone: {what} on your item 1: “output of system 0")


def test_long_outputs_are_quoted_short(engine: Engine) -> None:
    cid = make_campaign(engine, 1, 1)
    with session_scope(engine) as s:
        s.execute(Output.__table__.update().values(text="word " * 40 + "\n end"))
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1)
    u = undo.undo(engine, a).undone
    assert len(u.excerpt) <= undo.EXCERPT_CHARS and u.excerpt.endswith("…")
    assert "\n" not in u.excerpt and u.group_position is None  # one system: no "1 of 1"


def test_undo_message_puts_one_full_stop_after_a_quoted_sentence() -> None:
    quoted = session.Undone("your Adequate label", 3, "Das Haus ist klein.", 1, 2)
    assert quoted.message == (
        "Undone: your Adequate label on your item 3 (output 1 of 2 for its source): "
        "“Das Haus ist klein.” The item is shown again: judge it anew."
    )
    free = session.Undone("your skip", 1, None, back=False)
    assert free.message == "Undone: your skip on your item 1."


def test_last_current_judgment_reads_the_whole_row(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 1, mode="both")
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=0, post_edit="x")
    with session_scope(engine) as s:
        last = log.last_current_judgment(s, a)
    assert (last.kind, last.label, last.post_edit, last.skip_reason, last.spans) == (
        "label",
        0,
        "x",
        None,
        None,
    )
    assert (last.output_id, last.assignment_id) == (v.slot.output_id, v.slot.assignment_id)


def test_guidelines_are_stored_with_the_campaign(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 2)
    queue_build.build_queue(engine, cid, seed=1)
    assert campaign_guidelines.guidelines(engine, cid).empty
    stored = campaign_guidelines.set_guidelines(
        engine, cid, "  Judge **meaning**.\n", "Example: x → 1"
    )
    assert (stored.text, stored.examples, stored.labels_before) == (
        "Judge **meaning**.",
        "Example: x → 1",
        0,
    )
    read = campaign_guidelines.guidelines(engine, cid)
    assert read == stored and not read.empty and read.updated_at
    with session_scope(engine) as s:
        meta = s.get(Campaign, cid).meta
    assert meta["queue_builds"] == 1 and meta["guidelines"]["text"] == "Judge **meaning**."
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1)
    assert campaign_guidelines.set_guidelines(engine, cid, "Changed.").labels_before == 1
    with pytest.raises(ValueError, match="at most"):
        too_long = "x" * (campaign_guidelines.MAX_GUIDELINES_CHARS + 1)
        campaign_guidelines.set_guidelines(engine, cid, too_long)
    assert campaign_guidelines.guidelines(engine, cid).text == "Changed."
    assert campaign_guidelines.set_guidelines(engine, cid, " ", "").empty
    queue_build.build_queue(engine, cid)  # a later build keeps them (meta is rewritten whole)
    with session_scope(engine) as s:
        assert "guidelines" in s.get(Campaign, cid).meta


def test_annotator_slots_counts_held_and_excluded(engine: Engine) -> None:
    cid = make_campaign(engine, 2, 2, overlap=1.0)
    queue_build.build_queue(engine, cid, seed=1)
    a = create_annotator(engine, cid, "a").annotator_id
    session.next_view(engine, a)  # holds one item's 2 outputs (slot 0)
    with session_scope(engine) as s:
        mine = dbcount.annotator_slots(s, cid, a)
        open_ = dbcount.queue_counts(s, cid)[dbq.OPEN]
    assert (mine.held, mine.open_not_theirs, open_, mine.pending) == (2, 2, 6, False)


def test_guideline_changes_go_to_the_setting_log(engine: Engine) -> None:
    """Every change of the guidelines or examples is logged like any setting, with the
    number of labels that existed (an unchanged save logs nothing)."""
    cid = make_campaign(engine, 2, 2)
    queue_build.build_queue(engine, cid, seed=1)
    campaign_guidelines.set_guidelines(engine, cid, "Judge meaning.", "Example A")
    campaign_guidelines.set_guidelines(engine, cid, "Judge meaning.", "Example A")  # unchanged
    a = create_annotator(engine, cid, "a").annotator_id
    v = session.next_view(engine, a)
    judging.submit(engine, a, v.slot.assignment_id, v.slot.claim_version, label=1)
    campaign_guidelines.set_guidelines(engine, cid, "Judge meaning and fluency.", "Example A")
    campaign_guidelines.set_guidelines(engine, cid, "", "")
    log = [
        (c.key, c.old_value, c.new_value, c.labels_before)
        for c in queue_admin.setting_changes(engine, cid)
        if c.key in ("guidelines", "guideline_examples")
    ]
    assert log == [
        ("guidelines", None, "Judge meaning.", 0),
        ("guideline_examples", None, "Example A", 0),
        ("guidelines", "Judge meaning.", "Judge meaning and fluency.", 1),
        ("guidelines", "Judge meaning and fluency.", None, 1),
        ("guideline_examples", "Example A", None, 1),
    ]
