"""A scores file is checked in a first pass, then matched and written chunk by chunk in one
transaction (issue 32, bounded memory): a bad row in a late chunk leaves the database
exactly as it was, duplicates across chunks are found, and the chunk size changes nothing.
On SQLite and PostgreSQL (the ``engine`` fixture)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, select

from annotation.imports.importer import import_campaign
from annotation.imports.scores_import import import_scores
from db.engine import session_scope
from db.schema.models import MetricScore
from formats.problems import CampaignFileError
from tests.annotation.test_import_chunks import dump

CHUNK = 3


@pytest.fixture
def camp(engine: Engine) -> Engine:
    rows = "".join(f"i{k},src {k},ref {k},{s},out {k}{s}\n" for k in range(10) for s in "AB")
    import_campaign(engine, ("item_id,source,reference,system,output\n" + rows).encode(), "c",
                    filename="c.csv")  # fmt: skip
    return engine


def _scores(n: int = 20) -> list[str]:
    return [f"i{k // 2},{'AB'[k % 2]},comet,0.{k}\n" for k in range(n)]


def refused(engine: Engine, lines: list[str]) -> str:
    before = dump(engine)
    with pytest.raises(CampaignFileError) as info:
        import_scores(engine, ("item_id,system,metric,score\n" + "".join(lines)).encode(), "c",
                      filename="s.csv", chunk_rows=CHUNK)  # fmt: skip
    assert dump(engine) == before, "a refused import changed the database"
    return str(info.value)


def test_unknown_item_in_a_late_chunk_writes_nothing(camp: Engine) -> None:
    lines = _scores()
    lines[18] = "i99,A,comet,0.5\n"
    message = refused(camp, lines)
    assert (
        "s.csv" in message
        and "row 19" in message
        and "item 'i99' is not in the campaign" in message
    )


def test_duplicate_across_chunks_writes_nothing(camp: Engine) -> None:
    message = refused(camp, [*_scores(), "i0,B,comet,0.9\n"])  # i0/B is row 2
    assert (
        "row 21" in message
        and "duplicate (item_id, system, metric) = ('i0', 'B', 'comet')" in message
    )
    assert "row 2 has it already" in message


def test_the_chunk_size_changes_nothing(camp: Engine) -> None:
    data = ("item_id,system,metric,score\n" + "".join(_scores(16))).encode()
    small = import_scores(camp, data, "c", filename="s.csv", chunk_rows=CHUNK)
    with session_scope(camp) as s:
        stored = sorted(s.execute(select(MetricScore.output_id, MetricScore.value)).all())
        s.execute(MetricScore.__table__.delete())
    whole = import_scores(camp, data, "c", filename="s.csv")
    with session_scope(camp) as s:
        assert sorted(s.execute(select(MetricScore.output_id, MetricScore.value)).all()) == stored
    assert len(stored) == 16 and small.rows == whole.rows == 16
    assert [m.n_added for m in small.metrics] == [m.n_added for m in whole.metrics] == [16]
    assert small.metrics[0].n_outputs == 20
