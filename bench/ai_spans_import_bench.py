"""`cli.py import-ai-spans`'s time and memory on three synthetic files of ``--rows`` rows:

- ``valid``: a span on every word of every output of a spans campaign of ``--outputs``
  outputs (outputs interleaved, as a model's dump is), imported;
- ``missing``: well-formed rows naming outputs the campaign lacks (refused: its first 50
  rows, then nothing more is read);
- ``overlap``: spans that all overlap on one output (refused at the 50th).

Each import runs in a fresh subprocess into a copy of the same SQLite database and reports
its wall time, CPU seconds and peak RSS; the baseline, measured in the same run, is a
subprocess that imports the same modules and reads the file's bytes: the ratio printed is
(peak − baseline) / file size (the target: ≤ 3).

    .venv/bin/python bench/ai_spans_import_bench.py [--rows 1000000] [--outputs 2000]
        [--kinds valid,missing,overlap]
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
HEADER = "item_id,system,start,end,severity,category,confidence,model\n"

CHILD = r"""
import resource, sys, json, time
sys.path.insert(0, {root!r})
from pathlib import Path
from db.engine import make_engine
from annotation.imports.ai_spans import import_ai_spans
from formats.problems import CampaignFileError
engine = make_engine("sqlite:///" + {db!r})
start = resource.getrusage(resource.RUSAGE_SELF)
wall, outcome = time.perf_counter(), "imported"
if {kind!r} == "baseline":
    Path({path!r}).read_bytes()
else:
    try:
        import_ai_spans(engine, Path({path!r}), "spans", source="bench", max_mb=10_000)
    except CampaignFileError as exc:
        outcome = f"refused with {{len(exc.problems)}} problems"
end = resource.getrusage(resource.RUSAGE_SELF)
cpu = end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime
print(json.dumps({{"peak_kb": end.ru_maxrss, "wall": time.perf_counter() - wall, "cpu": cpu,
                  "outcome": outcome}}))
"""


def _campaign(db: Path, outputs: int, words: int) -> None:
    from annotation.judging.span_judgments import META_KEY
    from annotation.judging.spans import SpanConfig
    from db.engine import make_engine, session_scope
    from db.migrate import upgrade
    from db.schema.models import Campaign, Item, Output, System

    engine = make_engine(f"sqlite:///{db}")
    upgrade(engine)
    text = " ".join(f"Wort{k:03d}" for k in range(words))
    with session_scope(engine) as s:
        camp = Campaign(name="spans", mode="spans", show_metrics=False,
                        meta={META_KEY: SpanConfig(ask_esa=True).to_meta()})  # fmt: skip
        s.add(camp)
        s.flush()
        sy = System(campaign_id=camp.id, name="A")
        s.add(sy)
        items = [Item(campaign_id=camp.id, external_id=f"i{j}", source="s")
                 for j in range(outputs)]  # fmt: skip
        s.add_all(items)
        s.flush()
        s.add_all(Output(item_id=it.id, system_id=sy.id, text=text) for it in items)
    engine.dispose()


def _write(path: Path, kind: str, rows: int, outputs: int) -> None:
    with path.open("w", encoding="utf-8") as f:
        f.write(HEADER)
        for n in range(rows):
            if kind == "valid":
                k, j = divmod(n, outputs)
                f.write(f"i{j},A,{8 * k},{8 * k + 7},minor,fluency,0.5,qe\n")
            elif kind == "missing":
                f.write(f"x{n},A,0,7,minor,,,qe\n")
            else:
                f.write("i0,A,0,7,minor,,,qe\n")


def _child(kind: str, path: Path, db: Path) -> dict:  # type: ignore[type-arg]
    code = CHILD.format(root=str(ROOT), path=str(path), kind=kind, db=str(db))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{kind} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--outputs", type=int, default=2_000)
    parser.add_argument("--kinds", default="valid,missing,overlap")
    args = parser.parse_args()
    words = -(-args.rows // args.outputs)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        _campaign(d / "base.db", args.outputs, words)
        for kind in args.kinds.split(","):
            path = d / f"{kind}.csv"
            _write(path, kind, args.rows, args.outputs)
            shutil.copy(d / "base.db", d / f"{kind}.db")
            base = _child("baseline", path, d / f"{kind}.db")
            run = _child(kind, path, d / f"{kind}.db")
            size = path.stat().st_size
            extra = (run["peak_kb"] - base["peak_kb"]) * 1024
            print(
                f"{kind}: {args.rows:,} rows, {size / 1e6:.1f} MB: {run['outcome']} in "
                f"{run['wall']:.1f} s ({run['cpu']:.1f} CPU-s); peak RSS "
                f"{run['peak_kb'] / 1024:.0f} MB, {extra / size:.2f}× the file over the baseline "
                f"({base['peak_kb'] / 1024:.0f} MB)"
            )


if __name__ == "__main__":
    main()
