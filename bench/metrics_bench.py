"""Metric scoring throughput on WMT21 TED en-de, and how each metric agrees with MQM.

Imports ../shared/data/wmt21-ted-mqm/wmt21_ted_ende.csv (6,877 outputs) into a fresh SQLite
database, then in one process:

1. a plain single-process loop over sacrebleu's ``sentence_bleu`` / ``sentence_chrf`` (chrF
   and chrF++) / ``sentence_ter`` vs our :func:`metrics.scoring.score_campaign` for the same
   four metrics (process pool over all cores, database reads and writes included);
2. ``bert_score.score`` with the same model and layer vs our BERTScore batch scoring;
3. a re-run of our scoring on the unchanged campaign (everything already stored);
4. per metric: Pearson and Spearman correlation with ``human_score`` (−MQM), the Youden
   threshold calibrated on ``human_label_binary`` (no Major error), and ρ (TPR) / η (TNR)
   with 95% Beta credible intervals, overall and the range over the 13 systems.

Goals: sacrebleu ≥ 1.5× the plain loop, BERTScore ≥ 1.0× bert_score.score, re-run ≥ 50×
faster than the first run.
Usage: ``python bench/metrics_bench.py [--limit N] [--sacrebleu-only]``.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "wmt21-ted-mqm" / "wmt21_ted_ende.csv"


def plain_sacrebleu(hyps: list[str], refs: list[str]) -> dict[str, list[float]]:
    import sacrebleu

    pairs = list(zip(hyps, refs, strict=True))
    return {
        "bleu": [sacrebleu.sentence_bleu(h, [r]).score for h, r in pairs],
        "chrf": [sacrebleu.sentence_chrf(h, [r]).score for h, r in pairs],
        "chrf++": [sacrebleu.sentence_chrf(h, [r], word_order=2).score for h, r in pairs],
        "ter": [sacrebleu.sentence_ter(h, [r]).score for h, r in pairs],
    }


def stored_scores(engine, cid: int, signature: str) -> dict[tuple[str, str], float]:  # type: ignore[no-untyped-def]
    """Stored scores of a signature by (external item id, system), read the way the app
    reads them (:func:`db.reads.campaign.read_campaign`); outputs without a score left out."""
    from db.reads.campaign import read_campaign

    data = read_campaign(engine, cid, [signature])
    grid = data.scores[signature]
    return {
        (item, system): float(grid[i, j])
        for i, system in enumerate(data.systems)
        for j, item in enumerate(data.item_ids)
        if data.output_ids[i, j] >= 0 and grid[i, j] == grid[i, j]  # NaN: no score
    }


CPU: dict[str, float] = {}


def timed(fn, name: str = ""):  # type: ignore[no-untyped-def]
    """Wall-clock seconds of ``fn()``; its CPU seconds (worker processes included) → CPU."""
    t0 = os.times()
    start = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - start
    t1 = os.times()
    CPU[name] = sum(t1[i] - t0[i] for i in range(4))  # user+system, self and children
    return out, wall


def load() -> str:
    """The 1-minute load average: wall-clock ratios mean little on a busy machine."""
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N rows only")
    parser.add_argument(
        "--sacrebleu-only", action="store_true", help="only the sacrebleu comparison"
    )
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: needs {DATA} (shared evaluation data, not in the repository)")
        return 0

    import numpy as np
    from scipy import stats

    from annotation.imports.importer import import_campaign
    from annotation.results.calibration import calibrate_and_save
    from db.engine import make_engine
    from db.migrate import upgrade
    from metrics.bertscore import BertScoreMetric
    from metrics.sacrebleu_metrics import SACREBLEU_KEYS
    from metrics.scoring import score_campaign

    with DATA.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    if args.limit:
        rows = rows[: args.limit]
    n = len(rows)
    hyps = [r["output"] for r in rows]
    refs = [r["reference"] for r in rows]
    human = {(r["item_id"], r["system"]): float(r["human_score"]) for r in rows}

    tmp = Path(tempfile.mkdtemp(prefix="metrics-bench-"))
    engine = make_engine(f"sqlite:///{tmp / 'bench.db'}")
    upgrade(engine)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    imported = import_campaign(
        engine,
        buf.getvalue().encode(),
        "wmt21-ted-ende",
        filename="wmt21_ted_ende.csv",
        column_map={"human_label": "human_label_binary"},
        settings={"target_lang": "de", "source_lang": "en"},
    )
    cid = imported.campaign_id
    print(f"{n:,} outputs of WMT21 TED en-de imported; {load()}")

    # --- sacrebleu -----------------------------------------------------------------------
    plain, t_plain = timed(lambda: plain_sacrebleu(hyps, refs), "plain")
    report_s, t_ours = timed(lambda: score_campaign(engine, cid, ",".join(SACREBLEU_KEYS)), "ours")
    for key in SACREBLEU_KEYS:  # same values as the plain loop (spot check via the stored rows)
        got = stored_scores(engine, cid, report_s.run(key).signature)
        exp = {(r["item_id"], r["system"]): v for r, v in zip(rows, plain[key], strict=True)}
        assert got == exp, f"{key}: stored scores differ from sacrebleu's"
    print("\nsacrebleu (bleu, chrf, chrf++, ter; 4 scores per output)")
    print(
        f"  plain loop over sentence_*: {t_plain:7.2f} s  {n / t_plain:8.1f} outputs/s"
        f"  (CPU {CPU['plain']:.1f} s)"
    )
    print(
        f"  ours (score_campaign):      {t_ours:7.2f} s  {n / t_ours:8.1f} outputs/s"
        f"  (CPU {CPU['ours']:.1f} s, workers included)"
    )
    print(f"  ratio ours/plain: {t_plain / t_ours:.2f}x (goal >= 1.5x); {load()}")

    if args.sacrebleu_only:
        return 0

    # --- BERTScore -------------------------------------------------------------------------
    import bert_score  # import (not model loading) kept out of both timings

    model = BertScoreMetric().spec
    (_, _, F), t_bs = timed(
        lambda: bert_score.score(hyps, refs, model_type=model.path, num_layers=model.num_layers),
        "bert_score",
    )
    report_b, t_ob = timed(lambda: score_campaign(engine, cid, "bertscore"), "ours_bs")
    got_f = stored_scores(engine, cid, report_b.run("bertscore_f").signature)
    diff = max(
        abs(got_f[(r["item_id"], r["system"])] - float(f)) for r, f in zip(rows, F, strict=True)
    )
    print(
        f"\nBERTScore ({model.label}, layer {model.num_layers}; "
        f"max |ours − bert_score| of F = {diff:.2e})"
    )
    print(
        f"  bert_score.score:           {t_bs:7.2f} s  {n / t_bs:8.1f} outputs/s"
        f"  (CPU {CPU['bert_score']:.1f} s)"
    )
    print(
        f"  ours (score_campaign):      {t_ob:7.2f} s  {n / t_ob:8.1f} outputs/s"
        f"  (CPU {CPU['ours_bs']:.1f} s)"
    )
    print(f"  ratio ours/bert_score: {t_bs / t_ob:.2f}x (goal >= 1.0x); {load()}")

    # --- re-run on unchanged data ----------------------------------------------------------
    again, t_re = timed(lambda: score_campaign(engine, cid, "bleu,chrf,chrf++,ter,bertscore"))
    assert again.n_scored == 0
    first = t_ours + t_ob
    print(
        f"\nre-run, nothing new: {t_re:.3f} s vs first run {first:.1f} s: "
        f"{first / t_re:.0f}x faster (goal >= 50x)"
    )

    # --- agreement with MQM ------------------------------------------------------------------
    print("\nWMT21 TED en-de: correlation with human_score (−MQM) and ρ/η at the Youden threshold")
    print(
        "| metric | Pearson | Spearman | threshold | ρ (TPR) [95% CrI] | η (TNR) [95% CrI] "
        "| ρ over systems | η over systems | AUC |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for run in report_s.runs + report_b.runs:
        scores = stored_scores(engine, cid, run.signature)
        g = np.array(list(scores.values()))
        h = np.array([human[key] for key in scores])
        pearson = stats.pearsonr(g, h).statistic
        spearman = stats.spearmanr(g, h).statistic
        cal = calibrate_and_save(engine, cid, run.signature)
        o = cal.overall
        rhos = [a.rho.estimate for a in cal.per_system.values()]
        etas = [a.eta.estimate for a in cal.per_system.values()]
        op = "≥" if cal.higher_is_better else "≤"
        print(
            f"| {run.key} | {pearson:.3f} | {spearman:.3f} | {op} {cal.threshold:.4g} | "
            f"{o.rho.estimate:.3f} [{o.rho.lower:.3f}, {o.rho.upper:.3f}] | "
            f"{o.eta.estimate:.3f} [{o.eta.lower:.3f}, {o.eta.upper:.3f}] | "
            f"{min(rhos):.3f}–{max(rhos):.3f} | {min(etas):.3f}–{max(etas):.3f} | "
            f"{cal.roc.auc:.3f} |"
        )
    print(f"(n = {o.n:,} labelled outputs; {o.tp + o.fn:,} adequate)")
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
