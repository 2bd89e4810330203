"""The AI-span import streams (SQLite and PostgreSQL): its memory is a small multiple of the
file (tracemalloc: Python's own allocations, numpy's included, no timing), a file of many
bad rows is refused at its 50th problem without reading further (a broken line after
them is never reached), overlapping spans are found at once in a sorted file and by one
sort in any other, and a refused file leaves the campaign's earlier spans as they were.
Before: every row was read into a list first (30× the file at 6.3 M rows, 234 s to refuse
rows naming outputs the campaign lacks)."""

from __future__ import annotations

import tracemalloc

import pytest
from sqlalchemy import Engine, func, select

from annotation.imports.ai_spans import import_ai_spans
from annotation.judging.span_judgments import META_KEY
from annotation.judging.spans import SpanConfig
from db.engine import session_scope
from db.schema.admin_models import AISpan
from db.schema.models import Campaign, Item, Output, System
from formats.problems import MAX_PROBLEMS, CampaignFileError

HEADER = "item_id,system,start,end,severity,category,confidence,model\n"
N_ITEMS, SPANS_PER_OUTPUT, BOUND = 150, 100, 3.0
TEXT = " ".join(f"Wort{k:03d}" for k in range(SPANS_PER_OUTPUT))  # 7 characters and a space


def _campaign(engine: Engine) -> int:
    with session_scope(engine) as s:
        camp = Campaign(name="stream", mode="spans", show_metrics=False,
                        meta={META_KEY: SpanConfig(ask_esa=True).to_meta()})  # fmt: skip
        s.add(camp)
        s.flush()
        systems = [System(campaign_id=camp.id, name=n) for n in ("A", "B")]
        s.add_all(systems)
        items = [Item(campaign_id=camp.id, external_id=f"i{j}", source=f"src {j}")
                 for j in range(N_ITEMS)]  # fmt: skip
        s.add_all(items)
        s.flush()
        s.add_all(
            Output(item_id=it.id, system_id=sy.id, text=TEXT) for it in items for sy in systems
        )
        return camp.id


def _good_file() -> bytes:
    """A span on every word of every output, outputs interleaved (not grouped)."""
    rows = [
        f"i{j},{sy},{8 * k},{8 * k + 7},minor,fluency,0.5,qe\n"
        for k in range(SPANS_PER_OUTPUT)
        for j in range(N_ITEMS)
        for sy in ("A", "B")
    ]
    return (HEADER + "".join(rows)).encode()


def _stored(engine: Engine) -> int:
    with session_scope(engine) as s:
        return int(s.scalar(select(func.count()).select_from(AISpan)) or 0)


@pytest.mark.slow
def test_the_import_streams_within_three_times_the_file(sqlite_engine: Engine) -> None:
    _campaign(sqlite_engine)
    data = _good_file()
    tracemalloc.start()
    try:
        report = import_ai_spans(sqlite_engine, data, "stream", source="qe", filename="ai.csv")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.spans == 2 * N_ITEMS * SPANS_PER_OUTPUT == _stored(sqlite_engine)
    assert report.outputs == 2 * N_ITEMS and report.clean == 0
    assert peak <= BOUND * len(data), f"{peak / len(data):.2f}× the file"


def test_fifty_problems_refuse_at_once_and_stop_reading(engine: Engine) -> None:
    _campaign(engine)
    import_ai_spans(engine, b"item_id,system,start,end,severity\ni0,A,0,7,major\n", "stream",
                    source="before", filename="ai.csv")  # fmt: skip
    missing = "".join(f"nope{n},A,0,7,minor,,,\n" for n in range(MAX_PROBLEMS + 10))
    broken = 'i0,A,0,7,minor,"never closed\n' + "i0,A,8,15,minor,,,\n" * 100_000
    data = (HEADER + missing + broken).encode()
    with pytest.raises(CampaignFileError) as refused:
        import_ai_spans(engine, data, "stream", source="qe", filename="ai.csv")
    problems = refused.value.problems
    assert len(problems) == MAX_PROBLEMS and refused.value.truncated
    assert [p.row for p in problems] == list(range(1, MAX_PROBLEMS + 1))
    assert "has no output of item 'nope0'" in problems[0].message
    assert "not valid CSV" not in str(refused.value)  # the broken line was never read
    assert _stored(engine) == 1  # the earlier import's span is kept


def test_overlaps_found_at_once_when_sorted_and_by_one_sort_otherwise(engine: Engine) -> None:
    _campaign(engine)
    # sorted: every span overlaps the first; refused at the 50th without reading the rest
    sorted_rows = "i0,A,0,20,minor,,,\n" * 100_000
    with pytest.raises(CampaignFileError) as refused:
        import_ai_spans(engine, (HEADER + sorted_rows + '"\n').encode(), "stream", source="qe",
                        filename="ai.csv")  # fmt: skip
    assert len(refused.value.problems) == MAX_PROBLEMS
    assert all("overlaps [0, 20) of row 1" in p.message for p in refused.value.problems)
    # unsorted: a later row starts before an earlier one it overlaps; found by the sort
    unsorted = "i0,A,30,40,minor,,,\ni1,B,0,5,minor,,,\ni0,A,0,7,minor,,,\ni0,A,5,31,major,,,\n"
    with pytest.raises(CampaignFileError) as refused:
        import_ai_spans(engine, (HEADER + unsorted).encode(), "stream", source="qe",
                        filename="ai.csv")  # fmt: skip
    found = sorted((p.row, p.message) for p in refused.value.problems)
    assert found == [
        (1, "span [30, 40) overlaps [5, 31) of row 4 in the same output"),
        (4, "span [5, 31) overlaps [0, 7) of row 3 in the same output"),
    ]
    assert _stored(engine) == 0  # nothing of a refused file


def test_clean_and_spans_on_one_output_refused_either_order(engine: Engine) -> None:
    _campaign(engine)
    for rows in ("i0,A,,,,,,\ni0,A,0,7,minor,,,\n", "i0,A,0,7,minor,,,\ni0,A,,,,,,\n"):
        with pytest.raises(CampaignFileError, match="both called clean"):
            import_ai_spans(engine, (HEADER + rows).encode(), "stream", source="qe",
                            filename="ai.csv")  # fmt: skip
    report = import_ai_spans(engine, (HEADER + "i0,A,,,,,,\ni0,B,0,7,minor,,,\n").encode(),
                             "stream", source="qe", filename="ai.csv")  # fmt: skip
    assert (report.outputs, report.spans, report.clean) == (2, 1, 1)
