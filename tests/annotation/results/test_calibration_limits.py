"""A calibration-set file gets the limits every other import has (issue 32): size, nesting
depth, whole numbers within range, no NUL in any text, lengths of the stored columns; each
refused with a CalibrationSetError naming the place, and nothing stored (before: deep
nesting raised RecursionError, a count of 2**63 an overflow traceback, a NUL a traceback on
PostgreSQL, and a 150 MB file was stored whole)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Engine, func, select

from annotation.results.calibration import import_calibration
from db.engine import session_scope
from db.schema.models import CalibrationSet
from formats import calibration_file as cf
from tests.annotation.results.test_exports import _payload
from tests.db.reads.test_campaign import seed_campaign


def _deep(levels: int) -> dict:
    node: object = 1
    for _ in range(levels):
        node = [node]
    return {**_payload(), "source": {"note": node}}


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (_deep(100_000), "nests deeper than a calibration set"),
        (_deep(20), "nests deeper than a calibration set"),
        ({**_payload(), "counts": {"tp": 2**40, "fn": 2, "tn": 5, "fp": 1}}, "over the limit"),
        ({**_payload(), "counts": {"tp": 2**63, "fn": 2, "tn": 5, "fp": 1}}, "tp is 9.*range"),
        ({**_payload(), "source": {"n": -(2**70)}}, "out of range"),
        ({**_payload(), "name": "a\x00b"}, "name contains a NUL byte"),
        ({**_payload(), "source": {"k\x00": 1}}, "key in source contains a NUL"),
        ({**_payload(), "signature": "s" * 501}, "signature has 501 characters"),
        ({**_payload(), "name": "n" * 201}, "at most 200 characters"),
        ({**_payload(), "per_system": {f"s{k}": {} for k in range(1001)}}, "limit is 1,000"),
    ],
)
def test_hostile_calibration_files_are_refused_by_name(payload: dict, message: str) -> None:
    deep = "note" in payload.get("source", {})
    with pytest.raises(cf.CalibrationSetError, match=message):
        cf.parse(_as_json(payload) if deep else json.dumps(payload).encode())


def _as_json(payload: dict) -> bytes:
    # json.dumps recurses per level too: write the deep list by hand
    note = payload["source"]["note"]
    depth = 0
    while isinstance(note, list):
        note, depth = note[0], depth + 1
    body = json.dumps({k: v for k, v in payload.items() if k != "source"})[:-1]
    return (body + ', "source": {"note": ' + "[" * depth + "1" + "]" * depth + "}}").encode()


def test_an_oversized_file_is_refused_before_it_is_parsed() -> None:
    big = json.dumps({**_payload(), "source": {"pad": "x" * (cf.MAX_BYTES + 1)}})
    with pytest.raises(cf.CalibrationSetError, match="a calibration set is at most"):
        cf.parse(big.encode())


def test_a_refused_calibration_import_stores_nothing(engine: Engine) -> None:
    seed_campaign(engine, "c", n_items=10, labelled=10, overlap=0)
    for bad in ({**_payload(), "name": "a\x00b"}, _deep(30)):
        with pytest.raises(cf.CalibrationSetError):
            import_calibration(engine, "c", json.dumps(bad), confirm_task_mismatch=True)
    with session_scope(engine) as s:
        assert s.scalar(select(func.count()).select_from(CalibrationSet)) == 0
