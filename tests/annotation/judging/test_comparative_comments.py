"""A comment per output on a binary and on a DA side-by-side screen, on SQLite and
PostgreSQL: comparative.submit stores each output's comment on its own judgment with its
label or score (stripped; empty: none), exports it in the `comment` column, and a refused
comment on one output saves none of the screen (the screen still held). (The pages' side:
tests/views/annotate/test_compare_comments.py.)"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Engine, select

from accounts.invites import create_annotator
from annotation.judging import comparative, session
from annotation.judging.save import MAX_COMMENT
from annotation.queue import build as queue_build
from annotation.results.exports import export_annotations
from db.engine import session_scope
from db.schema.models import Annotation
from tests.annotation.queue.test_queue import make_campaign

JUDGED = {"binary": ({"label": 1}, {"label": 0}, {"label": 1}),
          "da": ({"da_score": 20}, {"da_score": 100}, {"da_score": 65})}  # fmt: skip


def _screen(engine: Engine, mode: str) -> tuple[int, comparative.Screen]:
    cid = make_campaign(engine, 3, 3, name=mode, mode=mode)
    comparative.set_comparative(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=5)
    ann = create_annotator(engine, cid, "ann").annotator_id
    shown = comparative.screen(engine, ann, session.next_view(engine, ann))
    assert shown is not None and shown.size == 3
    return ann, shown


@pytest.mark.parametrize("mode", ["binary", "da"])
def test_each_outputs_comment_is_stored_and_exported(engine: Engine, mode: str) -> None:
    ann, shown = _screen(engine, mode)
    comments = ["  a name left in English ", "", "j k a i s u Enter"]
    judged = {k: j | {"comment": c} for k, (j, c) in enumerate(zip(JUDGED[mode], comments,
                                                                   strict=True))}  # fmt: skip
    comparative.submit(engine, ann, shown, judged, seconds=6.0)
    with session_scope(engine) as s:
        rows = s.execute(
            select(Annotation.screen_position, Annotation.comment, Annotation.label,
                   Annotation.da_score).order_by(Annotation.screen_position)
        ).all()  # fmt: skip
    assert [(r[0], r[1]) for r in rows] == [(0, "a name left in English"), (1, None),
                                            (2, "j k a i s u Enter")]  # fmt: skip
    if mode == "binary":
        assert [r[2] for r in rows] == [1, 0, 1]
    else:
        assert [r[3] for r in rows] == [20.0, 100.0, 65.0]
    exported = [json.loads(line) for line in export_annotations(engine, mode, "jsonl").splitlines()]
    assert sorted((r["screen_position"], r["comment"]) for r in exported) == [
        (0, "a name left in English"), (1, None), (2, "j k a i s u Enter")]  # fmt: skip


@pytest.mark.parametrize("mode", ["binary", "da"])
def test_a_bad_comment_on_one_output_saves_none_of_the_screen(engine: Engine, mode: str) -> None:
    ann, shown = _screen(engine, mode)
    for comment, match in (("a\x00b", "output 2: the comment contains a NUL"),
                           ("x" * (MAX_COMMENT + 1), "output 2: the comment is")):  # fmt: skip
        judged = {k: dict(j) for k, j in enumerate(JUDGED[mode])}
        judged[1]["comment"] = comment
        with pytest.raises(session.InvalidJudgment, match=match):
            comparative.submit(engine, ann, shown, judged)
    with session_scope(engine) as s:
        assert s.scalar(select(Annotation.id)) is None
    assert comparative.screen(engine, ann, session.next_view(engine, ann)) == shown
