"""Document context: what it adds to label → next item, at 100,000 outputs.

One SQLite campaign (or PostgreSQL with ``--url``) of 10,000 items × 10 systems in 100
documents of 100 segments (doc_id on every item), the queue built, one annotator. Measures,
alternating so that the machine's noise hits both sides alike:

- ``submit``: annotation.judging.save.submit (record the label, claim and read the next item);
- ``context``: annotation.campaign.context.document_context for the item just shown (the campaign's
  meta, then db.campaign.context.earlier_segments: one statement), window 3;
- ``page off`` / ``page on``: the annotate page's "Adequate" click → next item drawn, in
  Streamlit's AppTest (wall time of the run), with document context off and on.

Reports medians and the ratios context/submit and page on/off. Run:
``.venv/bin/python bench/document_context_bench.py [--repeats 40]``.
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
from annotation.campaign import context  # noqa: E402
from annotation.judging import save as judging  # noqa: E402
from annotation.judging import session  # noqa: E402
from annotation.queue import build as queue_build  # noqa: E402
from bench.synthetic import documents_campaign  # noqa: E402
from db.engine import make_engine  # noqa: E402
from db.migrate import upgrade  # noqa: E402

N_ITEMS, N_SYSTEMS, DOC_LEN = 10_000, 10, 100


def populate(engine: Engine) -> tuple[int, int, str]:
    cid = documents_campaign(engine, "bench", N_ITEMS, N_SYSTEMS, DOC_LEN)
    queue_build.build_queue(engine, cid, seed=1)
    invite = create_annotator(engine, cid, "bench")
    return cid, invite.annotator_id, invite.token


def bench_session(engine: Engine, cid: int, ann: int, repeats: int) -> None:
    context.set_document_context(engine, cid, True, 3)
    view = session.next_view(engine, ann)
    submit_s, context_s, sizes = [], [], []
    for _ in range(repeats):
        slot = view.slot
        assert slot is not None
        t0 = time.perf_counter()
        view = judging.submit(engine, ann, slot.assignment_id, slot.claim_version, label=1)
        t1 = time.perf_counter()
        ctx = context.document_context(engine, cid, view.slot.output_id)
        t2 = time.perf_counter()
        submit_s.append(t1 - t0)
        context_s.append(t2 - t1)
        sizes.append(0 if ctx is None else ctx.size)
    sub, con = (1000 * statistics.median(x) for x in (submit_s, context_s))
    print(f"submit   median {sub:7.2f} ms")
    print(f"context  median {con:7.2f} ms  (earlier segments: median {statistics.median(sizes)})")
    print(f"context / submit = {con / sub:.3f}")


def bench_page(engine: Engine, cid: int, token: str, repeats: int) -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["token"] = token
    at.run()
    times: dict[bool, list[float]] = {False: [], True: []}
    for k in range(2 * repeats):
        on = k % 2 == 1
        context.set_document_context(engine, cid, on, 3)
        t0 = time.perf_counter()
        at.button(key="adequate").click().run()
        times[on].append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    off, on_ = (1000 * statistics.median(times[b]) for b in (False, True))
    print(f"page off median {off:7.1f} ms · page on median {on_:7.1f} ms · on/off {on_ / off:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--repeats", type=int, default=40)
    args = parser.parse_args()
    url = args.url or f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    engine = make_engine(url)
    upgrade(engine)
    os.environ["DATABASE_URL"] = url
    cid, ann, token = populate(engine)
    bench_session(engine, cid, ann, args.repeats)
    bench_page(engine, cid, token, args.repeats // 2)


if __name__ == "__main__":
    main()
