"""Documents as the sampling unit: coverage and false claims with known truth.

A document-ordered queue draws whole documents (segments in document order) from a pool of
M = 2J documents until J are complete; labels of two systems come from the latent model of
:mod:`tests.support.doc_simulation`, with the intra-document correlation (ICC) of the paired
differences set from 0 to ≈ 0.3 (the shipped WMT21 TED en-de file measures ≈ 0.02, with an
interval up to ≈ 0.19 from its 5 talks — printed first). Per cell, ``--runs`` pools:

- fixed-n coverage of the 95 % interval for the pool's paired difference (A latent 0.3
  above B): the document-unit ratio interval (:func:`estimators.documents.clustered.ratio_interval`,
  finite-population correction over the M documents) against the segment-unit t interval
  on the same labels (:func:`estimators.documents.clustered.segment_interval`);
- anytime false-claim rate of the live monitor at a true null (the pool's difference exactly
  0: mirrored documents), α = 0.05, p-values read after every completed document
  (document unit: :func:`estimators.documents.clustered.document_paths`) or after every label
  (segment unit: the monitor's asympcs design on the segment differences, the formula a
  segment-drawing queue would use);
- anytime miss rate of the live document-unit sequence at the non-null pools.

Run: ``.venv/bin/python bench/document_unit_bench.py [--runs 2000]`` (≈ 2–3 minutes).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from estimators.documents import clustered as cl
from estimators.sequences import sequential as seq
from estimators.sequences.designs import LiveDesign, design_paths
from tests.support.doc_simulation import DocPool, difference_icc, document_pool, queue_order

ALPHA = 0.05
#: σ_b of the latent model → ICC of the differences ≈ 0, 0.02 (WMT21 TED), 0.1, 0.3
SCENARIOS = (0.0, 0.22, 0.5, 1.0)
DOCS = (10, 30, 50, 100, 200)
SKEWED_DOCS = (5, 10, 20, 30, 50)
WMT = Path(__file__).resolve().parents[2] / "shared/data/wmt21-ted-mqm/wmt21_ted_ende.csv"


def _first_docs(pool: DocPool, order: np.ndarray, j: int) -> tuple[np.ndarray, int]:
    """Item order and the number of labels when the first j drawn documents are complete."""
    doc_seq = pool.item_doc[order]
    starts = np.flatnonzero(np.r_[True, np.diff(doc_seq) != 0])
    return order, int(starts[j]) if j < starts.size else order.size


def _doc_sums(pool: DocPool, order: np.ndarray, n_labels: int) -> cl.DocumentSums:
    items = order[:n_labels]
    d = pool.y[0] - pool.y[1]
    return cl.document_sums(
        pool.item_doc, np.ones(pool.item_doc.size, bool), items, d[items],
        np.arange(n_labels, dtype=float),
    )  # fmt: skip


def _coverage_run(rng, j: int, sd_b: float) -> tuple[bool, bool, bool]:  # type: ignore[no-untyped-def]
    """(document interval covers, segment interval covers, live document CS never missed)."""
    pool = document_pool(rng, 2 * j, sd_sys_doc=sd_b, gap=0.3)
    order, n_lab = _first_docs(pool, queue_order(rng, pool), j)
    sums = _doc_sums(pool, order, n_lab)
    truth = pool.delta
    doc = cl.ratio_interval(sums.total, sums.size, pool_docs=pool.n_docs)
    d = (pool.y[0] - pool.y[1])[order[:n_lab]]
    segment = cl.segment_interval(d, pool_items=pool.item_doc.size)
    live = True
    if j >= seq.BURN_IN:
        cs, _ = _doc_live(pool, sums, theta0=None)
        live = bool(cs.lower[-1] <= truth <= cs.upper[-1])
    return doc.low <= truth <= doc.high, segment.low <= truth <= segment.high, live


def _skewed_coverage(rng, j: int, sd_b: float) -> bool:  # type: ignore[no-untyped-def]
    """Document interval coverage with TED-like skewed sizes (3–150 segments)."""
    pool = document_pool(rng, 2 * j, sd_sys_doc=sd_b, gap=0.3, sizes=(3, 150))
    order, n_lab = _first_docs(pool, queue_order(rng, pool), j)
    sums = _doc_sums(pool, order, n_lab)
    r = cl.ratio_interval(sums.total, sums.size, pool_docs=pool.n_docs)
    return bool(r.low <= pool.delta <= r.high)


def _doc_live(pool: DocPool, sums: cl.DocumentSums, theta0):  # type: ignore[no-untyped-def]
    inc = cl.document_increments(sums, finite_pool=True)
    prior = cl.document_var_prior(sums, span=2.0)
    return cl.document_paths(
        inc, level=ALPHA, alpha_tuning=ALPHA, t_star=pool.n_docs, theta0=theta0,
        var_prior=prior,
    )  # fmt: skip


def _null_run(rng, j: int, sd_b: float) -> tuple[bool, bool]:  # type: ignore[no-untyped-def]
    """(document-unit monitor ever claimed a winner, segment-unit monitor ever did)."""
    pool = document_pool(rng, 2 * j, sd_sys_doc=sd_b, mirror=True)
    order, n_lab = _first_docs(pool, queue_order(rng, pool), j)
    sums = _doc_sums(pool, order, n_lab)
    _, p_doc = _doc_live(pool, sums, theta0=0.0)
    d = (pool.y[0] - pool.y[1])[order[:n_lab]]
    inc = seq.cv_increments(d, None, pool_size=pool.item_doc.size)
    _, p_seg = design_paths(
        LiveDesign.ASYMPCS, inc.z, level=ALPHA, alpha=ALPHA, theta0=0.0,
        t_star=pool.item_doc.size, var_prior=1.0,
    )  # fmt: skip
    return bool(p_doc[-1] <= ALPHA), bool(p_seg[-1] <= ALPHA)


def wmt_icc() -> list[str]:
    """The intra-document correlation of the shipped WMT21 TED en-de file (5 talks)."""
    if not WMT.exists():
        return [f"WMT21 TED file not found at {WMT}: ICC not measured"]
    import csv

    rows = list(csv.DictReader(WMT.open(encoding="utf-8")))
    by_sys: dict[str, dict[str, float]] = {}
    doc_of: dict[str, str] = {}
    for r in rows:
        by_sys.setdefault(r["system"], {})[r["item_id"]] = float(r["human_label_binary"])
        doc_of[r["item_id"]] = r["doc"]
    systems = sorted(by_sys)
    lab = [cl.icc_anova(list(v.values()), [doc_of[i] for i in v]) for v in by_sys.values()]
    diffs = []
    for x in range(len(systems)):
        for y in range(x + 1, len(systems)):
            a, b = by_sys[systems[x]], by_sys[systems[y]]
            common = sorted(set(a) & set(b))
            diffs.append(cl.icc_anova([a[i] - b[i] for i in common], [doc_of[i] for i in common]))
    med = sorted(diffs, key=lambda r: r.icc)[len(diffs) // 2]
    lab_icc = np.array([r.icc for r in lab])
    return [
        f"WMT21 TED en-de: {len(set(doc_of.values()))} talks, {len(doc_of)} segments, "
        f"{len(systems)} systems (binary label)",
        f"  ICC of labels, per system: median {np.median(lab_icc):.3f} "
        f"(range {lab_icc.min():.3f}..{lab_icc.max():.3f})",
        f"  ICC of paired differences, {len(diffs)} pairs: median {med.icc:.3f}, its 95 % "
        f"interval {med.low:.3f}..{med.high:.3f} (Searle, 5 documents: rough)",
        f"  design effect at that ICC with talks of ≈ {med.n0:.0f} segments: "
        f"{1 + (med.n0 - 1) * med.icc:.1f}",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261124)
    args = ap.parse_args()
    start = time.perf_counter()
    print("\n".join(wmt_icc()))
    rng = np.random.default_rng(args.seed)
    print(
        f"\n{args.runs:,} runs per cell; pool M = 2J documents of 5–30 segments; α = {ALPHA}; "
        "MC-SE of a 0.95 coverage ≈ 0.005, of a 0.05 rate ≈ 0.005\n"
    )
    head = (
        f"{'ICC(Δ)':>7} {'docs J':>6} {'labels':>7} | {'doc CI cov':>10} {'seg CI cov':>10} "
        f"| {'doc false claim':>15} {'seg false claim':>15} | {'doc CS miss':>11}"
    )
    print(head)
    print("-" * len(head))
    for sd_b in SCENARIOS:
        icc = difference_icc(np.random.default_rng(1), sd_sys_doc=sd_b)[1]
        for j in DOCS:
            cov = np.array([_coverage_run(rng, j, sd_b) for _ in range(args.runs)])
            null = np.array([_null_run(rng, j, sd_b) for _ in range(args.runs)])
            live_miss = f"{1 - cov[:, 2].mean():11.3f}" if j >= seq.BURN_IN else f"{'burn-in':>11}"
            print(
                f"{icc:7.3f} {j:6d} {j * 17.5:7.0f} | {cov[:, 0].mean():10.3f} "
                f"{cov[:, 1].mean():10.3f} | {null[:, 0].mean():15.3f} "
                f"{null[:, 1].mean():15.3f} | {live_miss}"
            )
    print(
        "\nMinimum documents: coverage of the document interval with sizes 3–150 (as skewed "
        "as the WMT21 TED talks, 31–159)"
    )
    print(f"{'ICC(Δ)':>7} " + " ".join(f"{f'J={j}':>7}" for j in SKEWED_DOCS))
    for sd_b in SCENARIOS[2:]:
        icc = difference_icc(np.random.default_rng(1), sd_sys_doc=sd_b)[1]
        cover = [
            np.mean([_skewed_coverage(rng, j, sd_b) for _ in range(args.runs)]) for j in SKEWED_DOCS
        ]
        print(f"{icc:7.3f} " + " ".join(f"{c:7.3f}" for c in cover))
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
