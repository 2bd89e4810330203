"""Documents judged in order: what the block claim adds to label → next item.

Two campaigns of 2,000 items × 10 systems in 20 documents of 100 segments (SQLite, or
PostgreSQL with ``--url``), queues built, one annotator each: one judged segment by segment
(the default), one with documents in order (annotation.campaign.document_order). Measures
``annotation.judging.save.submit`` (record the label, claim and read the next item), alternating
the two campaigns so that the machine's noise hits both alike, and separately the submits
that start a new block (the whole block claimed at once: 100 slots unpaired, 1,000 paired).

Reports medians and the ratios in-order / segment. Run:
``.venv/bin/python bench/document_order_bench.py [--paired] [--repeats 200] [--url URL]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from sqlalchemy import Engine  # noqa: E402

from accounts.invites import create_annotator  # noqa: E402
from annotation.campaign import document_order  # noqa: E402
from annotation.judging import save as judging  # noqa: E402
from annotation.judging import session  # noqa: E402
from annotation.queue import build as queue_build  # noqa: E402
from bench.synthetic import documents_campaign  # noqa: E402
from db.engine import make_engine  # noqa: E402
from db.migrate import upgrade  # noqa: E402

N_ITEMS, N_SYSTEMS, DOC_LEN = 2_000, 10, 100


def populate(engine: Engine, name: str, paired: bool, in_order: bool) -> tuple[int, int]:
    cid = documents_campaign(engine, name, N_ITEMS, N_SYSTEMS, DOC_LEN, paired=paired)
    if in_order:
        document_order.set_documents_in_order(engine, cid, True)
    queue_build.build_queue(engine, cid, seed=1)
    return cid, create_annotator(engine, cid, "bench").annotator_id


def run(engine: Engine, paired: bool, repeats: int) -> None:
    anns = {mode: populate(engine, mode, paired, mode == "in order")[1]
            for mode in ("segment", "in order")}  # fmt: skip
    views = {mode: session.next_view(engine, a) for mode, a in anns.items()}
    times: dict[str, list[float]] = {m: [] for m in anns}
    new_block: list[float] = []
    for _ in range(repeats):
        for mode, a in anns.items():
            slot = views[mode].slot
            assert slot is not None
            t0 = time.perf_counter()
            views[mode] = judging.submit(engine, a, slot.assignment_id, slot.claim_version, label=1)
            dt = time.perf_counter() - t0
            times[mode].append(dt)
    # the first claims of fresh blocks, timed alone: a new annotator per block
    cid = populate(engine, "blocks", paired, True)[0]
    for k in range(min(repeats, 15)):
        a = create_annotator(engine, cid, f"b{k}").annotator_id
        t0 = time.perf_counter()
        session.next_view(engine, a)
        new_block.append(time.perf_counter() - t0)
    seg, order = (1000 * statistics.median(times[m]) for m in ("segment", "in order"))
    block = 1000 * statistics.median(new_block)
    size = DOC_LEN * (N_SYSTEMS if paired else 1)
    print(f"{engine.dialect.name}, {'paired' if paired else 'unpaired'}, blocks of {size} slots")
    print(f"submit, segment order   median {seg:7.2f} ms")
    print(f"submit, documents       median {order:7.2f} ms  ({order / seg:.2f}x)")
    print(f"new block, first view  median {block:7.2f} ms  ({block / seg:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--paired", action="store_true")
    args = parser.parse_args()
    url = args.url or f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    engine = make_engine(url)
    upgrade(engine)
    run(engine, args.paired, args.repeats)


if __name__ == "__main__":
    main()
