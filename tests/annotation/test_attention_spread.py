"""Attention checks spread evenly (issue 31): every task holds its share of checks (within
one of the campaign's rate), none holds only checks, none holds no check while checks are
on — with documents judged in order and with comparative screens, on the shipped WMT21 TED
file (5 talks, 13 systems × 529 segments), where checks used to pile up between the few
documents (6 of 83 tasks held only checks, the other 77 none)."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
from sqlalchemy import Engine, func, select

from accounts.invites import create_annotator
from annotation.campaign import document_order
from annotation.imports.importer import import_campaign
from annotation.judging import comparative
from annotation.judging.session import next_view
from annotation.queue import build as queue_build
from annotation.tasks import batches as tasks
from annotation.tasks.respread import respread_checks
from db.engine import session_scope
from db.queue.settings import setting_changes
from db.queue.tasks import CutSlot
from db.schema.models import Assignment, Task
from tests.annotation.test_queue import make_campaign
from tests.conftest import shared_file

WMT_MAPPING = {"doc_id": "doc", "human_label": "human_label_binary", "annotator": "rater"}


def _wmt(engine: Engine, rate: float) -> int:
    path = shared_file("wmt21-ted-mqm/wmt21_ted_ende.csv")
    settings = {"attention_rate": rate, "overlap": 0.1}
    # the file's MQM labels left out: every output is to be judged
    ignore = ("human_score", "human_label_binary", "rater", "post_edit")
    report = import_campaign(
        engine, path, "ted", column_map={"doc_id": "doc"}, ignore=ignore, settings=settings
    )
    return report.campaign_id


def _tasks(engine: Engine, cid: int, per_screen: int | None) -> list[tuple[int, int]]:
    """(regular screens, attention checks) of each task in order. A screen is one output,
    or with ``per_screen`` (comparative) one item's outputs of one overlap slot, K at a time."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(Assignment.task_id, Assignment.kind, Assignment.item_id, Assignment.slot)
            .where(Assignment.campaign_id == cid)
            .order_by(Assignment.position)
        ).all()
    regular: dict[int, dict[tuple[int, int], int]] = defaultdict(lambda: defaultdict(int))
    checks: dict[int, int] = defaultdict(int)
    for task, kind, item, slot in rows:
        assert task is not None, "every slot is in a task after the cut"
        if kind == "attention":
            checks[task] += 1
        else:
            regular[task][(item, slot)] += 1
    out = []
    for task in sorted(set(regular) | set(checks)):
        groups = regular[task].values()
        screens = sum(math.ceil(n / per_screen) for n in groups) if per_screen else sum(groups)
        out.append((screens, checks[task]))
    return out


def _assert_shares(per_task: list[tuple[int, int]], rate: float) -> None:
    assert len(per_task) > 5
    for k, (screens, checks) in enumerate(per_task):
        share = rate * (screens + checks)
        assert screens > 0, f"task {k + 1} holds only checks ({checks})"
        assert checks >= 1, f"task {k + 1} holds no check ({screens} screens)"
        assert abs(checks - share) <= 1, f"task {k + 1}: {checks} checks, share {share:.1f}"


@pytest.mark.parametrize("rate", [0.05])  # the default (0.1: the comparative test below)
def test_wmt_documents_in_order_tasks_of_100_hold_their_share(
    sqlite_engine: Engine, rate: float
) -> None:
    """(SQLite only: the placement is pure, the slots are written as on PostgreSQL by the
    engine-parametrised tests below; the 6,877-row import twice more would cost 30 s.)"""
    engine = sqlite_engine
    cid = _wmt(engine, rate)
    document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=7)
    tasks.cut(engine, cid, 100)
    _assert_shares(_tasks(engine, cid, None), rate)


def test_wmt_comparative_screens_hold_their_share(sqlite_engine: Engine) -> None:
    """Comparative: the rate is a share of screens (one check is one screen, one item's 13
    outputs another), and a task of 100 holds 100 screens as the task size counts them."""
    engine = sqlite_engine
    cid = _wmt(engine, 0.1)
    comparative.set_comparative(engine, cid, True)
    document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=11)
    tasks.cut(engine, cid, 100)
    per_task = _tasks(engine, cid, comparative.MAX_OUTPUTS)
    _assert_shares(per_task, 0.1)


def _kinds(engine: Engine, cid: int) -> list[str]:
    with session_scope(engine) as s:
        return list(
            s.scalars(
                select(Assignment.kind)
                .where(Assignment.campaign_id == cid)
                .order_by(Assignment.position)
            )
        )


def test_spread_checks_is_even_and_never_first() -> None:
    """Any run of whole pieces gets ⌊R/L⌋ or ⌈R/L⌉ checks; no check before the first piece."""
    rng = np.random.default_rng(5)
    for weights in ([1] * 300, [13] * 40, list(rng.integers(1, 6, size=200))):
        n = len(weights) // 7 + 1
        after = np.array(queue_build.spread_checks(weights, n, rng))
        assert len(after) == n and (np.diff(after) >= 0).all() and after.min() >= 0
        step = sum(weights) / n
        ends = np.cumsum(weights)
        for a in range(0, len(weights), 17):
            for b in range(a + 1, len(weights) + 1, 23):
                r = ends[b - 1] - (ends[a - 1] if a else 0)
                got = int(((after >= a) & (after < b)).sum())
                assert math.floor(r / step) - 1 <= got <= math.ceil(r / step) + 1


def test_the_last_task_without_a_check_joins_the_one_before() -> None:
    """12 outputs with a check after the 4th and the 8th, tasks of 5: the third task (the
    last 3 outputs) would have none, so it joins the second."""
    kinds = ["regular"] * 4 + ["attention"] + ["regular"] * 4 + ["attention"] + ["regular"] * 3
    slots = [CutSlot(k, k, kind, k, 0, None) for k, kind in enumerate(kinds)]
    plans, _ = tasks.plan_cut(slots, 5, paired=False, by_document=False)
    assert plans == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9, 10, 11, 12]]


def test_a_cut_that_would_leave_a_task_unchecked_is_refused(engine: Engine) -> None:
    cid = make_campaign(engine, 60, 1, attention_rate=0.05, paired=False)
    queue_build.build_queue(engine, cid, seed=2)
    with pytest.raises(tasks.TaskError, match="without an attention check"):
        tasks.cut(engine, cid, 5)
    with session_scope(engine) as s:  # nothing cut
        assert s.scalar(select(func.count()).select_from(Task)) == 0


def test_respread_mends_a_queue_whose_checks_piled_up(engine: Engine) -> None:
    """An old queue (checks piled at the head, as the uniform gaps could leave them), cut
    into tasks: re-spreading drops the tasks and unanswered slots, builds again with checks
    spread, and cuts again at the last size; logged. Refused once a slot was claimed."""
    cid = make_campaign(engine, 60, 3, attention_rate=0.1)
    queue_build.build_queue(engine, cid, seed=4)
    with session_scope(engine) as s:  # the old shape: every check first
        slots = list(
            s.scalars(
                select(Assignment).where(Assignment.campaign_id == cid)
                .order_by(Assignment.kind, Assignment.position)  # "attention" < "regular"
            )
        )  # fmt: skip
        for k, sl in enumerate(slots):
            sl.position = -1 - k  # two passes keep (campaign, position) unique meanwhile
        s.flush()
        for k, sl in enumerate(slots):
            sl.position = k
    with pytest.raises(tasks.TaskError, match="without an attention check"):
        tasks.cut(engine, cid, 30)  # the piled queue cannot be cut fairly
    tasks.set_settings(engine, cid)  # nothing
    with session_scope(engine) as s:
        s.execute(Task.__table__.insert(), [{"campaign_id": cid, "ordinal": 1, "state": "open"}])
    fixed = respread_checks(engine, cid)
    assert fixed.attention_slots > 0
    tasks.cut(engine, cid, 30)
    _assert_shares(_tasks(engine, cid, None), 0.1)
    with session_scope(engine) as s:
        assert any(c.key == "queue.respread" for c in setting_changes(s, cid))
    ann = create_annotator(engine, cid, "ann").annotator_id
    next_view(engine, ann)  # claims a slot
    with pytest.raises(tasks.TaskError, match="claimed"):
        respread_checks(engine, cid)


def test_switching_comparative_on_counts_checks_in_screens(engine: Engine) -> None:
    cid = make_campaign(engine, 90, 10, attention_rate=0.1)
    queue_build.build_queue(engine, cid, seed=1)
    before = _kinds(engine, cid).count("attention")
    comparative.set_comparative(engine, cid, True)
    after = _kinds(engine, cid).count("attention")
    screens = 90  # one per item (no overlap)
    assert before == 100 and after == screens // 9, (before, after)


def test_the_pass_rule_says_how_many_checks_a_task_has(engine: Engine) -> None:
    conf = tasks.TaskSettings(pass_share=0.8)
    assert "4 attention check(s)" in conf.rule_for(4) and "at least 4 answered" in conf.rule_for(4)
    assert conf.needed(5) == 4 and conf.needed(10) == 8 and conf.needed(1) == 1
    cid = make_campaign(engine, 90, 1, attention_rate=0.1, paired=False)
    queue_build.build_queue(engine, cid, seed=2)
    cut = tasks.cut(engine, cid, 20)
    per_task = [c for _, c in _tasks(engine, cid, None)]
    assert cut.checks == per_task and min(per_task) >= 1
    assert f"Each holds {min(per_task)}–{max(per_task)} attention checks" in cut.summary


def test_comparative_cut_counts_screens(engine: Engine) -> None:
    """In comparative mode the task size counts screens (one item's outputs is one screen;
    so is a check), and the cut says so."""
    cid = make_campaign(engine, 30, 4, attention_rate=0.0)
    comparative.set_comparative(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=1)
    cut = tasks.cut(engine, cid, 5)
    assert cut.screens == [5] * 6 and cut.sizes == [20] * 6
    assert "Comparative screens: 5–5 per task" in cut.summary
