"""Label → next item: server time at 100,000 outputs, as a ratio to an empty page rerun.

Builds a SQLite database (or PostgreSQL with ``--url``) holding one campaign of 10,000 items
× 10 systems = 100,000 outputs, four metric scores each (400,000 rows), the whole queue
built (100,000 slots), and one invited annotator. Then measures, with Streamlit's AppTest
(the server side of a rerun: the script run and its element tree, no network or browser):

- ``label``: click "Adequate" on the annotate page → the next item is rendered
  (records the label, claims the next item, reads it, its scores and the progress counts);
- ``redraw``: the annotate page rerun without an action (drawing the item alone);
- ``empty``: a rerun of a page that draws nothing (the floor of any Streamlit interaction);
- ``submit``: annotation.session.submit alone (the database part), without Streamlit.

"Server time" is the duration of the script run on Streamlit's script thread (timed around
``ScriptRunner._run_script``: callbacks, page script, element deltas). AppTest compiles the
page from source on every run (a fresh ``ScriptCache`` each time) where a real server
compiles once; the bench shares one cache across runs, as the server does, and also prints
the AppTest wall time for reference.

Reports medians and the ratio label/empty. Run: ``.venv/bin/python bench/annotate_bench.py``.
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

from sqlalchemy import Engine, insert, select  # noqa: E402

from annotation import queue, session  # noqa: E402
from annotation.auth import create_annotator  # noqa: E402
from db import annotations as log  # noqa: E402
from db.engine import make_engine, session_scope  # noqa: E402
from db.migrate import upgrade  # noqa: E402
from db.models import Campaign, Item, MetricScore, Output, System  # noqa: E402

N_ITEMS, N_SYSTEMS = 10_000, 10


def populate(engine: Engine) -> tuple[int, str]:
    t0 = time.perf_counter()
    with session_scope(engine) as s:
        camp = Campaign(name="bench", show_metrics=True)
        s.add(camp)
        s.flush()
        cid = camp.id
        sys_ids = [
            s.execute(
                insert(System).values(campaign_id=cid, name=f"sys{k}").returning(System.id)
            ).scalar_one()
            for k in range(N_SYSTEMS)
        ]
        s.execute(
            insert(Item),
            [
                {
                    "campaign_id": cid,
                    "external_id": str(j),
                    "source": f"Source sentence number {j} with a few words in it.",
                    "reference": f"Reference sentence number {j} with a few words.",
                    "meta": {},
                }
                for j in range(N_ITEMS)
            ],
        )
        item_ids = list(s.scalars(select(Item.id).where(Item.campaign_id == cid)))
        s.execute(
            insert(Output),
            [
                {
                    "item_id": i,
                    "system_id": sy,
                    "text": f"Output {i} of {sy}, some words.",
                    "meta": {},
                }
                for i in item_ids
                for sy in sys_ids
            ],
        )
        out_ids = list(s.scalars(select(Output.id)))
        for metric, value in (("bleu", 30.0), ("chrf", 55.0), ("ter", 60.0), ("bertscore_f", 0.9)):
            s.execute(
                insert(MetricScore),
                [
                    {
                        "output_id": o,
                        "metric": metric,
                        "signature": f"{metric}|bench",
                        "value": value,
                    }
                    for o in out_ids
                ],
            )
    report = queue.build_queue(engine, cid, seed=1)
    token = create_annotator(engine, cid, "bench").token
    print(
        f"populated {len(out_ids):,} outputs, {4 * len(out_ids):,} scores, "
        f"{report.regular_slots:,} slots in {time.perf_counter() - t0:.1f}s"
    )
    return cid, token


def median_ms(samples: list[float]) -> float:
    return 1000 * statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--repeats", type=int, default=60)
    args = parser.parse_args()

    import streamlit.testing.v1.app_test as app_test_module
    import streamlit.testing.v1.local_script_runner as local_runner_module
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import AppTest

    shared_cache = ScriptCache()  # one per server, as in a real Streamlit runtime
    app_test_module.ScriptCache = lambda: shared_cache  # type: ignore[assignment]
    local_runner_module.ScriptCache = lambda: shared_cache  # type: ignore[assignment]
    script_times: list[float] = []
    run_script = script_runner.ScriptRunner._run_script

    def timed_run_script(self, rerun_data):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        try:
            return run_script(self, rerun_data)
        finally:
            script_times.append(time.perf_counter() - t)

    script_runner.ScriptRunner._run_script = timed_run_script  # type: ignore[method-assign]

    tmp = Path(tempfile.mkdtemp(prefix="tandem-bench-"))
    url = args.url or f"sqlite:///{tmp / 'bench.db'}"
    os.environ["DATABASE_URL"] = url
    engine = make_engine(url)
    upgrade(engine)
    cid, token = populate(engine)

    # The database part alone: a second annotator labels through annotation.queue.
    other = create_annotator(engine, cid, "direct").annotator_id
    view = session.next_view(engine, other)
    submit = []
    for _ in range(args.repeats):
        t = time.perf_counter()
        view = session.submit(
            engine, other, view.slot.assignment_id, view.slot.claim_version, label=1
        )
        submit.append(time.perf_counter() - t)

    # The annotate page: click → next item rendered.
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["token"] = token
    at.run()
    assert not at.exception, at.exception
    for _ in range(5):  # warm up caches and compiled statements
        at.button(key="adequate").click().run()
    label = []
    script_times.clear()
    for _ in range(args.repeats):
        before = next(h.value for h in at.html if "tandem-output" in h.value)
        t = time.perf_counter()
        at.button(key="adequate").click().run()
        label.append(time.perf_counter() - t)
        after = next(h.value for h in at.html if "tandem-output" in h.value)
        assert after != before and not at.exception
    label_server = list(script_times)
    script_times.clear()
    for _ in range(args.repeats):  # the same page redrawn without an action
        at.run()
    redraw_server = list(script_times)

    empty_page = tmp / "empty.py"
    empty_page.write_text("import streamlit as st\n")
    et = AppTest.from_file(str(empty_page), default_timeout=60)
    et.run()
    empty = []
    script_times.clear()
    for _ in range(args.repeats):
        t = time.perf_counter()
        et.run()
        empty.append(time.perf_counter() - t)
    empty_server = list(script_times)

    with session_scope(engine) as s:
        n_labels = len(log.current_judgments(s, cid))
    print(f"database: {engine.dialect.name}; {n_labels} labels recorded during the bench")
    print(f"submit() alone (record + claim next + read it): {median_ms(submit):.1f} ms median")
    print("server time (script thread), medians:")
    print(f"  label click → next item rendered: {median_ms(label_server):.1f} ms")
    print(f"  annotate page redraw, no action:  {median_ms(redraw_server):.1f} ms")
    print(f"  empty page rerun:                 {median_ms(empty_server):.1f} ms")
    ratio = statistics.median(label_server) / statistics.median(empty_server)
    print(f"  ratio label / empty rerun:        {ratio:.1f}")
    print("AppTest wall time (adds thread start and polling), medians:")
    print(f"  label {median_ms(label):.1f} ms, empty {median_ms(empty):.1f} ms")
    engine.dispose()


if __name__ == "__main__":
    main()
