"""Pearmut import and export benchmark: a synthetic ESA campaign (N items × 2 systems, every
output judged once in its annotation log, a span on half of them) imported into a fresh
SQLite database with its log, then exported in Pearmut's layouts.

Prints the times and the import's ratio to a baseline measured in the same run: the same
judged rows as a campaign CSV (binary labels) through `import_campaign`, and the process's
peak memory.

    .venv/bin/python bench/pearmut_bench.py [--items 20000]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotation.imports.importer import import_campaign
from annotation.imports.pearmut import import_pearmut
from annotation.results.pearmut_export import export_pearmut
from db.engine import make_engine
from db.migrate import upgrade


def campaign(n: int) -> list[list[dict]]:
    return [
        [
            {
                "item_id": f"d{d}_#_{k}",
                "src": f"Source sentence {d} {k}. " * 3,
                "tgt": {"A": f"Ausgabe A {d} {k}. " * 3, "B": f"Ausgabe B {d} {k}. " * 3},
            }
            for k in range(10)
        ]
        for d in range(n // 10)
    ]


def log(docs: list[list[dict]]) -> bytes:
    lines = []
    for doc in docs:
        for k, it in enumerate(doc):
            spans = [{"start_i": 0, "end_i": 5, "severity": "minor"}] if k % 2 else []
            lines.append(
                json.dumps(
                    {
                        "user_id": "u",
                        "item_i": 0,
                        "item": [it],
                        "annotation": [
                            {
                                "A": {"score": 70, "error_spans": spans},
                                "B": {"score": 40, "error_spans": []},
                            }
                        ],
                    }
                )
            )
    return ("\n".join(lines) + "\n").encode()


def as_csv(docs: list[list[dict]]) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(
        ["item_id", "source", "reference", "system", "output", "human_label", "annotator", "doc_id"]
    )
    for d, doc in enumerate(docs):
        for it in doc:
            for system, text in it["tgt"].items():
                w.writerow([it["item_id"], it["src"], "", system, text, 1, "u", f"d{d}"])
    return buf.getvalue().encode()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=20000)
    args = ap.parse_args()
    docs = campaign(args.items)
    data = json.dumps(
        {
            "info": {"protocol": "ESA", "assignment": "task-based"},
            "campaign_id": "bench",
            "data": [docs],
        }
    ).encode()
    logged = log(docs)
    engine = make_engine(f"sqlite:///{tempfile.mkdtemp()}/bench.db")
    upgrade(engine)
    t = time.perf_counter()
    report = import_pearmut(
        engine, data, "pearmut", filename="b.json", log=logged, log_filename="b.jsonl"
    )
    t_import = time.perf_counter() - t
    t = time.perf_counter()
    export_pearmut(engine, "pearmut")
    t_export = time.perf_counter() - t
    t = time.perf_counter()
    import_campaign(engine, as_csv(docs), "csv", filename="b.csv")
    t_csv = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{report.items:,} items, {report.outputs:,} outputs, {report.judgments:,} judgments "
        f"(campaign {len(data) / 1e6:.1f} MB, log {len(logged) / 1e6:.1f} MB)"
    )
    print(
        f"import-pearmut {t_import:.1f} s; export-pearmut {t_export:.1f} s; the same rows "
        f"as a campaign CSV {t_csv:.1f} s: ratio {t_import / t_csv:.2f}; peak RSS {peak:.0f} MB"
    )


if __name__ == "__main__":
    main()
