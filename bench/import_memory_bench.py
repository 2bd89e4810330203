"""Peak memory of each import path against the size of its file.

Each import runs in a fresh subprocess (so one path's peak does not hide another's) on a
synthetic file of ``--rows`` rows, into a fresh SQLite file; the subprocess reports its peak
RSS (``ru_maxrss``). The baseline, measured in the same run, is a subprocess that imports
the same modules and reads the file's bytes but imports nothing: the ratio printed is
(peak − baseline) / file size, the import's own memory per byte of file (the target:
≤ 5).

    .venv/bin/python bench/import_memory_bench.py [--rows 1000000] [--paths mqm,summary,...]
        [--database sqlite|postgresql]

With ``--database postgresql`` each run gets a fresh database on the local server
(127.0.0.1:5432, trust auth), dropped afterwards.

Paths: ``campaign`` (a CSV, one row per item × system: item_id, source, reference, system,
output, a metric column), ``mqm`` (WMT MQM TSV, one error row per segment), ``scores``
(a scores CSV for the campaign: item_id, system, metric, score), ``calibration`` (the largest
calibration set the limits allow); ``summary`` and ``mqm_summary``: the Import page's check of
the campaign CSV (with its metric column) and its summary of the MQM TSV, before importing
(the database is not touched; the ratio is as for an import).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SYSTEMS = 4
ROWS = [0]  # --rows, for the children's checks


def _campaign_csv(path: Path, rows: int, metric: bool = True) -> None:
    with path.open("w", encoding="utf-8") as f:
        head = "item_id,source,reference,system,output" + (",metric:comet" if metric else "")
        f.write(head + "\n")
        for n in range(rows):
            j, k = divmod(n, SYSTEMS)
            extra = f",0.{(n * 7919) % 1000:03d}" if metric else ""
            f.write(f"i{j},the source sentence number {j} to translate,the reference {j},"
                    f"sys{k},output {n} of system {k} for item {j}{extra}\n")  # fmt: skip


def _mqm_tsv(path: Path, rows: int) -> None:
    with path.open("w", encoding="utf-8") as f:
        f.write("system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n")
        for n in range(rows):
            j, k = divmod(n, SYSTEMS)
            f.write(
                f"sys{k}\tdoc{j // 10}\t{j // 10}\t{j}\trater1\tthe source sentence {j}\t"
                f"output <v>{n}</v> of system {k}\tAccuracy/Mistranslation\tMinor\n"
            )


def _scores_csv(path: Path, rows: int) -> None:
    with path.open("w", encoding="utf-8") as f:
        f.write("item_id,system,metric,score\n")
        for n in range(rows):
            j, k = divmod(n, SYSTEMS)
            f.write(f"i{j},sys{k},comet22,0.{(n * 31) % 100}\n")


def _calibration(path: Path, rows: int) -> None:
    from formats import calibration_file as cf

    per = {f"s{k}": {"tp": 1, "fn": 0, "tn": 0, "fp": 0} for k in range(cf.MAX_SYSTEMS)}
    n = len(per)
    payload = {
        "schema": cf.SCHEMA, "schema_version": 1, "metric": "chrf", "signature": "chrf|x",
        "threshold": 50.0, "higher_is_better": True,
        "counts": {"tp": n, "fn": 0, "tn": 0, "fp": 0}, "per_system": per,
        "source": {"pad": "x" * (cf.MAX_BYTES - 200_000)},
    }  # fmt: skip
    path.write_text(json.dumps(payload))


CHILD = r"""
import resource, sys, json
sys.path.insert(0, {root!r})
from pathlib import Path
from db.engine import make_engine
from db.migrate import upgrade
from annotation.imports.importer import import_campaign
from annotation.imports.mqm import import_mqm_tsv
from annotation.imports.scores_import import import_scores
from annotation.results.calibration import import_calibration
from formats import calibration_file
path, kind, db = Path({path!r}), {kind!r}, {db!r}
engine = make_engine(db if "://" in db else "sqlite:///" + db)
upgrade(engine)
if kind == "setup":  # the campaign a scores file is for, in its own process
    import_campaign(engine, path, "c", max_mb=10_000)
start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if kind == "baseline":
    data = path.read_bytes()
elif kind == "campaign":
    import_campaign(engine, path, "new", max_mb=10_000)
elif kind == "mqm":
    import_mqm_tsv(engine, path, "mqm", max_mb=10_000)
elif kind == "scores":
    import_scores(engine, path, "c", max_mb=10_000)
elif kind == "calibration":
    calibration_file.parse(path.read_bytes())
elif kind == "summary":  # the Import page's check of a campaign file (its bytes in memory)
    from annotation.imports.check import check_campaign_upload
    from formats.campaign_check import check_campaign_file
    from formats.scores_file import MetricSpec
    data = path.read_bytes()
    first = check_campaign_file(data, path.name, max_mb=10_000, validate=False)
    check, scores = check_campaign_upload(
        data, path.name, None, [MetricSpec("comet", "metric:comet", "", True)]
    )
    assert check.ok and check.n_rows == {rows} and scores.counts()["comet"] == {rows}, check
elif kind == "mqm_summary":  # the Import page's summary of an MQM TSV
    from annotation.imports.mqm import summarize_mqm_tsv
    summary = summarize_mqm_tsv(path.read_bytes(), path.name)
    assert summary.judgments == {rows}, summary
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"start_kb": start, "peak_kb": peak}}))
"""


PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _pg_copy(source: str | None) -> str:
    """A fresh PostgreSQL database (a copy of ``source`` when given); its URL."""
    import uuid

    from sqlalchemy import create_engine, text

    name = f"tandem_memb_{uuid.uuid4().hex[:8]}"
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    template = f' TEMPLATE "{source.rsplit("/", 1)[1]}"' if source else ""
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"{template}'))
    admin.dispose()
    return PG_ADMIN.rsplit("/", 1)[0] + "/" + name


def _pg_drop(url: str) -> None:
    from sqlalchemy import create_engine, text

    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)'))
    admin.dispose()


def _child(kind: str, path: Path, db: Path | str) -> dict[str, int]:
    code = CHILD.format(root=str(ROOT), path=str(path), kind=kind, db=str(db), rows=ROWS[0])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{kind} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--paths", default="campaign,mqm,scores,calibration")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    args = parser.parse_args()
    pg = args.database == "postgresql"
    ROWS[0] = args.rows
    makers = {"campaign": _campaign_csv, "mqm": _mqm_tsv, "scores": _scores_csv,
              "calibration": _calibration, "summary": _campaign_csv,
              "mqm_summary": _mqm_tsv}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for kind in args.paths.split(","):
            ext = {"mqm": "tsv", "mqm_summary": "tsv", "calibration": "json"}.get(kind, "csv")
            path = d / f"{kind}.{ext}"
            makers[kind](path, args.rows)
            base_db: Path | str = d / f"{kind}-base.db"
            run_db: Path | str = _pg_copy(None) if pg else d / f"{kind}.db"
            if pg and kind != "scores":  # the baseline loads the same database driver
                base_db = _pg_copy(None)
            if kind == "scores":  # the campaign the scores are for, made beforehand
                campaign = d / "for_scores.csv"
                _campaign_csv(campaign, args.rows, metric=False)
                _child("setup", campaign, run_db)
                if pg:
                    base_db = _pg_copy(str(run_db))
                else:
                    shutil.copy(run_db, base_db)
            size = path.stat().st_size
            try:
                base = _child("baseline", path, base_db)
                run = _child(kind, path, run_db)
            finally:
                for url in (base_db, run_db) if pg else ():
                    if isinstance(url, str):
                        _pg_drop(url)
            own = max(run["peak_kb"] - base["peak_kb"], 0) * 1024
            print(
                f"{args.database:10s} {kind:12s} {args.rows:>9,} rows, file {size / 1e6:7.1f} MB: "
                f"peak RSS "
                f"{run['peak_kb'] / 1024:7.0f} MB, baseline {base['peak_kb'] / 1024:5.0f} MB, "
                f"import's own {own / 1e6:7.0f} MB = {own / size:5.1f}× the file",
                flush=True,
            )


if __name__ == "__main__":
    main()
