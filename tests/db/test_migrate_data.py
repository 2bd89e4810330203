"""Migrations keep the data: a populated database taken from every earlier revision to the
head and back down to every revision keeps every row of every table, on SQLite (where batch
table rebuilds used to cascade-delete through the foreign keys) and on PostgreSQL; and a
paired queue built before assignments had an item is still served as groups afterwards."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, MetaData, select, text
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from annotation.judging.session import next_view
from db.engine import make_engine
from db.migrate import (
    MigrationFailed,
    _revisions_oldest_first,
    current_revision,
    head_revision,
    migrate_to,
)
from tests.conftest import PG_ADMIN_URL

pytestmark = pytest.mark.slow  # every revision up and down on both databases

#: Every revision, oldest first.
REVISIONS = _revisions_oldest_first()
EARLIER = ["0001", "0002", "0003"]  # the revisions released before the fix
T0 = datetime(2026, 11, 20, 10, 0, 0)
NOW = datetime(2026, 11, 20, 12, 0, 0)  # two hours later: claims made at T0 have expired


@pytest.fixture(params=["sqlite", "postgresql"])
def blank_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An empty database (no Tandem tables, no Alembic version)."""
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
        yield engine
        engine.dispose()
        return
    admin: Engine = request.getfixturevalue("pg_admin")
    name = f"tandem_m_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    engine = make_engine(url)
    yield engine
    engine.dispose()
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


# ---------------------------------------------------------------- a populated database


def _rows() -> dict[str, list[dict[str, Any]]]:
    """Rows of every table, written with the newest column names; columns the old schema
    lacks are left out when inserting (see `populate`).

    Campaign 1 has a paired queue (two systems per item, consecutive positions): item 2 done
    by annotator 1, item 1 claimed by annotator 2 at T0 (expired at NOW), item 1 again as
    overlap copies, an attention check, then items 4 and 3 open. Campaign 2 holds imported
    judgments (done slots, no item id, as the importer writes them).
    """
    meta = {"queue_builds": 1, "note": "ünïcode"}
    campaigns = [
        {"id": cid, "name": name, "mode": "binary", "show_metrics": True,
         "show_reference": cid == 1, "overlap": 0.25, "attention_rate": 0.1,
         "claim_timeout_s": 600, "source_lang": "en", "target_lang": "de",
         "queue_seed": 7 * cid, "meta": meta, "created_at": T0, "paired": True}
        for cid, name in ((1, "paired-mt"), (2, "imported"))
    ]  # fmt: skip
    systems = [
        {"id": 1, "campaign_id": 1, "name": "sysA", "is_human": False},
        {"id": 2, "campaign_id": 1, "name": "sysB", "is_human": False},
        {"id": 3, "campaign_id": 2, "name": "sysA", "is_human": False},
        {"id": 4, "campaign_id": 2, "name": "human", "is_human": True},
    ]
    items = [
        {"id": i, "campaign_id": 1 if i <= 4 else 2, "external_id": f"doc-{i}",
         "source": f"Source sentence {i}.", "reference": f"Reference {i}." if i % 2 else None,
         "doc_id": f"d{i // 3}", "meta": {"row": i}}
        for i in range(1, 8)
    ]  # fmt: skip
    outputs, out_of = [], {}
    for item in items:
        for sys_ in systems:
            if sys_["campaign_id"] == item["campaign_id"]:
                oid = len(outputs) + 1
                out_of[item["id"], sys_["id"]] = oid
                outputs.append(
                    {"id": oid, "item_id": item["id"], "system_id": sys_["id"],
                     "text": f"Output {oid} of item {item['id']} by {sys_['name']}",
                     "meta": {}}
                )  # fmt: skip
    annotators = [
        {"id": aid, "campaign_id": cid, "name": f"annotator {aid}", "role": role,
         "token_hash": f"{aid:064x}" if role == "annotator" else None,
         "revoked_at": T0 if aid == 3 else None, "created_at": T0}
        for aid, cid, role in ((1, 1, "annotator"), (2, 1, "annotator"),
                               (3, 1, "annotator"), (4, 2, "import"))
    ]  # fmt: skip
    attention = [
        {"id": 1, "output_id": out_of[3, 1], "degraded_text": "Output output degraded",
         "severity": 2, "operations": [{"op": "repeat"}], "expected_label": 0}
    ]  # fmt: skip

    assignments: list[dict[str, Any]] = []

    def slot(item: int, system: int, state: str, annotator: int | None, **extra: Any) -> int:
        aid = len(assignments) + 1
        assignments.append(
            {"id": aid, "campaign_id": 1 if item <= 4 else 2, "output_id": out_of[item, system],
             "annotator_id": annotator, "position": len(assignments), "inclusion_prob": 1.0,
             "state": state, "kind": "regular", "attention_check_id": None,
             "claimed_at": T0 if annotator else None, "claim_version": 1 if annotator else 0,
             "item_id": item if item <= 4 else None, "slot": 0, **extra}
        )  # fmt: skip
        return aid

    done = [slot(2, 2, "done", 1), slot(2, 1, "done", 1)]  # positions 0, 1
    slot(1, 1, "claimed", 2), slot(1, 2, "claimed", 2)  # 2, 3: expired at NOW
    slot(1, 2, "open", None, slot=1, inclusion_prob=0.25)  # 4, 5: overlap copies
    slot(1, 1, "open", None, slot=1, inclusion_prob=0.25)
    slot(3, 1, "open", None, kind="attention", attention_check_id=1, inclusion_prob=0.0)
    for item, first, second in ((4, 1, 2), (3, 2, 1)):  # 7, 8 and 9, 10
        slot(item, first, "open", None), slot(item, second, "open", None)
    imported = [slot(i, s, "done", 4) for i in (5, 6, 7) for s in (3, 4)]  # 11 … 16

    def label(assignment: int, value: int, **extra: Any) -> dict[str, Any]:
        row = assignments[assignment - 1]
        return {"output_id": row["output_id"], "annotator_id": row["annotator_id"],
                "assignment_id": assignment, "kind": "label", "label": value, "score": None,
                "post_edit": None, "hter": None, "skip_reason": None, "seconds": 4.5,
                "supersedes_id": None, "created_at": T0, **extra}  # fmt: skip

    annotations = [label(a, 1) for a in done] + [label(a, a % 2) for a in imported]
    annotations.append(label(done[0], 0, supersedes_id=1))  # a correction
    annotations.append(label(done[1], None, kind="skip", skip_reason="Other", seconds=None))
    for n, row in enumerate(annotations, start=1):
        row["id"] = n
    return {
        "app_settings": [{"key": "admin_password_hash", "value": "pbkdf2$…"}],
        "campaigns": campaigns,
        "annotators": annotators,
        "calibration_sets": [
            {"id": 1, "name": "cal", "signature": "comet|v2", "threshold": 0.5,
             "higher_is_better": True, "tp": 10, "fn": 2, "tn": 9, "fp": 3,
             "per_system": {"sysA": [1, 2]}, "source_campaign_id": 2,
             "applied_campaign_id": 1, "payload": {"k": [0.1, 0.2]}, "created_at": T0}
        ],
        "items": items,
        "metric_baselines": [
            {"id": 1, "campaign_id": 1, "model_signature": "comet|v2", "precision": 0.8,
             "recall": 0.7, "f1": 0.75, "n_pairs": 40, "seed": 1, "created_at": T0}
        ],
        "systems": systems,
        "thresholds": [
            {"id": 1, "campaign_id": 1, "signature": "bleu|v1", "threshold": 20.0,
             "higher_is_better": True, "method": "youden", "created_at": T0}
        ],
        "outputs": outputs,
        "attention_checks": attention,
        "metric_scores": [
            {"id": o["id"], "output_id": o["id"], "metric": "bleu", "signature": "bleu|v1",
             "value": None if o["id"] == 5 else o["id"] / 3}
            for o in outputs
        ],
        "assignments": assignments,
        "annotations": annotations,
    }  # fmt: skip


def _tables(engine: Engine) -> MetaData:
    meta = MetaData()
    meta.reflect(engine)
    meta.remove(meta.tables["alembic_version"])
    return meta


def populate(engine: Engine) -> None:
    """Insert `_rows` with plain inserts matching the schema of the current revision."""
    meta = _tables(engine)
    rows = _rows()
    assert set(rows) == set(meta.tables), "the test data must cover every table"
    with engine.begin() as conn:
        for table in meta.sorted_tables:
            names = set(table.c.keys())
            conn.execute(table.insert(), [{k: v for k, v in r.items() if k in names}
                                          for r in rows[table.name]])  # fmt: skip
    if engine.dialect.name == "postgresql":  # explicit ids: move the sequences past them
        with engine.begin() as conn:
            for table in meta.sorted_tables:
                if "id" in table.c:
                    conn.execute(text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                        f"(SELECT max(id) FROM {table.name}))"
                    ))  # fmt: skip


Snapshot = dict[str, list[dict[str, Any]]]


def snapshot(engine: Engine) -> Snapshot:
    """Every row of every table, ordered by primary key."""
    meta = _tables(engine)
    with engine.connect() as conn:
        return {
            t.name: [dict(r._mapping) for r in conn.execute(select(t).order_by(*t.primary_key))]
            for t in meta.sorted_tables
        }


def counts(snap: Snapshot) -> dict[str, int]:
    return {name: len(rows) for name, rows in sorted(snap.items())}


#: Columns a migration may legitimately fill in (0004 backfills them from outputs).
BACKFILLED = {"assignments": {"item_id", "slot"}}
#: New tables a migration fills from older rows (0009: the single admin password's hash
#: becomes the account 'owner').
MIGRATED = {"accounts"}


def assert_same_rows(before: Snapshot, after: Snapshot) -> None:
    """Same rows in every table both schemas have, same values in every column both have;
    tables that only the newer schema has start empty."""
    assert {n: c for n, c in counts(after).items() if n in before} == counts(before)
    assert all(not rows for name, rows in after.items() if name not in {*before, *MIGRATED})
    if "accounts" in after and "accounts" not in before:  # 0009: the password → 'owner'
        stored = [r["value"] for r in before["app_settings"] if r["key"] == "admin_password_hash"]
        owners = [(a["name"], a["role"], a["password_hash"]) for a in after["accounts"]]
        assert owners == [("owner", "owner", h) for h in stored]
    for name, rows in before.items():
        if not rows:
            continue
        common = (set(rows[0]) & set(after[name][0])) - BACKFILLED.get(name, set())
        assert [{k: r[k] for k in common} for r in after[name]] == [
            {k: r[k] for k in common} for r in rows
        ], f"{name}: row contents changed"


# ---------------------------------------------------------------- the tests


@pytest.mark.parametrize("start", EARLIER)
def test_upgrade_and_downgrade_keep_every_row(blank_engine: Engine, start: str) -> None:
    engine = blank_engine
    migrate_to(engine, start)
    populate(engine)
    before = snapshot(engine)
    assert counts(before) == {name: len(rows) for name, rows in sorted(_rows().items())}

    migrate_to(engine, "head")
    assert current_revision(engine) == head_revision()
    at_head = snapshot(engine)
    assert_same_rows(before, at_head)
    # Every slot now knows its item; the ones that already did keep theirs.
    item_of = {o["id"]: o["item_id"] for o in at_head["outputs"]}
    assert all(a["item_id"] == item_of[a["output_id"]] for a in at_head["assignments"])
    if "item_id" in before["assignments"][0]:
        kept = [a for a in before["assignments"] if a["item_id"] is not None]
        head_rows = at_head["assignments"]
        assert kept and all({k: head_rows[a["id"] - 1][k] for k in a} == a for a in kept)

    for rev in reversed(REVISIONS[:-1]):  # back down, one revision at a time, to 0001
        migrate_to(engine, rev)
        assert current_revision(engine) == rev
        assert_same_rows(before, snapshot(engine))
    migrate_to(engine, "head")  # and up again
    assert_same_rows(before, snapshot(engine))
    assert snapshot(engine)["assignments"] == at_head["assignments"]


def _claimed_positions(engine: Engine, annotator_id: int) -> list[int]:
    with engine.connect() as conn:
        return list(conn.scalars(text(
            "SELECT position FROM assignments WHERE annotator_id = :a AND state = 'claimed' "
            "ORDER BY position"), {"a": annotator_id}))  # fmt: skip


def test_paired_queue_built_at_0001_is_served_as_groups(blank_engine: Engine) -> None:
    engine = blank_engine
    migrate_to(engine, "0001")
    populate(engine)
    migrate_to(engine, "head")
    with engine.begin() as conn:  # fresh annotators of the paired campaign
        conn.execute(
            text("INSERT INTO annotators (id, campaign_id, name, role, created_at) "
                 "VALUES (:id, 1, :name, 'annotator', :t)"),
            [{"id": 100 + n, "name": f"late {n}", "t": NOW} for n in range(6)],
        )  # fmt: skip
    served = []
    for n in range(6):
        view = next_view(engine, 100 + n, now=NOW)
        served.append(_claimed_positions(engine, 100 + n))
        assert (view.slot is None) == (served[-1] == [])
    # The expired claim of item 1 (both systems), its overlap copies (a separate group,
    # never together with the first copies), the attention check alone, items 4 and 3.
    assert served == [[2, 3], [4, 5], [6], [7, 8], [9, 10], []]


# ---------------------------------------------------------------- failing loudly


def _break_a_foreign_key(path: Path) -> None:
    """An output of a missing item, written as tools without foreign keys can (plain sqlite3
    has them off by default)."""
    raw = sqlite3.connect(path)
    raw.execute("INSERT INTO outputs (id, item_id, system_id, text, meta) "
                "VALUES (99, 999, 1, 'orphan', '{}')")  # fmt: skip
    raw.commit()
    raw.close()


def test_foreign_key_violation_fails_and_rolls_back(tmp_path: Path) -> None:
    path = tmp_path / "broken.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate_to(engine, "0001")
    populate(engine)
    _break_a_foreign_key(path)
    before = snapshot(engine)
    with pytest.raises(MigrationFailed, match=r"rolled back.*1 row\(s\) reference missing rows"):
        migrate_to(engine, "head")
    assert current_revision(engine) == "0001"
    assert snapshot(engine) == before
    with engine.connect() as conn:  # the pooled connection got its foreign keys back
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_unknown_revision_is_refused(sqlite_engine: Engine) -> None:
    with pytest.raises(MigrationFailed, match="Unknown revision '0999'"):
        migrate_to(sqlite_engine, "0999")
    assert current_revision(sqlite_engine) == head_revision()


def test_cli_migrate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cli.py migrate` upgrades a populated 0001 database keeping its rows (exit 0), goes
    back with an explicit revision, and exits 1 with the reason when a migration fails."""
    import cli
    from db.engine import get_engine

    runner = CliRunner()
    path = tmp_path / "cli.db"
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    get_engine.cache_clear()
    try:
        engine = get_engine()
        migrate_to(engine, "0001")
        populate(engine)
        before = snapshot(engine)

        result = runner.invoke(cli.app, ["migrate"])
        assert result.exit_code == 0, result.output
        assert f"migrated from revision 0001 to {head_revision()}" in result.output
        assert_same_rows(before, snapshot(engine))
        result = runner.invoke(cli.app, ["migrate"])
        assert result.exit_code == 0 and "nothing to do" in result.output

        result = runner.invoke(cli.app, ["migrate", "0001"])
        assert result.exit_code == 0, result.output
        assert current_revision(engine) == "0001"
        assert_same_rows(before, snapshot(engine))

        result = runner.invoke(cli.app, ["migrate", "nonsense"])
        assert result.exit_code == 1 and "Unknown revision 'nonsense'" in result.output

        _break_a_foreign_key(path)
        result = runner.invoke(cli.app, ["migrate"])
        assert result.exit_code == 1
        assert "failed and was rolled back" in result.output
        assert "outputs rowid 99 → items" in result.output
        assert current_revision(engine) == "0001"
    finally:
        get_engine.cache_clear()


def test_cli_migrate_says_when_it_created_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17.10: a first `make run` says it created the database, not "migrated from base"."""
    import cli
    from db.engine import get_engine

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'new.db'}")
    get_engine.cache_clear()
    try:
        result = CliRunner().invoke(cli.app, ["migrate"])
        assert result.exit_code == 0, result.output
        assert "Created a new, empty database" in result.output
        assert f"(schema revision {head_revision()})" in result.output
        result = CliRunner().invoke(cli.app, ["migrate"])
        assert "already at revision" in result.output and "nothing to do" in result.output
    finally:
        get_engine.cache_clear()
