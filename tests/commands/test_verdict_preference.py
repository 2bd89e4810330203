"""`cli.py verdict` on a real SQLite preference campaign, judged through the annotator's own
path: every exit code from the preference report's pair verdicts."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import cli
from db.engine import get_engine

pytest.importorskip("db.reads.preferences", reason="needs the preference mode's storage")

SYSTEMS = ("A", "B", "C")


def _campaign_file(n_items: int) -> bytes:
    rows = [
        f"i{j},source {j},ref {j},{name},output of {name} for source {j}\n"
        for j in range(n_items)
        for name in SYSTEMS
    ]
    return ("item_id,source,reference,system,output\n" + "".join(rows)).encode()


def _judged(engine, name: str, margin: float, b_and_c: str) -> None:  # type: ignore[no-untyped-def]
    """A beats B and C every time; B vs C all ties (``b_and_c`` "tie") or won in turn."""
    from accounts.invites import create_annotator
    from annotation.imports.importer import import_campaign
    from annotation.judging import preference as pref
    from annotation.judging import session
    from annotation.queue import build as queue_build

    meta = {"preference": {"pairs_per_source": 3}, "equivalence_margin": margin}
    settings = {"mode": "preference", "meta": meta}
    report = import_campaign(engine, _campaign_file(100), name, filename=f"{name}.csv",
                             settings=settings)  # fmt: skip
    queue_build.build_queue(engine, report.campaign_id, seed=5)
    ann = create_annotator(engine, report.campaign_id, "ann").annotator_id
    turn = 0
    while (view := session.next_view(engine, ann)).slot is not None:
        shown = pref.pair_screen(ann, view)
        left, right = (s.split()[2] for s in (shown.left, shown.right))  # "output of X …"
        if "A" in (left, right):
            choice = "left" if left == "A" else "right"
        elif b_and_c == "tie":
            choice = "tie"
        else:
            turn += 1
            choice = "left" if (left == "B") == (turn % 2 == 0) else "right"
        pref.submit_preference(engine, ann, shown.assignment_id, shown.claim_version, choice)


@pytest.fixture
def campaigns(sqlite_engine, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    _judged(sqlite_engine, "split", 0.05, "alternate")
    _judged(sqlite_engine, "even", 0.3, "tie")
    yield
    get_engine.cache_clear()


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli.app, ["verdict", *args])


@pytest.mark.slow  # 400 judgments through the annotator path: ~10 s
@pytest.mark.usefixtures("campaigns")
def test_every_exit_code_on_a_preference_campaign() -> None:
    better = _run("split", "--pair", "A", "B")
    assert better.exit_code == 0, better.output
    assert (
        "judgment: preference" in better.output
        and "A vs B: A better (win rate of A 1.000" in better.output
    )
    worse = _run("split", "--pair", "C", "A", "--json")
    assert worse.exit_code == 1, worse.output
    (row,) = json.loads(worse.output)["pairs"]
    assert row["scale"] == "win rate" and row["estimate"] == 0.0 and row["n"] >= 30
    not_yet = _run("split", "--pair", "B", "C")
    assert not_yet.exit_code == 2, not_yet.output
    within = _run("even", "--pair", "C", "B", "--json")
    assert within.exit_code == 3, within.output
    (row,) = json.loads(within.output)["pairs"]
    assert row["verdict"] == "within ε" and 0.2 <= row["low"] <= 0.5 <= row["high"] <= 0.8
    assert _run("even").exit_code == 0  # every pair settled
    assert _run("split").exit_code == 2
