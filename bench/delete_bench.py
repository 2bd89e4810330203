"""Deleting a campaign: WMT21 TED en-de (529 items × 13 systems = 6,877 outputs) with its
queue built (10 % attention checks), cut into tasks, 49 labels, beside a second campaign of
the same size, deleted with ``db.campaign.lifecycle.delete_campaign`` — once on today's schema and
once without ``ix_attention_checks_output`` (the schema before migration 0013), in the same
run, on SQLite and (with ``--pg-url``) PostgreSQL.

    .venv/bin/python bench/delete_bench.py [--pg-url postgresql+psycopg://postgres@127.0.0.1:5432/test]

Prints seconds per delete and the ratio (before / after). Needs the shared data
(../shared/data/wmt21-ted-mqm); the databases are temporary.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from accounts.invites import create_annotator
from annotation.imports.importer import import_campaign
from annotation.judging import save as judging
from annotation.judging import session
from annotation.queue import build as queue_build
from annotation.tasks import batches as tasks
from db.campaign.lifecycle import delete_campaign
from db.engine import make_engine
from db.migrate import upgrade

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
DATA = SHARED / "wmt21-ted-mqm" / "wmt21_ted_ende.csv"
IGNORE = ["human_score", "human_label_binary", "post_edit"]


def _populate(engine) -> None:  # type: ignore[no-untyped-def]
    for name in ("doomed", "kept"):
        cid = import_campaign(
            engine, DATA, name, ignore=IGNORE, settings={"attention_rate": 0.1}
        ).campaign_id
        queue_build.build_queue(engine, cid, seed=1)
        if name == "kept":
            continue
        tasks.cut(engine, cid, 50)
        ann = create_annotator(engine, cid, "a").annotator_id
        view = session.next_view(engine, ann)
        for _ in range(49):
            if view.slot is None:
                view = session.start_next_task(engine, ann)
            assert view.slot is not None
            view = judging.submit(
                engine, ann, view.slot.assignment_id, view.slot.claim_version, label=1
            )


def _delete_seconds(url: str, without_index: bool) -> float:
    engine = make_engine(url)
    upgrade(engine)
    if without_index:
        with engine.begin() as conn:
            conn.execute(text("DROP INDEX ix_attention_checks_output"))
    _populate(engine)
    t0 = time.perf_counter()
    delete_campaign(engine, "doomed", "doomed", via="cli")
    seconds = time.perf_counter() - t0
    engine.dispose()
    return seconds


def _pg_database(admin_url: str):  # type: ignore[no-untyped-def]
    name = f"tandem_delbench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg-url", help="a PostgreSQL server's admin URL (a database is made)")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"needs the shared data at {DATA}")
    for dialect in ("sqlite", "postgresql") if args.pg_url else ("sqlite",):
        times = {}
        for without in (True, False):
            if dialect == "sqlite":
                with tempfile.TemporaryDirectory() as tmp:
                    times[without] = _delete_seconds(f"sqlite:///{tmp}/bench.db", without)
            else:
                url, drop = _pg_database(args.pg_url)
                try:
                    times[without] = _delete_seconds(url, without)
                finally:
                    drop()
        print(
            f"{dialect}: delete 6,877 outputs — before (no index) {times[True]:.2f} s, "
            f"after {times[False]:.2f} s, ratio {times[True] / times[False]:.1f}×"
        )


if __name__ == "__main__":
    main()
