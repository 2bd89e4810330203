"""db.reads.delta: a delta read equals a full read after every kind of write, on real
SQLite and PostgreSQL (TANDEM_REQUIRE_POSTGRES=1 makes the PostgreSQL runs mandatory)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from sqlalchemy import select, update

from annotation.imports.importer import import_campaign
from db.engine import session_scope
from db.judging.log import append
from db.queue.settings import log_setting_changes, update_campaign_settings
from db.reads.campaign import read_campaign
from db.reads.delta import DeltaState, read_delta
from db.schema.models import Annotation, Annotator, Assignment, MetricScore, Output
from db.scores.metric_scores import ScoreRow, insert_scores, save_threshold
from tests.test_reads import SIG, seed_campaign, seed_csv

SIG_NEW = "comet|version:test"


def assert_same(a: Any, b: Any, where: str = "data") -> None:
    """Field by field, arrays with their dtypes (NaN equals NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, (where, a.dtype, b.dtype)
        nan = a.dtype.kind == "f"
        assert np.array_equal(a, b, equal_nan=nan), where
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), where
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, list | tuple):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    else:
        assert a == b and type(a) is type(b), (where, a, b)


class Campaign:
    """A seeded campaign and the delta reads taken of it, checked after every step."""

    def __init__(self, engine) -> None:  # type: ignore[no-untyped-def]
        self.engine = engine
        self.cid = seed_campaign(engine, n_items=30, labelled=20, overlap=4)
        self.state: DeltaState = read_delta(engine, self.cid)
        assert self.state.how == "full"
        self.check(None)

    def check(self, how: str | None) -> DeltaState:
        if how is not None:
            self.state = read_delta(self.engine, self.cid, self.state)
            assert self.state.how == how
        assert_same(self.state.data, read_campaign(self.engine, self.cid))
        return self.state

    def rows(self, *cols):  # type: ignore[no-untyped-def]
        with session_scope(self.engine) as s:
            return s.execute(
                select(*cols)
                .join(Annotator, Annotator.id == Annotation.annotator_id)
                .where(Annotator.campaign_id == self.cid)
                .order_by(Annotation.id)
            ).all()

    def label(self, **fields: Any) -> int:
        """A new label by the first annotator on the first output nobody judged yet."""
        judged = {oid for (oid,) in self.rows(Annotation.output_id)}
        ann = self.rows(Annotation.annotator_id)[0][0]
        with session_scope(self.engine) as s:
            oid = s.scalar(
                select(Output.id).where(Output.id.not_in(judged)).order_by(Output.id).limit(1)
            )
            return append(s, output_id=oid, annotator_id=ann, **{"kind": "label", **fields})

    def supersede(self, aid: int, kind: str, **fields: Any) -> int:
        with session_scope(self.engine) as s:
            old = s.get(Annotation, aid)
            return append(s, output_id=old.output_id, annotator_id=old.annotator_id, kind=kind,
                          supersedes_id=aid, **fields)  # fmt: skip


def test_delta_read_equals_full_read_after_every_write(engine) -> None:
    c = Campaign(engine)
    c.check("delta")  # nothing changed: the same data
    first = c.label(label=1, seconds=3.5)
    c.check("delta")
    c.label(label=0)  # two in a row, then a skip and an attention answer (left out)
    c.label(kind="skip", skip_reason="unsure")
    c.label(kind="attention", label=1)
    c.check("delta")
    undo = c.supersede(first, "undo")
    c.check("delta")
    c.supersede(undo, "undo")  # an undo of an undo: the label stays taken back
    c.check("delta")
    old = c.rows(Annotation.id, Annotation.kind)[0][0]  # an imported judgment, corrected
    c.supersede(old, "label", label=0, seconds=1.0)
    c.check("delta")
    with session_scope(engine) as s:  # the plan (column and meta) changes, logged
        update_campaign_settings(s, c.cid, {"planned_labels": 500})
        log_setting_changes(s, c.cid, {"alpha": (None, 0.1)})
    c.check("delta")
    save_threshold(engine, c.cid, SIG, 55.0, True, "youden")  # a threshold rewritten in place
    c.check("delta")
    grid = c.state.data.output_ids
    k, n = grid.shape  # a new metric on half the items, then a missing score
    insert_scores(engine, [ScoreRow(int(grid[s, j]), "comet", SIG_NEW, 0.5 + 0.01 * j)
                           for s in range(k) for j in range(0, n, 2)])  # fmt: skip
    c.check("delta")
    insert_scores(engine, [ScoreRow(int(grid[0, 1]), "comet", SIG_NEW, None)])
    c.check("delta")
    with session_scope(engine) as s:  # a new annotator's first label
        s.add(Annotator(campaign_id=c.cid, name="late", role="import"))
    c.label(label=1)
    c.check("delta")


def test_changes_a_delta_cannot_see_force_a_full_read(engine) -> None:
    c = Campaign(engine)
    c.label(label=1)
    with session_scope(engine) as s:  # a queue rebuild renumbers an answered slot
        slot = s.scalar(select(Annotation.assignment_id).where(
            Annotation.assignment_id.is_not(None)).order_by(Annotation.id).limit(1))  # fmt: skip
        s.execute(update(Assignment).where(Assignment.id == slot).values(position=10_000))
    c.check("full")
    with session_scope(engine) as s:  # a label rewritten in place (never done by the app)
        aid, label = s.execute(select(Annotation.id, Annotation.label).where(
            Annotation.label.is_not(None)).order_by(Annotation.id).limit(1)).one()  # fmt: skip
        s.execute(update(Annotation).where(Annotation.id == aid).values(label=1 - label))
    c.check("full")
    with session_scope(engine) as s:  # a score rewritten in place
        sid = s.scalar(select(MetricScore.id).order_by(MetricScore.id).limit(1))
        s.execute(update(MetricScore).where(MetricScore.id == sid).values(value=1234.5))
    c.check("full")
    with session_scope(engine) as s:  # an annotation deleted (the newest one)
        newest = s.scalar(select(Annotation.id).order_by(Annotation.id.desc()).limit(1))
        s.execute(Annotation.__table__.delete().where(Annotation.id == newest))
    c.check("full")
    data, _ = seed_csv(n_items=5, labelled=0, overlap=0, seed=3)  # outputs appended
    import_campaign(engine, data.replace(b"i00", b"j00"), "demo", filename="more.csv",
                    append=True)  # fmt: skip
    c.check("full")
    c.label(label=0)
    c.check("delta")


def test_another_writer_between_reads_is_seen(engine) -> None:
    """Two readers (two server replicas) keep their own states; each sees the other's
    writes, since a delta is what the database holds above the id it last read."""
    c = Campaign(engine)
    other = read_delta(engine, c.cid)
    c.label(label=1)
    other = read_delta(engine, c.cid, other)
    c.check("delta")
    assert other.how == "delta"
    assert_same(other.data, c.state.data)
    undo = c.supersede(int(other.data.judgments.annotation_id.max()), "undo")
    assert undo
    c.check("delta")
    other = read_delta(engine, c.cid, other)
    assert_same(other.data, c.state.data)
