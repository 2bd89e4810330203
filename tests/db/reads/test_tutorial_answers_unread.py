"""Tutorial and check answers are never counted by the estimators: the reads of db/reads/
give the same arrays (full and delta) and the same fingerprint before and after annotators
answer a tutorial, right and wrong, silent checks included; and no read names their
table."""

from __future__ import annotations

import re
from pathlib import Path

from accounts.invites import create_annotator
from annotation.judging import tutorial
from db.reads.campaign import fingerprint, read_campaign
from db.reads.delta import read_delta
from tests.db.reads.test_campaign import seed_campaign
from tests.db.reads.test_delta import assert_same

READS = Path(__file__).resolve().parents[3] / "db" / "reads"
CSV = b"source,output,expected_label,explanation,silent\na,b,1,Right.,0\nc,d,0,Wrong.,0\ne,f,1,,1\n"


def test_tutorial_answers_change_no_read(engine) -> None:  # type: ignore[no-untyped-def]
    cid = seed_campaign(engine, n_items=12, labelled=8, overlap=2)
    tutorial.set_tutorial(engine, cid, tutorial.parse_csv(CSV))
    people = [create_annotator(engine, cid, n).annotator_id for n in ("t1", "t2")]
    full, delta = read_campaign(engine, cid), read_delta(engine, cid)
    print_ = fingerprint(engine, cid)
    for who, labels in zip(people, ([1, 1, 0], [1, 0, 1]), strict=True):  # a retry, a pass
        for label in labels:
            now = tutorial.status(engine, cid, who)
            assert now is not None and now.state == "todo"
            tutorial.answer(engine, cid, who, now.index, label)
    assert tutorial.status(engine, cid, people[1]).state == "passed"  # type: ignore[union-attr]
    assert fingerprint(engine, cid) == print_
    assert_same(read_campaign(engine, cid), full)
    after = read_delta(engine, cid, delta)
    assert_same(after.data, delta.data)


def test_no_read_names_the_tutorial_table() -> None:
    for path in READS.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"tutorial_answers|TutorialAnswer", text), path.name
