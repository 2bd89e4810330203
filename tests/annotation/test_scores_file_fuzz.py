"""The scores-file parser over hostile input (Hypothesis): any bytes or any cell text either
parse into finite scores with valid metric names, or fail with a CampaignFileError naming
the file; well-formed files parse back exactly (CSV, TSV, JSONL)."""

from __future__ import annotations

import csv
import io
import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.imports.score_columns import parse_scores_file
from formats.problems import CampaignFileError
from metrics.imported import name_problem, parse_signature

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
COLUMNS = ["item_id", "system", "metric", "score", "higher_is_better", "version"]
# Text with the characters that break parsers: quotes, separators, CR/LF, NUL, RTL, U+2028.
hostile = st.text(
    alphabet=st.one_of(
        st.sampled_from(list(",;\t\"'\r\n\x00\u2028\u202e=+-@|: ")),
        st.characters(codec="utf-8"),
    ),
    max_size=20,
)
cell = st.one_of(
    hostile,
    st.sampled_from(["nan", "inf", "-inf", "1e999", "0.5", "-3", "true", "no", "x"]),
)


def _check(data: bytes, filename: str) -> None:
    try:
        parsed = parse_scores_file(data, filename)
    except CampaignFileError as exc:
        assert exc.problems and all(p.file == filename for p in exc.problems)
        return
    for e in parsed.entries:
        assert math.isfinite(e.value) and name_problem(e.metric) is None
        assert e.item_id.strip() and e.system.strip()
    for name, sig in parsed.metrics.items():
        assert parse_signature(str(sig)) == sig and sig.name == name


@FUZZ
@given(st.binary(max_size=300), st.sampled_from(["s.csv", "s.tsv", "s.jsonl", "s.parquet"]))
def test_any_bytes(data: bytes, filename: str) -> None:
    _check(data, filename)


@FUZZ
@given(st.lists(st.lists(cell, min_size=6, max_size=6), min_size=1, max_size=6))
def test_any_cells_csv(rows: list[list[str]]) -> None:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    _check(out.getvalue().encode("utf-8", "surrogatepass"), "s.csv")


@FUZZ
@given(
    st.lists(
        st.dictionaries(st.sampled_from(COLUMNS), st.one_of(cell, st.floats(), st.booleans(),
                                                           st.none(), st.integers())),
        min_size=1,
        max_size=6,
    )
)  # fmt: skip
def test_any_values_jsonl(rows: list[dict]) -> None:
    text = "\n".join(json.dumps(r) for r in rows)
    _check(text.encode(), "s.jsonl")


names = st.from_regex(r"[A-Za-z][A-Za-z0-9_.+\-]{0,20}", fullmatch=True).filter(
    lambda n: name_problem(n) is None
)
ids = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1,
              max_size=15).filter(lambda t: t.strip() == t and t)  # fmt: skip


@FUZZ
@given(
    st.dictionaries(
        st.tuples(ids, ids, names),
        st.floats(allow_nan=False, allow_infinity=False, width=64),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from(["csv", "tsv", "jsonl"]),
)
def test_well_formed_files_parse_back_exactly(scores: dict, fmt: str) -> None:
    rows = [
        {"item_id": i, "system": s, "metric": m, "score": repr(v)}
        for (i, s, m), v in scores.items()
    ]
    if fmt == "jsonl":
        data = "\n".join(json.dumps(r) for r in rows).encode()
    else:
        out = io.StringIO()
        writer = csv.DictWriter(
            out, fieldnames=["item_id", "system", "metric", "score"],
            delimiter="," if fmt == "csv" else "\t",
        )  # fmt: skip
        writer.writeheader()
        writer.writerows(rows)
        data = out.getvalue().encode()
    parsed = parse_scores_file(data, f"s.{fmt}")
    assert {(e.item_id, e.system, e.metric): e.value for e in parsed.entries} == scores
