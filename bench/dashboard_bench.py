"""Dashboard refresh benchmark on the imported WMT21 TED en-de campaign (13 systems × 529).

Sets up (or reuses, with ``--db``) a SQLite database with the WMT campaign imported with labels from
``human_label_binary``, annotators from ``rater``, chrF and BLEU scores, and the Youden chrF
threshold. Then times full reruns of the dashboard page in Streamlit's AppTest (script execution, no
browser):

- empty rerun: the dashboard page of a campaign with outputs but no labels (the floor:
  Streamlit, navigation, the campaign list and the page's own drawing);
- warm refresh: the WMT dashboard rerun with nothing changed (fingerprint query + cache
  hit + drawing) — what every auto-refresh costs while nobody labels;
- cold refresh: after one new event in the log (an undo of a label), so the arrays are
  re-read and every estimator recomputed — what a refresh costs after each label.

Prints each median and its ratio to the empty rerun.

    .venv/bin/python bench/dashboard_bench.py [--db /tmp/wmt.db] [--repeat 5]
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

DATA = ROOT.parent / "shared/data/wmt21-ted-mqm/wmt21_ted_ende.csv"
MAP = {"human_label": "human_label_binary", "annotator": "rater"}
EMPTY_CSV = b"item_id,source,reference,system,output\n1,a,b,A,x\n1,a,b,B,y\n2,c,d,A,z\n2,c,d,B,w\n"


def setup(db: Path) -> None:
    from annotation.imports.importer import import_campaign
    from annotation.results.calibration import calibrate_and_save
    from db.campaign.campaigns import campaign_exists
    from db.engine import make_engine
    from db.migrate import upgrade
    from db.reads.campaign import campaign_id
    from db.scores.metric_scores import campaign_signatures
    from metrics.scoring import score_campaign

    engine = make_engine(f"sqlite:///{db}")
    upgrade(engine)
    if not campaign_exists(engine, "wmt"):
        t = time.perf_counter()
        import_campaign(engine, DATA, "wmt", column_map=MAP, settings={"target_lang": "de"})
        print(f"import: {time.perf_counter() - t:.2f} s")
    cid = campaign_id(engine, "wmt")
    if not campaign_signatures(engine, cid):
        t = time.perf_counter()
        score_campaign(engine, cid, "chrf,bleu", workers=1)
        print(f"scoring chrF + BLEU: {time.perf_counter() - t:.1f} s")
        chrf = next(s for m, s, _ in campaign_signatures(engine, cid) if m == "chrf")
        cal = calibrate_and_save(engine, cid, chrf)
        print(f"chrF threshold (Youden): {cal.threshold:.2f}")
    if not campaign_exists(engine, "empty"):
        import_campaign(engine, EMPTY_CSV, "empty", filename="empty.csv")
    engine.dispose()


def undo_one_label(db: Path) -> None:
    """Append an undo of the newest current label: a real log event that changes the key."""
    from db.engine import make_engine, session_scope
    from db.judging.log import append
    from db.judging.log_export import annotation_log
    from db.reads.campaign import campaign_id

    engine = make_engine(f"sqlite:///{db}")
    last = [r for r in annotation_log(engine, campaign_id(engine, "wmt")) if r["kind"] == "label"][
        -1
    ]
    with session_scope(engine) as s:
        from db.schema.models import Annotation

        ann = s.get(Annotation, last["annotation_id"])
        append(
            s,
            output_id=ann.output_id,
            annotator_id=ann.annotator_id,
            kind="undo",
            supersedes_id=ann.id,
        )
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, default=None, help="reuse/create this SQLite file")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"needs {DATA} (the shared evaluation data)")
    db = args.db or Path(tempfile.mkdtemp()) / "wmt.db"
    setup(db)
    os.environ["DATABASE_URL"] = f"sqlite:///{db}"

    from streamlit.testing.v1 import AppTest

    def page(campaign: str) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.session_state["role"] = "admin"
        at.session_state["current_campaign"] = campaign
        at.session_state["dash-live"] = False  # time reruns, not the timer
        at.run()
        at.switch_page("views/pages/dashboard.py").run()
        if at.exception:
            raise RuntimeError(at.exception)
        return at

    def timed(at: AppTest) -> float:
        t = time.perf_counter()
        at.run()
        took = time.perf_counter() - t
        if at.exception:
            raise RuntimeError(at.exception)
        return took

    empty_at = page("empty")
    empty = [timed(empty_at) for _ in range(args.repeat)]
    t = time.perf_counter()
    wmt_at = page("wmt")
    first = time.perf_counter() - t
    warm = [timed(wmt_at) for _ in range(args.repeat)]
    cold = []
    for _ in range(args.repeat):
        undo_one_label(db)
        cold.append(timed(wmt_at))
    shown = wmt_at.dataframe[0].value
    assert len(shown) == 13, "the WMT dashboard shows 13 systems"

    e = statistics.median(empty)
    print(f"database: {db}")
    print(f"empty rerun (campaign without labels): {e:.3f} s (median of {args.repeat})")
    print(f"first WMT render (two reruns incl. page switch, cold cache): {first:.3f} s")
    for label, xs in (("warm refresh (nothing changed)", warm),
                      ("cold refresh (after a new log event)", cold)):  # fmt: skip
        m = statistics.median(xs)
        print(f"{label}: {m:.3f} s = {m / e:.1f} × empty rerun (min {min(xs):.3f}, "
              f"max {max(xs):.3f})")  # fmt: skip


if __name__ == "__main__":
    main()
