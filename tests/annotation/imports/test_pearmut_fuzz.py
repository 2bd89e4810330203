"""Hypothesis over hostile Pearmut files through the import, on SQLite and PostgreSQL:
deep nesting, huge strings, offsets outside the text, duplicate ids, overlapping prefill and
a bad log line each give a CampaignFileError naming the place, and nothing is written."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, select

from annotation.imports.pearmut import import_pearmut
from db.engine import session_scope
from db.schema.admin_models import AISpan
from db.schema.models import Annotation, Campaign, Item
from formats.pearmut.campaign import MAX_DEPTH, MAX_TEXT
from formats.problems import CampaignFileError
from tests.support import pearmut_shapes as P

FEW = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _mutations() -> st.SearchStrategy[tuple[str, bytes]]:
    """(what the error names, a hostile file)."""
    base = P.esaai()

    def dump(c: dict) -> bytes:  # type: ignore[type-arg]
        return json.dumps(c, ensure_ascii=False).encode()

    def deep(n: int) -> tuple[str, bytes]:
        text = dump(base).decode().replace('"src"', f'"x": {"[" * n}{"]" * n}, "src"', 1)
        return "nests", text.encode()

    def huge(n: int) -> tuple[str, bytes]:
        c = json.loads(dump(base))
        c["data"][0][1][0]["tgt"]["sysA"] = "y" * (MAX_TEXT + n)
        return "task 1, document 2, item 1", dump(c)

    def outside(start: int, length: int) -> tuple[str, bytes]:
        c = json.loads(dump(base))
        text = c["data"][0][0][0]["tgt"]["sysA"]
        c["data"][0][0][0]["error_spans"]["sysA"].append(
            {"start_i": start, "end_i": len(text) + length, "severity": "minor"}
        )
        return "not inside the output", dump(c)

    def overlap(a: int) -> tuple[str, bytes]:
        c = json.loads(dump(base))
        c["data"][0][0][0]["error_spans"]["sysA"].append(
            {"start_i": a, "end_i": a + 2, "severity": "major"}
        )
        return "overlaps", dump(c)

    def duplicate(src: str) -> tuple[str, bytes]:
        c = json.loads(dump(base))
        c["data"][0][1][0] = {**c["data"][0][0][1], "src": src + "!"}
        return "also task 1, document 1, item 2", dump(c)

    return st.one_of(
        st.integers(MAX_DEPTH, 3000).map(deep),
        st.integers(1, 1000).map(huge),
        st.builds(outside, st.integers(0, 5), st.integers(0, 50)),
        st.integers(4, 12).map(overlap),
        st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=10).map(duplicate),
    )


def _nothing_written(engine: Engine) -> None:
    with session_scope(engine) as s:
        for table in (Campaign, Item, Annotation, AISpan):
            assert s.scalar(select(func.count()).select_from(table)) == 0


@FEW
@given(case=_mutations())
def test_hostile_files_are_refused_and_write_nothing(
    engine: Engine, case: tuple[str, bytes]
) -> None:
    names, data = case
    with pytest.raises(CampaignFileError) as err:
        import_pearmut(engine, data, "c", filename="c.json")
    assert names in str(err.value)
    _nothing_written(engine)


@FEW
@given(user=st.text(min_size=1, max_size=5), offset=st.integers(30, 400))
def test_a_bad_log_line_writes_nothing(engine: Engine, user: str, offset: int) -> None:
    item = P.esa()["data"][0][0][0]
    good = {
        "user_id": user,
        "item_i": 0,
        "item": [item],
        "annotation": [{"sysA": {"score": 50, "error_spans": []}}],
    }
    bad = {
        **good,
        "annotation": [
            {
                "sysA": {
                    "score": 50,
                    "error_spans": [{"start_i": 0, "end_i": offset, "severity": "minor"}],
                }
            }
        ],
    }
    log = (json.dumps(good) + "\n" + json.dumps(bad) + "\n").encode()
    with pytest.raises(CampaignFileError) as err:
        import_pearmut(
            engine, P.as_bytes(P.esa()), "c", filename="c.json", log=log, log_filename="l.jsonl"
        )
    assert "row 2" in str(err.value) or "line 2" in str(err.value) or user.strip() == ""
    _nothing_written(engine)
