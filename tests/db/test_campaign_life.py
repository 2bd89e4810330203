"""A campaign's life in the database: rename, archive (hidden, read-only), restore, and a
delete that leaves no row of the campaign in any table and touches no other campaign."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, func, select

from annotation.imports.importer import import_campaign
from annotation.imports.scores_import import import_scores
from annotation.judging import session
from annotation.queue import admin as queue_admin
from annotation.queue import build as queue_build
from db.admin.jobs import create_job
from db.campaign.campaigns import active_campaign_names, list_campaigns
from db.campaign.lifecycle import (
    CampaignArchived,
    CampaignLifeError,
    archive_campaign,
    campaign_events,
    delete_campaign,
    rename_campaign,
    restore_campaign,
)
from db.engine import session_scope
from db.schema.models import Base, CalibrationSet
from formats.problems import CampaignFileError
from metrics.base import MetricConfigError
from metrics.scoring import score_campaign
from tests.life_data import calibration, campaign_csv, owned_rows, populate, remaining

#: Tables a campaign owns rows of (the populated fixture must reach every one).
OWNED = {
    "campaigns", "items", "systems", "outputs", "annotators", "assignments", "annotations",
    "metric_scores", "metric_baselines", "thresholds", "calibration_sets", "attention_checks",
    "campaign_setting_changes", "jobs", "invite_events",
}  # fmt: skip


def test_delete_leaves_no_row_and_other_campaigns_untouched(engine: Engine) -> None:
    doomed, kept = populate(engine, "doomed"), populate(engine, "kept")
    shared = calibration(engine, "doomed-export", source=doomed, applied=kept)
    record_only = calibration(engine, "doomed-record", source=doomed)
    before = owned_rows(engine, doomed)
    assert {t for t, rows in before.items() if rows} >= OWNED, "the fixture misses a table"
    other = owned_rows(engine, kept)

    counts = delete_campaign(engine, "doomed", "doomed", via="cli")

    assert all(n == 0 for n in remaining(engine, before).values()), remaining(engine, before)
    for table in Base.metadata.sorted_tables:  # also by the campaign_id column directly
        if "campaign_id" in table.c and table.name != "campaign_events":
            with engine.connect() as conn:
                n = conn.scalar(
                    select(func.count()).select_from(table).where(table.c.campaign_id == doomed)
                )
            assert n == 0, table.name
    after = owned_rows(engine, kept)
    other["calibration_sets"].pop(shared)  # its source link is cleared (checked below)
    after["calibration_sets"].pop(shared)
    assert after == other  # every other row of the other campaign, unchanged
    assert counts["outputs"] == 16 and counts["campaigns"] == 1
    assert counts["annotations"] == len(before["annotations"])
    with session_scope(engine) as s:
        kept_set = s.get(CalibrationSet, shared)
        assert kept_set is not None and kept_set.source_campaign_id is None
        assert kept_set.applied_campaign_id == kept  # the other campaign's prior stays
        assert s.get(CalibrationSet, record_only) is None
    (event,) = [e for e in campaign_events(engine, "doomed") if e.action == "delete"]
    assert event.campaign_id == doomed and event.via == "cli"
    assert event.detail["rows"] == counts and event.detail["calibration_sets_kept"] == 1


def test_delete_needs_the_name_typed_and_changes_nothing_otherwise(engine: Engine) -> None:
    cid = populate(engine, "c")
    before = owned_rows(engine, cid)
    with pytest.raises(CampaignLifeError, match="type its name exactly"):
        delete_campaign(engine, "c", "C", via="cli")
    with pytest.raises(CampaignLifeError, match="no campaign named 'nope'"):
        delete_campaign(engine, "nope", "nope", via="cli")
    assert owned_rows(engine, cid) == before and campaign_events(engine) == []


def test_delete_is_one_transaction(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure half-way (here: writing the log row) leaves every row in place."""
    import db.campaign.lifecycle as life

    cid = populate(engine, "c")
    before = owned_rows(engine, cid)

    def boom(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("disk full")

    monkeypatch.setattr(life, "_log", boom)
    with pytest.raises(RuntimeError):
        delete_campaign(engine, "c", "c", via="ui")
    assert owned_rows(engine, cid) == before


def test_rename_checks_unique_name_and_length(engine: Engine) -> None:
    populate(engine, "a")
    populate(engine, "b")
    with pytest.raises(CampaignLifeError, match="'b' already exists"):
        rename_campaign(engine, "a", "b", via="cli")
    with pytest.raises(CampaignLifeError, match="201 characters; the limit is 200"):
        rename_campaign(engine, "a", "x" * 201, via="cli")
    with pytest.raises(CampaignLifeError, match="empty"):
        rename_campaign(engine, "a", "  ", via="cli")
    with pytest.raises(CampaignLifeError, match="already named"):
        rename_campaign(engine, "a", "a", via="cli")
    assert rename_campaign(engine, "a", "  a2 ", via="ui") == "a2"
    assert {c.name for c in list_campaigns(engine)} == {"a2", "b"}
    (event,) = campaign_events(engine)
    assert (event.action, event.name, event.detail, event.via) == (
        "rename", "a2", {"old_name": "a"}, "ui"
    )  # fmt: skip


def test_archive_hides_and_makes_read_only_restore_undoes(engine: Engine) -> None:
    cid = populate(engine, "c")
    populate(engine, "other")
    archive_campaign(engine, "c", via="cli")
    assert [c.name for c in list_campaigns(engine)] == ["other"]
    assert [n for n, _ in active_campaign_names(engine)] == ["other"]
    assert [c.name for c in list_campaigns(engine, archived=True)] == ["c"]
    assert {c.name for c in list_campaigns(engine, archived=None)} == {"c", "other"}
    before = owned_rows(engine, cid)
    with pytest.raises(CampaignFileError, match="archived"):
        import_campaign(engine, campaign_csv("more", 2), "c", filename="m.csv", append=True)
    scores = b"item_id,system,metric,score\n0,A,comet,0.5\n"
    with pytest.raises(CampaignFileError, match="archived"):
        import_scores(engine, scores, "c", filename="s.csv")
    with pytest.raises(CampaignArchived, match="restore it first"):
        queue_build.build_queue(engine, cid)
    with pytest.raises(CampaignArchived):
        queue_admin.update_queue_settings(engine, cid, overlap=0.3)
    with pytest.raises(MetricConfigError, match="archived"):
        score_campaign(engine, "c", "bleu")
    with pytest.raises(CampaignArchived):
        create_job(engine, cid, "score", {})
    annotator_id = _annotator(engine, cid)
    with pytest.raises(session.AccessDenied, match="archived"):
        session.next_view(engine, annotator_id)
    with pytest.raises(CampaignLifeError, match="archived already"):
        archive_campaign(engine, "c", via="cli")
    assert owned_rows(engine, cid) == before  # nothing was written

    restore_campaign(engine, "c", via="ui")
    assert {c.name for c in list_campaigns(engine)} == {"c", "other"}
    # the pickers' read without counts: the same campaigns in the same order
    assert active_campaign_names(engine) == [(c.name, c.id) for c in list_campaigns(engine)]
    assert session.next_view(engine, annotator_id).slot is not None
    with pytest.raises(CampaignLifeError, match="not archived"):
        restore_campaign(engine, "c", via="ui")
    assert [(e.action, e.via) for e in campaign_events(engine, "c")] == [
        ("archive", "cli"), ("restore", "ui")
    ]  # fmt: skip


def test_archive_and_delete_wait_for_a_running_scoring_job(engine: Engine) -> None:
    cid = populate(engine, "c")
    create_job(engine, cid, "score", {})  # queued
    for action in (
        lambda: archive_campaign(engine, "c", via="ui"),
        lambda: delete_campaign(engine, "c", "c", via="ui"),
    ):
        with pytest.raises(CampaignLifeError, match="scoring job running"):
            action()
    assert [c.name for c in list_campaigns(engine)] == ["c"]


def _annotator(engine: Engine, cid: int) -> int:
    from db.schema.models import Annotator

    with session_scope(engine) as s:
        return s.scalar(
            select(Annotator.id).where(Annotator.campaign_id == cid, Annotator.role == "annotator")
        )


def test_upgrade_from_0008_keeps_campaigns_active(engine: Engine) -> None:
    """A campaign made before 0010 is active after the upgrade, and can then be archived."""
    from sqlalchemy import inspect, text

    from db.migrate import migrate_to

    populate(engine, "old")
    migrate_to(engine, "0008")
    assert "campaign_events" not in inspect(engine).get_table_names()
    assert "archived_at" not in {c["name"] for c in inspect(engine).get_columns("campaigns")}
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO campaigns (name, mode, show_metrics, show_reference, overlap, "
                "attention_rate, claim_timeout_s, paired, meta, created_at) VALUES ('made at "
                "0008', 'binary', true, true, 0, 0, 900, true, '{}', CURRENT_TIMESTAMP)"
            )
        )
    migrate_to(engine, "head")
    assert {c.name for c in list_campaigns(engine)} == {"old", "made at 0008"}
    assert list_campaigns(engine, archived=True) == []
    archive_campaign(engine, "made at 0008", via="cli")
    assert [c.name for c in list_campaigns(engine)] == ["old"]
    assert delete_campaign(engine, "old", "old", via="cli")["campaigns"] == 1


def test_every_cascading_key_of_a_many_row_table_is_indexed(engine: Engine) -> None:
    """A deletion runs each ON DELETE action once per deleted parent row: a foreign key
    whose column leads no index makes that a scan of the whole child table per row (issue 34:
    ``attention_checks.output_id`` made deleting WMT21 TED's 6,877 outputs take 4–18 s, now
    0.4–0.5 s, bench/delete_bench.py). Keys to a one-row parent (the campaign, the account)
    are scanned once per deletion and need none."""
    from sqlalchemy import inspect

    one_row_parents = {"campaigns", "accounts"}
    insp = inspect(engine)
    missing = []
    for table in insp.get_table_names():
        leading = {ix["column_names"][0] for ix in insp.get_indexes(table)}
        leading |= {u["column_names"][0] for u in insp.get_unique_constraints(table)}
        leading |= set(insp.get_pk_constraint(table)["constrained_columns"][:1])
        for fk in insp.get_foreign_keys(table):
            column = fk["constrained_columns"][0]
            if fk["referred_table"] not in one_row_parents and column not in leading:
                missing.append(f"{table}.{column}")
    assert not missing, f"foreign keys without an index: {missing}"
