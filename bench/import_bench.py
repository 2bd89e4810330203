"""Import benchmark: the 6,877-row WMT21 TED en-de file into a fresh database.

Prints the import time and its ratio to a baseline measured in the same run: reading the
same file with pandas.read_csv (parsing alone, no validation, no database). Runs on SQLite
and, when a server answers, on PostgreSQL.

    .venv/bin/python bench/import_bench.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pandas as pd
from sqlalchemy import create_engine, text

from annotation.imports.importer import import_campaign
from db.engine import make_engine
from db.migrate import upgrade

DATA = Path(__file__).resolve().parents[2] / "shared/data/wmt21-ted-mqm/wmt21_ted_ende.csv"
PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
MAP = {"human_label": "human_label_binary", "annotator": "rater"}


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def bench_sqlite(repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as d:
            engine = make_engine(f"sqlite:///{d}/bench.db")
            upgrade(engine)
            times.append(timed(partial(import_campaign, engine, DATA, "wmt", column_map=MAP)))
            engine.dispose()
    return times


def bench_postgres(repeat: int) -> list[float] | None:
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    try:
        admin.connect().close()
    except Exception:
        return None
    times = []
    for _ in range(repeat):
        name = f"tandem_bench_{uuid.uuid4().hex[:8]}"
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
        engine = make_engine(PG_ADMIN.rsplit("/", 1)[0] + f"/{name}")
        upgrade(engine)
        times.append(timed(partial(import_campaign, engine, DATA, "wmt", column_map=MAP)))
        engine.dispose()
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"needs {DATA} (the shared data set)")
    baseline = statistics.median(
        timed(lambda: pd.read_csv(DATA, dtype=str, keep_default_na=False))
        for _ in range(args.repeat)
    )
    print(f"baseline pandas.read_csv of {DATA.name}: {baseline:.3f} s")
    for name, times in (
        ("sqlite", bench_sqlite(args.repeat)),
        ("postgresql", bench_postgres(args.repeat)),
    ):
        if times is None:
            print(f"{name}: skipped (no server)")
            continue
        t = statistics.median(times)
        print(
            f"{name}: import 6,877 rows in {t:.2f} s (median of {len(times)}) "
            f"= {t / baseline:.1f}x read_csv"
        )


if __name__ == "__main__":
    main()
