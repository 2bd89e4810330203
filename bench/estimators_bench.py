"""How long does one dashboard refresh of every estimator take?

14 systems (91 pairs), 10,000 outputs each with a metric score (and its thresholded binary
verdict), 500 human labels per system on the same items (paired design). One refresh =
every per-system estimator for every system and every pairwise estimator for every pair,
plus the live "labels still needed" for all pairs. Compared with reading the arrays into
numpy the way the dashboard gets them (rows of Python floats from the database → arrays),
and with np.load of the same arrays from .npy files. Goal: well under one Streamlit rerun
(< 0.2 s).

    .venv/bin/python bench/estimators_bench.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

import numpy as np

from estimators.fixed_n.control_variates import chaganty_mean, ppi_mean, ppi_paired_difference
from estimators.fixed_n.double_sampling import per_system, per_system_difference
from estimators.fixed_n.human import binary_beta, binary_wilson, mean_t, paired_difference
from estimators.fixed_n.vondaniken import (
    calibration_counts,
    metric_only_calibrated,
    per_system_posterior,
    shared_rate,
)
from estimators.planning.labels_needed import labels_still_needed
from tests.support.simulation import binary_metric, make_pool

SYSTEMS, OUTPUTS, LABELS = 14, 10_000, 500


def make_data(seed: int = 0):
    rng = np.random.default_rng(seed)
    pool = make_pool(rng, OUTPUTS, np.linspace(-0.3, 0.3, SYSTEMS), r=0.6)
    m = binary_metric(pool)
    lab = rng.choice(OUTPUTS, LABELS, replace=False)
    y = np.stack([pool.draw_labels(rng, lab, s) for s in range(SYSTEMS)])
    return pool.g, m, lab, y


def refresh(g: np.ndarray, m: np.ndarray, lab: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Every estimator once; returns seconds per family."""
    unl = np.setdiff1d(np.arange(g.shape[1]), lab)
    # the labelled / unlabelled split, once per refresh (the database read returns it so)
    g_lab, g_unl, m_lab, m_unl = g[:, lab], g[:, unl], m[:, lab], m[:, unl]
    times: dict[str, float] = {}

    def clock(name: str, fn) -> None:
        t = time.perf_counter()
        fn()
        times[name] = time.perf_counter() - t

    def human():
        for s in range(SYSTEMS):
            h = int(y[s].sum())
            binary_beta(h, LABELS), binary_wilson(h, LABELS), mean_t(y[s])

    def cv():
        for s in range(SYSTEMS):
            ppi_mean(y[s], g_lab[s], g_unl[s]), chaganty_mean(y[s], g_lab[s], g_unl[s])

    def vondaniken():
        for s in range(SYSTEMS):
            per_system(y[s], m_lab[s], m[s])
            per_system_posterior(y[s], m_lab[s], m_unl[s])
            cal = calibration_counts(y[s], m_lab[s])
            metric_only_calibrated(m_unl[s].sum(), unl.size, cal)
        shared_rate(list(y), list(m_lab), list(m_unl))

    results = []

    def pairs():
        for a in range(SYSTEMS):
            for b in range(a + 1, SYSTEMS):
                results.append(paired_difference(y[a], y[b]))
                for c in ("difference", "both"):
                    ppi_paired_difference(
                        y[a], y[b], g_lab[a], g_lab[b], g_unl[a], g_unl[b], controls=c
                    )
                per_system_difference(y[a], y[b], m_lab[a], m_lab[b], m[a], m[b])

    def planner():
        labels_still_needed(
            [r.estimate for r in results], [r.se for r in results], [r.n_human for r in results]
        )

    for name, fn in (
        ("human-only (3 x 14)", human),
        ("CV / PPI++ (2 x 14)", cv),
        ("von Däniken (3 x 14 + shared)", vondaniken),
        ("pairs (4 x 91)", pairs),
        ("labels still needed (91)", planner),
    ):
        clock(name, fn)
    return times


def learned_fit(g: np.ndarray, lab: np.ndarray, y: np.ndarray, seed: int = 1):
    """The cross-fitted ŷ from three metrics (g and two noisier copies): the refit the
    dashboard does only when the label count has doubled (estimators.fixed_n.learned)."""
    from estimators.fixed_n.learned import learned_grid

    rng = np.random.default_rng(seed)
    feats = np.stack([g, g + rng.standard_normal(g.shape), g + rng.standard_normal(g.shape)], -1)
    labelled = np.zeros(g.shape, dtype=bool)
    labelled[:, lab] = True
    y_grid = np.full(g.shape, np.nan)
    y_grid[:, lab] = y
    return learned_grid(feats, y_grid, labelled, np.ones(g.shape, dtype=bool))


def refresh_learned(grid: np.ndarray, lab: np.ndarray, y: np.ndarray) -> float:
    """PPI++ with the cached ŷ as control for every system and pair (seconds)."""
    t = time.perf_counter()
    unl = np.setdiff1d(np.arange(grid.shape[1]), lab)
    h_lab, h_unl = grid[:, lab], grid[:, unl]
    for s in range(SYSTEMS):
        ppi_mean(y[s], h_lab[s], h_unl[s], ddof=2)
    for a in range(SYSTEMS):
        for b in range(a + 1, SYSTEMS):
            ppi_paired_difference(y[a], y[b], h_lab[a], h_lab[b], h_unl[a], h_unl[b], ddof=2)
    return time.perf_counter() - t


def read_from_rows(rows_g, rows_m, rows_y, lab_list):
    return (
        np.asarray(rows_g, dtype=float),
        np.asarray(rows_m, dtype=float),
        np.asarray(lab_list, dtype=np.int64),
        np.asarray(rows_y, dtype=float),
    )


def best_of(fn, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    g, m, lab, y = make_data()
    rows = (g.tolist(), m.tolist(), y.tolist(), lab.tolist())
    read_rows = best_of(lambda: read_from_rows(rows[0], rows[1], rows[2], rows[3]))
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, arr in (("g", g), ("m", m), ("lab", lab), ("y", y)):
            path = Path(tmp) / f"{name}.npy"
            np.save(path, arr)
            paths.append(path)
        read_npy = best_of(lambda: [np.load(p) for p in paths])
    refresh(g, m, lab, y)  # warm caches (quantiles, quadrature nodes)
    runs = [refresh(g, m, lab, y) for _ in range(5)]
    totals = [sum(r.values()) for r in runs]
    best = runs[int(np.argmin(totals))]
    total = min(totals)
    print(f"{SYSTEMS} systems, {SYSTEMS * (SYSTEMS - 1) // 2} pairs, {OUTPUTS:,} outputs and "
          f"{LABELS} human labels per system")  # fmt: skip
    for name, sec in best.items():
        print(f"  {name:32s} {sec * 1e3:8.1f} ms")
    print(f"whole refresh (best of 5)         {total * 1e3:8.1f} ms   (median "
          f"{np.median(totals) * 1e3:.1f} ms)")  # fmt: skip
    for label, sec in (("rows → numpy", read_rows), ("np.load(.npy)", read_npy)):
        print(f"read arrays: {label:21s} {sec * 1e3:8.1f} ms   refresh/read = {total / sec:.1f}x")
    print(f"goal < 200 ms: {'met' if total < 0.2 else 'NOT met'}")
    t = time.perf_counter()
    fit = learned_fit(g, lab, y)
    refit = time.perf_counter() - t
    extra = min(refresh_learned(fit.values, lab, y) for _ in range(5))
    print(
        f"learned control ŷ ({fit.model}, {fit.folds} folds, {fit.n_labels:,} labels): refit "
        f"{refit:.2f} s, only when the labels double; with ŷ cached a refresh adds "
        f"{extra * 1e3:.1f} ms (14 + 91 PPI++) → {(total + extra) * 1e3:.1f} ms = "
        f"{(total + extra) / read_rows:.1f}x rows → numpy; goal < 200 ms: "
        f"{'met' if total + extra < 0.2 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
