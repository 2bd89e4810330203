"""Ranking with WMT-style significance clusters (estimators.live.ranking)."""

from __future__ import annotations

import csv
import io

import numpy as np

from estimators.live.monitor import CampaignMonitor
from estimators.live.ranking import clusters, ranking_csv, ranking_latex, ranking_rows


def test_a_boundary_needs_every_system_above_to_beat_every_system_below():
    order = ["A", "B", "C", "D"]
    # A beats everyone, B and C tie, both beat D — but C does not beat D: no boundary there
    better = {("A", "B"), ("A", "C"), ("A", "D"), ("B", "D")}
    assert clusters(order, better) == [1, 2, 2, 2]
    better.add(("C", "D"))
    assert clusters(order, better) == [1, 2, 2, 3]
    assert clusters(order, set()) == [1, 1, 1, 1]
    # a chain of adjacent wins alone is no boundary (A > B, B > C, but not A > C): WMT's rule
    # asks for all pairs across the boundary
    assert clusters(["A", "B", "C"], {("A", "B"), ("B", "C")}) == [1, 1, 1]


def _census(means: list[float], n: int = 120) -> CampaignMonitor:
    k = len(means)
    y = np.zeros((k, n))
    for s, m in enumerate(means):
        y[s, : round(m * n)] = 1.0
    rng = np.random.default_rng(0)
    order = rng.permutation(n)
    items, sys = np.repeat(order, k), np.tile(np.arange(k), n)
    return CampaignMonitor(
        [None] * k, items, sys, y[sys, items], np.arange(items.size, dtype=float),
        np.ones(items.size), present=np.ones((k, n), bool), finite_pool=True,
        names=["low", "top", "mid", "mid2"][:k],
    )  # fmt: skip


def test_at_the_census_the_clusters_are_the_exact_order_up_to_ties():
    rep = _census([0.2, 0.9, 0.5, 0.5]).report()
    rows = ranking_rows(rep)
    assert [r["system"] for r in rows] == ["top", "mid", "mid2", "low"]
    assert [r["cluster"] for r in rows] == [1, 2, 2, 3]
    assert rows[0]["better_than"] == 3 and rows[-1]["worse_than"] == 3
    assert rows[1]["better_than"] == 1  # mid beats only low; mid2 is exactly equal
    # lower is better (an error rate): the order turns over
    flipped = ranking_rows(rep, higher_is_better=False)
    assert flipped[0]["system"] == "low"


def test_csv_and_latex_carry_every_row_and_the_cluster_rules():
    rows = ranking_rows(_census([0.2, 0.9, 0.5, 0.5]).report())
    back = list(csv.DictReader(io.StringIO(ranking_csv(rows).decode())))
    assert [r["system"] for r in back] == [r["system"] for r in rows]
    assert back[0]["alpha"] == "0.05" and back[0]["cluster"] == "1"
    tex = ranking_latex(rows)
    body = tex.split(r"\midrule", 1)[1]
    assert body.count(r"\midrule") == 2  # three clusters: two rules between them
    assert "top" in tex and r"\alpha = 0.05" in tex


def test_the_pairs_export_carries_alpha():
    from annotation.results.result_exports import PAIR_COLUMNS

    rep = _census([0.2, 0.9]).report()
    assert "alpha" in PAIR_COLUMNS
    assert [r["alpha"] for r in rep.rows()] == [0.05]
