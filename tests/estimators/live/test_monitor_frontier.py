"""Labels that arrive out of queue order (annotators work in parallel): the live monitor uses
only the gap-free prefix of the position order (positions before ``CampaignData.open_from``),
so the reported anytime p-values never increase between two dashboard reads."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from estimators.report.campaign_report import campaign_report
from tests.estimators.live.test_monitor_missing import SIG, gappy_campaign

LATE = 30  # a label arrives up to 30 positions after its slot's turn


def _take(values, index):  # type: ignore[no-untyped-def]
    """A judgment field cut to ``index``; optional fields (None, e.g. esa_score) stay None."""
    return None if values is None else values[index]


def arrival_order(n: int, seed: int, late: int = LATE) -> np.ndarray:
    """Positions in the order their labels are submitted: position p is answered at time
    p + U(0, late), so a label can be overtaken by labels up to ``late`` positions later."""
    rng = np.random.default_rng(seed)
    return np.argsort(np.arange(n) + rng.uniform(0, late, n), kind="stable")


def read_after(data, arrived: np.ndarray, n: int):
    """What db.reads.campaign returns once the labels at ``arrived`` positions are in: the current
    judgments in position order; every other slot is still open or claimed."""
    keep = np.sort(arrived)
    j = data.judgments
    cut = type(j)(**{f: _take(getattr(j, f), keep) for f in j.__dataclass_fields__})
    missing = np.setdiff1d(np.arange(n), keep)
    open_from = float(missing[0]) if missing.size else math.inf
    return dataclasses.replace(data, judgments=cut, open_from=open_from)


@pytest.mark.slow
@pytest.mark.parametrize("signatures", [[], [SIG]], ids=["no metric", "metric"])
def test_pvalues_never_increase_when_labels_arrive_out_of_order(signatures):
    """Read the dashboard every 8 submissions while labels arrive up to 30 positions late:
    every pair's raw and Holm p-value is at most the previous read's. Without the frontier
    (all arrived labels in the monitor) the p-values rose at some reads."""
    data, _ = gappy_campaign(score_gaps=True)
    n = len(data.judgments)
    order = arrival_order(n, seed=3)
    last_p = last_holm = None
    held_seen = compared = 0
    reads = [*range(100, n, 8), n]
    for t in reads:
        view = read_after(data, order[:t], n)
        rep = campaign_report(view, signatures=signatures)
        held = int((view.judgments.position >= view.open_from).sum())
        held_seen = max(held_seen, held)
        if held:
            assert any(f"{held} label(s) wait for earlier queue positions" in x for x in rep.notes)
        if rep.monitor is None:
            continue
        p = np.array([pr.p_value for pr in rep.monitor.pairs])
        holm = np.array([pr.p_holm for pr in rep.monitor.pairs])
        if last_p is not None:
            assert np.all(p <= last_p), (t, p, last_p)
            assert np.all(holm <= last_holm), (t, holm, last_holm)
            compared += 1
        last_p, last_holm = p, holm
    assert compared >= len(reads) // 2  # the monotonicity check really ran at most reads
    assert held_seen > 0  # the simulation did overtake
    assert rep.monitor.pairs[0].decided  # the final read has every label (census)
    assert rep.monitor.systems[0].result.n_human == int((data.judgments.system == 0).sum())
