"""Label → next item: server time at 100,000 outputs, as a ratio to an empty page rerun.

Builds a SQLite database (or PostgreSQL with ``--url``) holding one campaign of 10,000 items
× 10 systems = 100,000 outputs, four metric scores each (400,000 rows), the whole queue
built (100,000 slots), and one invited annotator. Then measures, with Streamlit's AppTest
(the server side of a rerun: the script run and its element tree, no network or browser):

- ``label``: click "Adequate" on the annotate page → the next item is rendered
  (records the label, claims the next item, reads it, its scores and the progress counts);
- ``redraw``: the annotate page rerun without an action (drawing the item alone);
- ``empty``: a rerun of a page that draws nothing (the floor of any Streamlit interaction);
- ``submit``: annotation.judging.save.submit alone (the database part), without Streamlit;
- ``span save``: the same campaign switched to error-span mode; an item with two marked
  spans (one minor, one major) is saved with "Save and next" → the next item is rendered
  (validates the spans, derives label and MQM score, records, claims and draws the next
  item in the span widget), reported as a ratio to the binary label click; and
  ``submit`` with those two spans, as a ratio to ``submit`` with a label.

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

from accounts.invites import create_annotator  # noqa: E402
from annotation.judging import save as judging  # noqa: E402
from annotation.judging import session  # noqa: E402
from annotation.queue import build as queue_build  # noqa: E402
from db.engine import make_engine, session_scope  # noqa: E402
from db.judging import log  # noqa: E402
from db.migrate import upgrade  # noqa: E402
from db.schema.models import Campaign, Item, MetricScore, Output, System  # noqa: E402

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
    report = queue_build.build_queue(engine, cid, seed=1)
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

    # The database part alone, a label and two spans in turn (the campaign's mode switched
    # before each, so both meet the same load): annotators label through annotation.judging.save.
    other = create_annotator(engine, cid, "direct").annotator_id
    direct_spans = create_annotator(engine, cid, "direct-spans").annotator_id
    view = session.next_view(engine, other)
    set_mode(engine, cid, "spans")
    span_view = session.next_view(engine, direct_spans)
    submit, span_submit = [], []
    for _ in range(args.repeats):
        set_mode(engine, cid, "binary")
        t = time.perf_counter()
        view = judging.submit(
            engine, other, view.slot.assignment_id, view.slot.claim_version, label=1
        )
        submit.append(time.perf_counter() - t)
        set_mode(engine, cid, "spans")
        t = time.perf_counter()
        slot = span_view.slot
        span_view = judging.submit(
            engine, direct_spans, slot.assignment_id, slot.claim_version, spans=two_spans(slot.text)
        )
        span_submit.append(time.perf_counter() - t)
    set_mode(engine, cid, "binary")

    # The annotate page: click → next item rendered.
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["token"] = token
    at.run()
    assert not at.exception, at.exception
    spans = SpanPage(engine, cid, AppTest)
    for _ in range(5):  # warm up caches and compiled statements
        set_mode(engine, cid, "binary")
        at.button(key="adequate").click().run()
        spans.save(script_times)
    label, label_server, span_server = [], [], []
    for _ in range(args.repeats):  # a binary click and a span save in turn, same load
        set_mode(engine, cid, "binary")
        before = next(h.value for h in at.html if "tandem-output" in h.value)
        script_times.clear()
        t = time.perf_counter()
        at.button(key="adequate").click().run()
        label.append(time.perf_counter() - t)
        label_server.extend(script_times)
        after = next(h.value for h in at.html if "tandem-output" in h.value)
        assert after != before and not at.exception
        span_server.extend(spans.save(script_times))
    set_mode(engine, cid, "binary")
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
    span_ratio = statistics.median(span_server) / statistics.median(label_server)
    print(
        f"  span save (2 spans) → next item:  {median_ms(span_server):.1f} ms "
        f"= {span_ratio:.2f} × the binary label click"
    )
    sub_ratio = statistics.median(span_submit) / statistics.median(submit)
    print(
        f"  submit() with 2 spans alone:      {median_ms(span_submit):.1f} ms "
        f"= {sub_ratio:.2f} × submit() with a label"
    )
    print("AppTest wall time (adds thread start and polling), medians:")
    print(f"  label {median_ms(label):.1f} ms, empty {median_ms(empty):.1f} ms")
    engine.dispose()


def set_mode(engine: Engine, cid: int, mode: str) -> None:
    from sqlalchemy import update

    with session_scope(engine) as s:
        s.execute(update(Campaign).where(Campaign.id == cid).values(mode=mode))


def two_spans(text: str) -> list[dict]:
    """A minor span on the first word and a major one on the rest."""
    cut = text.index(" ")
    return [
        {"start": 0, "end": cut, "severity": "minor", "category": "fluency", "side": "target"},
        {
            "start": cut + 1,
            "end": len(text),
            "severity": "major",
            "category": "accuracy",
            "side": "target",
        },
    ]


class SpanPage:
    """An annotator's annotate page in span mode: mark two spans (widget events, untimed),
    then "Save and next" (timed)."""

    def __init__(self, engine: Engine, cid: int, app_test) -> None:  # type: ignore[no-untyped-def]
        self.engine, self.cid = engine, cid
        set_mode(engine, cid, "spans")
        self.at = app_test.from_file(str(ROOT / "app.py"), default_timeout=60)
        self.at.query_params["token"] = create_annotator(engine, cid, "spans").token
        self.at.run()
        assert not self.at.exception, self.at.exception
        self.n = 0

    def widget(self) -> dict:
        import json

        (el,) = list(self.at.get("component_instance"))
        return json.loads(el.proto.json_args)

    def save(self, script_times: list[float]) -> list[float]:
        set_mode(self.engine, self.cid, "spans")
        w = self.widget()
        events = []
        for sp in two_spans(w["target"]):
            events.append(
                {"type": "select", "side": "target", "start": sp["start"], "end": sp["end"]}
            )
            events.append({"type": "key", "key": "q" if sp["severity"] == "minor" else "w"})
            events.append({"type": "key", "key": "2" if sp["category"] == "fluency" else "1"})
        numbered = []
        for e in events:
            self.n += 1
            numbered.append({"n": self.n, "nonce": w["nonce"], **e})
        self.at.session_state["span_widget"] = {"session": "bench", "events": numbered}
        self.at.run()
        assert len(self.widget()["spans"]) == 2, self.widget()
        script_times.clear()
        self.at.button(key="span_save").click().run()
        assert self.widget()["target"] != w["target"] and not self.at.exception
        return list(script_times)


if __name__ == "__main__":
    main()
