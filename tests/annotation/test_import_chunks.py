"""Chunked imports (issue 32, bounded memory): a file is validated and written chunk by chunk
inside one transaction, so a bad row in a late chunk leaves the database exactly as it was,
checks that need the whole file still see it whole, and the result does not depend on the
chunk size. On SQLite and PostgreSQL (the ``engine`` fixture)."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select

from annotation.imports.importer import import_campaign
from db.campaign.campaigns import campaign_rows
from db.engine import session_scope
from db.schema import admin_models  # noqa: F401  (registers its tables on Base.metadata)
from db.schema.models import (
    Annotation,
    Assignment,
    Base,
    Campaign,
    Item,
    MetricScore,
    Output,
    System,
)
from formats.campaign_file import parse_campaign_file, stream_campaign_file
from formats.problems import CampaignFileError

HEADER = "item_id,source,reference,system,output,human_label,annotator,metric:comet\n"
CHUNK = 4


def _rows(n: int) -> list[str]:
    return [f"i{k // 2},src {k // 2},ref {k // 2},S{k % 2},out {k},{k % 2},,0.{k % 10}\n"
            for k in range(n)]  # fmt: skip


def dump(engine: Engine) -> dict[str, list[tuple]]:
    """Every row of every table: "exactly as before", not just the same counts."""
    with session_scope(engine) as s:
        return {
            t.name: sorted(map(repr, s.execute(select(t)).all()))
            for t in Base.metadata.sorted_tables
        }


def refused(engine: Engine, text: str, **kw) -> str:
    before = dump(engine)
    with pytest.raises(CampaignFileError) as info:
        import_campaign(engine, text.encode(), kw.pop("campaign", "late"), filename="big.csv",
                        chunk_rows=CHUNK, **kw)  # fmt: skip
    assert dump(engine) == before, "a refused import changed the database"
    return str(info.value)


@pytest.fixture
def occupied(engine: Engine) -> Engine:
    """A database that already holds a campaign (the refused import must not touch it)."""
    import_campaign(engine, (HEADER + "".join(_rows(6))).encode(), "old", filename="old.csv")
    return engine


def test_bad_label_in_a_late_chunk_writes_nothing(occupied: Engine) -> None:
    rows = _rows(50)
    rows[44] = "i22,src 22,ref 22,S0,out 44,maybe,,0.4\n"
    message = refused(occupied, HEADER + "".join(rows))
    assert "big.csv" in message and "row 45" in message and "human_label" in message
    assert "'maybe'" in message and "Use 1 for adequate" in message


def test_bad_score_in_a_late_chunk_writes_nothing(occupied: Engine) -> None:
    rows = _rows(50)
    rows[47] = "i23,src 23,ref 23,S1,out 47,1,,high\n"
    message = refused(occupied, HEADER + "".join(rows))
    assert "row 48" in message and "metric:comet" in message and "not a finite number" in message


def test_duplicate_pair_across_chunks_is_found(occupied: Engine) -> None:
    rows = [*_rows(40), "i1,src 1,ref 1,S0,another,1,,0.1\n"]  # i1/S0 is row 3
    message = refused(occupied, HEADER + "".join(rows))
    assert "row 41" in message and "duplicate" in message and "row 3 has it already" in message


def test_item_text_changed_across_chunks_is_found(occupied: Engine) -> None:
    rows = [*_rows(40), "i2,src CHANGED,ref 2,S9,out x,1,,0.1\n"]
    message = refused(occupied, HEADER + "".join(rows))
    assert "row 41" in message and "different source here than in row 5" in message


def test_append_clash_in_a_late_chunk_writes_nothing(occupied: Engine) -> None:
    rows = [r.replace("i", "n", 1) for r in _rows(30)] + ["i0,src 0,ref 0,S1,out 1,1,,0.1\n"]
    message = refused(
        occupied, HEADER + "".join(rows), campaign="old", append=True, ignore=["metric:comet"]
    )
    assert "row 31" in message and "('i0', 'S1') is already in the campaign" in message


def test_broken_quoting_in_a_late_chunk_writes_nothing(occupied: Engine) -> None:
    message = refused(occupied, HEADER + "".join(_rows(40)) + 'i99,"unclosed,r,S0,o,1,,0.1\n')
    assert "big.csv" in message


def _import_judged(engine: Engine, name: str, chunk_rows: int) -> None:
    """Two annotators of system A's outputs, the second one's rows far from the first's
    (other chunks); half of B's outputs judged; A marked human only on its last row."""
    header = "item_id,source,reference,system,output,human_label,annotator,is_human,metric:c\n"
    first = [f"i{k},src {k},ref {k},{s},out {k}{s},{k % 2 if s == 'A' or k < 4 else ''},"
             f"ann1,,0.{k}\n" for k in range(8) for s in ("A", "B")]  # fmt: skip
    second = [f"i{k},src {k},ref {k},A,out {k}A,1,ann2,{int(k == 7)},0.{k}\n" for k in range(8)]
    text = header + "".join(first + second) + "i9,src 9,ref 9,C,unjudged,,,,\n"
    import_campaign(engine, text.encode(), name, filename="j.csv", chunk_rows=chunk_rows)


def _shape(engine: Engine, name: str) -> tuple:
    key = sorted(
        (r["item_id"], r["system"], r["output"], r["human_label"], r["annotator"], r["is_human"],
         tuple(sorted(r["meta"].items())))
        for r in campaign_rows(engine, name)
    )  # fmt: skip
    with session_scope(engine) as s:
        cid = s.scalar(select(Campaign.id).where(Campaign.name == name))
        slots = sorted(
            (round(p, 9), state, pos)
            for p, state, pos in s.execute(
                select(Assignment.inclusion_prob, Assignment.state, Assignment.position)
                .join(Annotation, Annotation.assignment_id == Assignment.id)
                .where(Assignment.campaign_id == cid)
            )
        )
        scores = sorted(
            s.execute(
                select(Item.external_id, System.name, MetricScore.value)
                .join(Output, Output.id == MetricScore.output_id)
                .join(Item, Item.id == Output.item_id)
                .join(System, System.id == Output.system_id)
                .where(Item.campaign_id == cid)
            ).all()
        )
    return key, slots, scores


def test_result_does_not_depend_on_the_chunk_size(engine: Engine) -> None:
    _import_judged(engine, "whole", 10_000)
    _import_judged(engine, "chunked", 3)
    whole, chunked = _shape(engine, "whole"), _shape(engine, "chunked")
    assert chunked[0] == whole[0]
    assert chunked[2] == whole[2] and len(whole[2]) == 16  # one score per output with one
    # every judgment has its slot: A 8 of 8 outputs judged, B 4 of 8
    probs = [(p, state) for p, state, _ in chunked[1]]
    assert probs == [(0.5, "done")] * 4 + [(1.0, "done")] * 16
    assert [pos for *_, pos in chunked[1]] != []
    assert [(p, st) for p, st, _ in whole[1]] == probs
    with session_scope(engine) as s:
        assert s.scalar(select(Annotation.id).where(Annotation.assignment_id.is_(None))) is None
    assert {r["is_human"] for r in campaign_rows(engine, "chunked") if r["system"] == "A"} == {True}


_TEXT = st.text(alphabet=st.sampled_from('ab,"\n\r\t \x00é\u2028;'), max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from("xyz"), st.sampled_from("AB"), _TEXT, _TEXT,
                          st.sampled_from(["", "1", "0", "2"])), min_size=1, max_size=14),
       st.integers(1, 5))  # fmt: skip
def test_chunk_size_never_changes_the_verdict(rows, chunk_rows) -> None:
    """Hostile cells (quotes, separators, line breaks, NUL): validating in chunks of any
    size gives the same rows, or the same problems, as validating the file whole."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["item_id", "source", "reference", "system", "output", "human_label"])
    for item, system, source, output, label in rows:
        writer.writerow([item, source, "r", system, output, label])
    data = out.getvalue().encode()

    def verdict(size: int):
        try:
            stream = stream_campaign_file(data, "h.csv", chunk_rows=size)
            chunks = list(stream.chunks)
        except CampaignFileError as exc:
            return str(exc)
        assert all(len(c) <= size for c in chunks)
        return [(r.number, r.item_id, r.system, r.output, r.human_label)
                for c in chunks for r in c]  # fmt: skip

    whole = verdict(10_000)
    assert verdict(chunk_rows) == whole
    try:
        parsed = parse_campaign_file(data, "h.csv")
        assert whole == [(r.number, r.item_id, r.system, r.output, r.human_label)
                         for r in parsed.rows]  # fmt: skip
    except CampaignFileError as exc:
        assert str(exc) == whole
