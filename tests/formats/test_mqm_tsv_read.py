"""MQM TSV read in two streaming passes (formats.mqm.tsv_read): a segment's rows scattered
over the file import exactly as the grouped file does; two keys of one hash stay two
segments in their order; the problems of both passes come in row order; hostile text in any
field is imported or refused with a CampaignFileError, never a traceback."""

from __future__ import annotations

import random
import time
from collections.abc import Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select

import formats.mqm.tsv_read as reader
from annotation.imports.mqm import SPAN_RULES, import_mqm_tsv
from db.engine import session_scope
from db.schema.models import Annotation, Annotator, Campaign, Item, Output, System
from formats.mqm.tsv import COLUMNS, mark
from formats.problems import MAX_PROBLEMS, CampaignFileError

HEADER = "\t".join(COLUMNS) + "\n"
SEVERITIES = ("Minor", "Major", "Critical", "Neutral", "No-error")


def _segments(n: int, seed: int) -> list[list[str]]:
    """``n`` segments of 1–4 rows each (errors, Neutral, No-error), grouped."""
    rng = random.Random(seed)
    out = []
    for j in range(n):
        system, rater = f"sys{j % 3}", f"r{j % 2}"
        source, target = f"source {j // 3}", f"the output number {j} here"
        rows = []
        for _ in range(rng.randint(1, 4)):
            severity = rng.choice(SEVERITIES)
            a = rng.randrange(len(target) - 1)
            b = rng.randrange(a + 1, len(target))
            cells = [system, f"doc{j // 6}", str(j % 6), str(j // 3), rater, source,
                     mark(target, a, b), f"Cat{rng.randrange(3)}/x", severity]  # fmt: skip
            if severity == "No-error":
                cells[6:] = [target, "No-error", "No-error"]
            rows.append("\t".join(cells) + "\n")
        out.append(rows)
    return out


def _scattered(segments: list[list[str]], seed: int) -> list[str]:
    """The rows interleaved at random, each segment's rows kept in their order."""
    rng = random.Random(seed)
    queues = [list(rows) for rows in segments]
    out = []
    while queues:
        q = rng.choice(queues)
        out.append(q.pop(0))
        if not q:
            queues.remove(q)
    return out


def _flat(segments: Iterable[list[str]]) -> list[str]:
    return [row for rows in segments for row in rows]


def _file(rows: list[str]) -> bytes:
    return (HEADER + "".join(rows)).encode()


def _judgments(engine: Engine, cid: int) -> list[tuple]:
    """Every judgment (system, seg, rater, label, score, spans), in annotation order."""
    with session_scope(engine) as s:
        rows = s.execute(
            select(System.name, Item.external_id, Annotator.name, Annotation.label,
                   Annotation.score, Annotation.spans, Item.doc_id, Output.meta)
            .join(Output, Output.id == Annotation.output_id)
            .join(Item, Item.id == Output.item_id)
            .join(System, System.id == Output.system_id)
            .join(Annotator, Annotator.id == Annotation.annotator_id)
            .where(Item.campaign_id == cid)
            .order_by(Annotation.id)
        ).all()  # fmt: skip
    return [tuple(r) for r in rows]


def _categories(engine: Engine, cid: int) -> list[str]:
    with session_scope(engine) as s:
        return s.get(Campaign, cid).meta["spans"]["categories"]


def test_scattered_rows_import_as_the_grouped_file(engine: Engine) -> None:
    segments = _segments(120, seed=7)
    grouped = import_mqm_tsv(engine, _file(_flat(segments)), "grouped", filename="g.tsv")
    scattered = import_mqm_tsv(
        engine, _file(_scattered(segments, seed=11)), "scattered", filename="s.tsv"
    )
    assert grouped.rows == scattered.rows == 120
    assert (grouped.judgments_added, grouped.outputs_added) == (120, 120)
    assert (scattered.judgments_added, scattered.outputs_added) == (120, 120)
    first = _judgments(engine, grouped.campaign_id)
    second = _judgments(engine, scattered.campaign_id)
    assert sorted(first) == sorted(second)  # same judgments, spans in the same order
    assert sorted(_categories(engine, grouped.campaign_id)) == sorted(
        _categories(engine, scattered.campaign_id)
    )


def test_segments_come_in_the_order_of_their_first_row(sqlite_engine: Engine) -> None:
    rows = _scattered(_segments(40, seed=3), seed=5)
    report = import_mqm_tsv(sqlite_engine, _file(rows), "order", filename="o.tsv")
    firsts: list[tuple[str, str, str]] = []
    for line in rows:
        c = line.split("\t")
        if (c[0], c[3], c[4]) not in firsts:
            firsts.append((c[0], c[3], c[4]))
    got = [(r[0], r[1], r[2]) for r in _judgments(sqlite_engine, report.campaign_id)]
    assert got == firsts


def test_keys_of_one_hash_stay_apart_in_order(
    sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every key hashed alike (a forced collision): the segments are told apart by their
    key's text and handed out in the order of their first row, as without collisions."""
    data = _file(_scattered(_segments(30, seed=1), seed=2))
    plain = import_mqm_tsv(sqlite_engine, data, "plain", filename="p.tsv")
    monkeypatch.setattr(reader, "hash", lambda key: len(key) % 3, raising=False)
    collided = import_mqm_tsv(sqlite_engine, data, "collided", filename="c.tsv")
    assert collided.rows == plain.rows == 30
    assert _judgments(sqlite_engine, collided.campaign_id) == _judgments(
        sqlite_engine, plain.campaign_id
    )


def test_problems_of_both_passes_come_in_row_order(sqlite_engine: Engine) -> None:
    rows = [
        "a\td\t1\t1\tr\ts\t<v>t</v>\tOther\tMinor\n",  # row 1
        "b\td\t1\t2\tr\ts\t<v>u</v>\tOther\tMinor\n",  # row 2
        "a\td\t1\t1\tr\ts\tother text\tOther\tMinor\n",  # row 3: differs (pass 2)
        "b\td\t1\t2\tr\ts\t<v>u</v>\tOther\n",  # row 4: 8 fields (pass 1)
        "b\td\t1\t2\tr\ts\t<v>u</v>\tOther\tHuge\n",  # row 5: severity (pass 2)
    ]
    with pytest.raises(CampaignFileError) as err:
        import_mqm_tsv(sqlite_engine, _file(rows), "bad", filename="bad.tsv")
    assert [p.row for p in err.value.problems] == [3, 4, 5]
    assert "differs from row 1" in err.value.problems[0].message
    assert err.value.problems[0].column == "target"
    with session_scope(sqlite_engine) as s:
        assert s.scalar(select(Campaign.id)) is None


def test_many_segment_problems_list_the_first_by_row(sqlite_engine: Engine) -> None:
    """Pass 2 meets problems segment by segment; the list still holds the first rows."""
    n = 3 * MAX_PROBLEMS
    rows = [f"a\td\t1\t{j}\tr\ts\t<v>t</v>\tOther\tMinor\n" for j in range(n)]
    rows += [f"a\td\t1\t{j}\tr\ts\tt{j}\tOther\tMinor\n" for j in reversed(range(n))]
    with pytest.raises(CampaignFileError) as err:
        import_mqm_tsv(sqlite_engine, _file(rows), "many", filename="m.tsv")
    assert err.value.truncated
    assert [p.row for p in err.value.problems] == list(range(n + 1, n + 1 + MAX_PROBLEMS))


def test_scan_keeps_three_numbers_per_row() -> None:
    """What bounds the memory: pass 1 keeps no text, only hash, offset and row number."""
    data = _file(_flat(_segments(50, seed=4)))
    scanned = reader.scan(data, "x.tsv", SPAN_RULES)
    n = data.count(b"\n") - 1
    assert scanned.hashes.dtype == scanned.offsets.dtype == scanned.numbers.dtype
    assert len(scanned.hashes) == len(scanned.offsets) == len(scanned.numbers) == n
    assert not [v for v in vars(scanned).values() if isinstance(v, list | dict) and len(v) > 5]


# Hostile text: formula-like starts, RTL, separators str.splitlines would split at, quotes,
# BOMs, marks in odd case, control characters, NUL (refused by the campaign-file rules).
FRAGMENTS = ["=", "+", "-", "@", "\u202e", "\u2028", "\x85", '"', "\ufeff", "<V>", "</v>",
             "<v>", " ", "a", "é", "\U0001f600", "\x0b", "\x1c"]  # fmt: skip
field_st = st.lists(
    st.one_of(
        st.sampled_from(FRAGMENTS),
        st.text(
            alphabet=st.characters(
                codec="utf-8", exclude_categories=("Cs",), exclude_characters="\t\r\n"
            ),
            max_size=6,
        ),
    ),
    min_size=1,
    max_size=4,
).map("".join)
SYSTEMS, SEG_IDS, RATERS = ["s1", "=s2", " s3"], ["1", "2", "-3"], ["r", "+r"]


@st.composite
def mqm_rows(draw: st.DrawFn) -> list[str]:
    """Rows of hostile text that may well import: one doc, doc_id and source per seg_id
    and one target per (system, seg_id), as the campaign-file rules ask; each row an error
    of a hostile category, marked in the target (or not), or a No-error / Neutral row."""
    docs = {g: (draw(field_st), draw(field_st), draw(field_st)) for g in SEG_IDS}
    targets = {(y, g): draw(field_st) for y in SYSTEMS for g in SEG_IDS}
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        y, g, r = draw(st.sampled_from(SYSTEMS)), draw(st.sampled_from(SEG_IDS)), draw(
            st.sampled_from(RATERS))  # fmt: skip
        doc, doc_id, source = docs[g]
        target = targets[(y, g)]
        severity = draw(st.sampled_from([*SEVERITIES, "minor ", "MAJOR", "Huge"]))
        category = draw(st.one_of(field_st, st.sampled_from(["No-error", "Fluency/x"])))
        if target and draw(st.booleans()):
            a = draw(st.integers(0, len(target) - 1))
            target = mark(target, a, draw(st.integers(a + 1, len(target))))
        lines.append("\t".join([y, doc, doc_id, g, r, source, target, category, severity]) + "\n")
    return lines


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=mqm_rows(), seed=st.integers(0, 2**16))
def test_hostile_fields_import_alike_scattered_or_refused_with_rows(
    sqlite_engine: Engine, rows: list[str], seed: int
) -> None:
    by_key: dict[tuple[str, ...], list[str]] = {}
    for line in rows:
        c = line.split("\t")
        by_key.setdefault((c[0].strip(), c[3].strip(), c[4].strip()), []).append(line)
    grouped = _flat(by_key.values())
    scattered = _scattered(list(by_key.values()), seed)
    name = f"h{time.perf_counter_ns()}"
    outcomes = []
    for k, lines in enumerate((grouped, scattered)):
        try:
            report = import_mqm_tsv(sqlite_engine, _file(lines), f"{name}{k}", filename="h.tsv")
        except CampaignFileError as exc:
            # which row is named first depends on the order (e.g. "a different doc
            # here than in row N"): both files are refused, each problem with its row
            assert all(p.file == "h.tsv" and p.fix and p.row for p in exc.problems)
            outcomes.append("refused")
        else:
            assert report.rows == len(by_key)
            outcomes.append(sorted(_judgments(sqlite_engine, report.campaign_id)))
    assert outcomes[0] == outcomes[1]
