"""The asymptotic confidence sequence mixed over planned sizes (estimators.sequences.mixture):
one term is AsympCS itself; the interval at level a excludes θ0 exactly when the p-value is
≤ a; the running intersection is nested; family-wise false claims at true nulls (pairs of
permuted real or real-like scores, Holm over all pairs, read after every label up to the
census) stay at most α. The fast test runs a few hundred synthetic campaigns, the slow one
≥ 2,000 per shipped pool and kind (ESA and DA are one code path: the same [0, 1] range and
design, so the ESA-like MQM pools stand for both)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from estimators.base.multiple import holm, pairs
from estimators.base.result import MIN_LABELS_FOR_VERDICT
from estimators.sequences import confidence_sequences as csq
from estimators.sequences import mixture
from estimators.sequences.sequential import BURN_IN, cv_increments
from tests.conftest import shared_file
from tests.support.simulation import permuted_nulls

ALPHA = 0.05


def test_planned_sizes_double_from_the_floor_to_the_pool():
    assert mixture.planned_sizes(1418) == (30, 60, 120, 240, 480, 960, 1418)
    assert mixture.planned_sizes(30) == (30,)
    assert mixture.planned_sizes(10) == (30,)
    assert mixture.planned_sizes(60) == (30, 60)


def test_one_size_is_asympcs_itself():
    z = 0.05 + 0.2 * np.random.default_rng(0).standard_normal(400)
    one = mixture.mixture_cs(z, 0.05, t_max=30, alpha_tuning=0.01, running_intersection=False)
    ref = csq.asymptotic_cs(z, 0.05, t_star=30, alpha_tuning=0.01)
    np.testing.assert_allclose(one.lower[29:], ref.lower[29:], rtol=0, atol=1e-12)
    np.testing.assert_allclose(one.upper[29:], ref.upper[29:], rtol=0, atol=1e-12)
    p = mixture.mixture_pvalue(z, 0.0, t_max=30, alpha_tuning=0.01)
    np.testing.assert_allclose(p, csq.asymptotic_cs_pvalue(z, 0.0, t_star=30, alpha_tuning=0.01),
                               rtol=1e-10, atol=1e-300)  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_the_interval_excludes_zero_exactly_when_the_pvalue_reaches_the_level(seed):
    rng = np.random.default_rng(seed)
    z = rng.choice([-0.3, 0.0, 0.0, 0.1, 0.25], 700) + 0.02 * rng.standard_normal(700)
    p = mixture.mixture_pvalue(z, 0.0, t_max=700, alpha_tuning=ALPHA / 45)
    for level in (ALPHA / 45, ALPHA / 20, ALPHA / 2, ALPHA):
        cs = mixture.mixture_cs(z, level, t_max=700, alpha_tuning=ALPHA / 45)
        out = ~((cs.lower <= 0.0) & (cs.upper >= 0.0))
        np.testing.assert_array_equal(out, p <= level)
        lo, hi = cs.lower[BURN_IN - 1 :], cs.upper[BURN_IN - 1 :]
        assert (np.diff(lo) >= 0).all() and (np.diff(hi) <= 0).all()  # nested
        assert (lo <= hi).all()
    # the threshold is the root: just below it M < 1/α, at it M ≥ 1/α
    t = np.arange(1, 701, dtype=float)
    u = mixture._threshold(700, mixture.planned_sizes(700), ALPHA / 45, ALPHA)
    c, b = mixture._terms(t, mixture.planned_sizes(700), ALPHA / 45)
    thr = math.log(1 / ALPHA)
    assert (mixture._log_m(u, c, b) >= thr).all()
    assert (mixture._log_m(u * (1 - 1e-12), c, b) < thr).all()


def _fwer(yo: np.ndarray) -> float:
    """Share of null campaigns (R, N, k) with any pair rejected by Holm at a read with at
    least the verdict floor of labels, the pairs' p-values as the monitor computes them under
    asympcs_mix (Des Raj increments of the pool, no variance prior, the known-part rule)."""
    _, n, k = yo.shape
    m = len(pairs(k))
    t = np.arange(1, n + 1)
    ps = []
    for a, b in pairs(k):
        d = yo[:, :, a] - yo[:, :, b]
        z = cv_increments(d, None, pool_size=n).z
        p = mixture.mixture_pvalue(z, 0.0, t_max=n, alpha_tuning=ALPHA / m)
        p = np.where(np.abs(np.cumsum(d, axis=1)) > n - t + 1e-9, 0.0, p)
        p[:, : MIN_LABELS_FOR_VERDICT - 1] = 1.0
        ps.append(np.minimum.accumulate(p, axis=1))
    rej = holm(np.stack(ps, axis=2), ALPHA).reject  # (R, N, m)
    return float(rej.any(axis=(1, 2)).mean())


def test_family_wise_false_claims_at_true_nulls_synthetic_scores():
    """300 campaigns of 6 systems × 400 items of an MQM-like score (most items at the top,
    a long tail of penalties, ties): any false 'better' claim in at most α of them."""
    rng = np.random.default_rng(11)
    base = np.clip(1 - rng.exponential(0.04, 400) * (rng.random(400) < 0.5), 0, 1)
    base = np.round(base * 100) / 100  # ESA-like: whole points
    hits = [_fwer(permuted_nulls(rng, base, 6, 50)) for _ in range(6)]
    assert np.mean(hits) <= ALPHA


def _mqm(path, cap=25.0) -> np.ndarray:  # type: ignore[no-untyped-def]
    df = pd.read_csv(path, usecols=["item_id", "system", "human_score"])
    g = df.pivot_table(index="item_id", columns="system", values="human_score").dropna()
    return np.clip(1 + g.to_numpy(float) / cap, 0, 1)


def _chaganty(path) -> np.ndarray:  # type: ignore[no-untyped-def]
    df = pd.read_csv(path)
    df = df[df["is_human"] == 0]
    g = df.pivot_table(index="item_id", columns="system", values="hter_mean").dropna()
    return np.clip(1 - g.to_numpy(float), 0, 1)


POOLS = {
    "newstest2020 MQM (esa)": ("newstest2020-ende-mqm-scores/newstest2020_ende_mqm_scores.csv",
                               _mqm),
    "WMT21 TED en-de MQM (esa)": ("wmt21-ted-mqm/wmt21_ted_ende.csv", _mqm),
    "Chaganty 1 − HTER (one_minus_hter)": ("chaganty2018-cnndm-summaries/items.csv", _chaganty),
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("name", list(POOLS))
def test_family_wise_false_claims_at_true_nulls_on_the_shipped_pools(name):
    """2,000 null campaigns per pool: k permutations of the real system with the most spread
    labels; any false claim in 1–5 % (at most α + 2 Monte-Carlo SE, measured 1–3 %)."""
    rel, load = POOLS[name]
    y = load(shared_file(rel))
    base = y[:, int(np.argmax(y.var(axis=0)))]
    k = min(y.shape[1], 10)
    rng = np.random.default_rng(2026)
    runs, chunk = 2000, 50
    hits = [_fwer(permuted_nulls(rng, base, k, chunk)) for _ in range(runs // chunk)]
    fwer = float(np.mean(hits))
    se = math.sqrt(ALPHA * (1 - ALPHA) / runs)
    assert fwer <= ALPHA + 2 * se, (name, fwer)
