"""The betting capital against a reference written label by label from its formula
(statistics.md §10; estimators/sequences/betting.py and estimators/sequences/betting_capital.py
docstrings):

    K_t(m) = ¼ (½ K⁺_t + ½ K⁻_t) + ⅜ K^kelly(½)_t + ⅜ K^kelly(0.9)_t,

K⁺ = Π (1 + min(λ̇_i, ½/m_i)(x_i − m_i)), K⁻ = Π (1 − min(λ̇_i, ½/(1 − m_i))(x_i − m_i)),
λ̇_i = sqrt(2 log(2/α)/(σ̂²_{i−1} t*)), K^kelly(c) = Π (1 + λ_i(x_i − m_i)) with
λ_i = clip((μ̂_{i−1} − m_i)/(σ̂²_{i−1} + (μ̂_{i−1} − m_i)²), −c/(1 − m_i), c/m_i),
μ̂_t = (½ + Σx)/(t + 1), σ̂²_t = (¼ + Σ(x_i − μ̂_i)²)/(t + 1); without replacement from a
pool of N, m_i(θ) = (Nθ − S_{i−1})/(N − i + 1), and +∞ from the first m_i outside [0, 1].

Random streams (binary, three-valued, continuous, piled up at 0 or 1), null means from
1e-12 to 1 − 1e-12, finite and infinite pools, whole and carried in pieces: equal to 1e-12;
temporaries from the scratch pool (estimators.base.scratch) or not.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from estimators.base import scratch
from estimators.sequences import betting

LOW, HIGH = 1e-12, 1 - 1e-12


@pytest.fixture(autouse=True, params=["pooled", "small arrays fresh"])
def _scratch_path(request, monkeypatch):  # type: ignore[no-untyped-def]
    """Every test twice: with every temporary from the scratch pool (as at the monitor's
    cold start) and with the small ones allocated as usual (as for one new label)."""
    if request.param == "pooled":
        monkeypatch.setattr(scratch, "SMALL", 0)


def _reference(x, th, alpha, t_star, pool_size):  # type: ignore[no-untyped-def]
    """(log K_t for t = 1..T, the four running log sums at the end), one label at a time."""
    mu, s2, sx, q = 0.5, 0.25, 0.0, 0.0
    logs = [0.0, 0.0, 0.0, 0.0]  # K⁺, K⁻, Kelly ½, Kelly 0.9
    weights = [0.125, 0.125, 0.375, 0.375]
    out, excluded = [], False
    for i, xi in enumerate(x, start=1):
        if pool_size is None:
            m = th
        else:
            m = (pool_size * th - sx) / (pool_size - i + 1)
            excluded = excluded or not (-betting.WOR_TOL <= m <= 1 + betting.WOR_TOL)
        m = min(max(m, LOW), HIGH)
        size = t_star if t_star else i * math.log1p(i)
        plan = math.sqrt(2 * math.log(2 / alpha) / (s2 * size))
        kelly = (mu - m) / (s2 + (mu - m) ** 2)
        bets = [
            min(plan, 0.5 / m),
            -min(plan, 0.5 / (1 - m)),
            min(max(kelly, -0.5 / (1 - m)), 0.5 / m),
            min(max(kelly, -0.9 / (1 - m)), 0.9 / m),
        ]
        logs = [acc + math.log1p(lam * (xi - m)) for acc, lam in zip(logs, bets, strict=True)]
        top = max(logs)
        total = sum(w * math.exp(v - top) for w, v in zip(weights, logs, strict=True))
        log_k = top + math.log(total)
        out.append(math.inf if excluded else log_k)
        sx += xi
        mu = (0.5 + sx) / (i + 1)
        q += (xi - mu) ** 2
        s2 = (0.25 + q) / (i + 1)
    return np.array(out), logs


def _streams():  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(29)
    yield "binary", (rng.random(300) < 0.62).astype(float)
    yield "three-valued", rng.integers(0, 3, 250) / 2.0
    yield "continuous", rng.random(200)
    yield "piled at 0", np.where(rng.random(220) < 0.9, 0.0, rng.random(220))
    yield "piled at 1", np.where(rng.random(180) < 0.93, 1.0, rng.beta(5, 1, 180))


NULLS = np.array([LOW, 1e-9, 1e-4, 0.05, 0.3, 0.5, 0.62, 0.9, 1 - 1e-6, HIGH])


@pytest.mark.parametrize("pool", [None, "exact", "larger"])
@pytest.mark.parametrize(("alpha", "t_star"), [(0.05 / 1770, 2000.0), (0.1, None)])
def test_the_capital_is_the_formula_label_by_label(pool, alpha, t_star):
    for name, x in _streams():
        size = {None: None, "exact": x.size, "larger": 3 * x.size}[pool]
        got, state = betting.wor_log_capital_from(x[None, :], NULLS[:, None], alpha, t_star, size)
        for g, th in enumerate(NULLS):
            want, parts = _reference(x, th, alpha, t_star, size)
            np.testing.assert_allclose(got[g], want, rtol=1e-12, atol=1e-12, err_msg=name)
            ends = state[1]
            ends = [ends[0][0][g, 0], ends[0][1][g, 0], ends[1][g, 0], ends[2][g, 0]]
            np.testing.assert_allclose(ends, parts, rtol=1e-12, atol=1e-12, err_msg=name)
        if size is not None and pool == "exact":
            assert np.isinf(got[0, -1]) and np.isinf(got[-1, -1])  # the census rules them out


def test_a_stream_carried_in_pieces_is_the_formula():
    """Cut at arbitrary points and continued from the end state: the same numbers."""
    for _name, x in _streams():
        want = np.stack([_reference(x, th, 0.01, 500.0, 2 * x.size)[0] for th in NULLS])
        state, got = None, []
        for piece in np.split(x, [1, 7, 8, 60, x.size - 1]):
            log_k, state = betting.wor_log_capital_from(
                piece[None, :], NULLS[:, None], 0.01, 500.0, 2 * x.size, state
            )
            got.append(log_k)
        np.testing.assert_allclose(np.concatenate(got, axis=1), want, rtol=1e-12, atol=1e-12)


def test_log_capital_is_the_formula_for_scalar_and_grid_nulls():
    x = np.random.default_rng(7).random(150)
    for th in (1e-12, 0.25, 0.5, 1 - 1e-12):
        want = _reference(x, th, 0.05, 100.0, None)[0]
        np.testing.assert_allclose(
            betting.log_capital(x, th, 0.05, 100.0), want, rtol=1e-12, atol=1e-12
        )
    grid = betting.log_capital(x[None, :], NULLS[:, None], 0.05, None)
    want = np.stack([_reference(x, th, 0.05, None, None)[0] for th in NULLS])
    np.testing.assert_allclose(grid, want, rtol=1e-12, atol=1e-12)


def test_results_share_no_scratch_memory():
    """The temporaries come from a pool reused call after call (estimators.base.scratch): what a
    call returns must stay as it was after the next calls."""
    rng = np.random.default_rng(3)
    x, other = rng.random((1, 120)), rng.random((1, 120))
    log_k, state = betting.wor_log_capital_from(x, NULLS[:, None], 0.05, 200.0, 400)
    kept = (log_k.copy(), [np.copy(e) for e in state[1][1:]], state[2].copy())
    for _ in range(3):
        betting.wor_log_capital_from(other, NULLS[:, None] / 2, 0.01, 100.0, 300)
        betting.log_capital(other, NULLS[:, None], 0.05, None)
    np.testing.assert_array_equal(log_k, kept[0])
    for end, copy in zip(state[1][1:], kept[1], strict=True):
        np.testing.assert_array_equal(end, copy)
    np.testing.assert_array_equal(state[2], kept[2])
