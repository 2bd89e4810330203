"""The betting sequence's reported interval has exact ends, is nested from read to read,
and a pair is shown on a side exactly when its test rejects at the level it is read
(estimators.sequences.betting.exact_ends; estimators.base.verdicts.side / read_level).

The two monitors are built as estimators.report.live.live_monitor builds them (betting
design, t* the plan, test-set estimand, Holm at α = 0.05, ε = 0.05), with the campaign
cache the dashboard carries between reads. Both cases failed on the grid search that
found the ends on 61 means with a fallback of the running mean ± one grid step: the score
case's interval widened (t = 200: [−0.0104, 0.0354], t = 400: [−0.0204, 0.0463]) and at
t = 1,900 (p = 6.3e−31) showed "no difference larger than 0.05"; the binary case showed
"not yet" at the first read with p ≤ 0.05 in 103 of 200 orders (lower end −1.1e−16).
"""

from __future__ import annotations

import numpy as np
import pytest

from estimators.base.verdicts import Outcome
from estimators.caches.monitor import MonitorCache
from estimators.live.monitor import CampaignMonitor
from estimators.sequences import betting
from estimators.sequences import sequential as seq

ALPHA = 0.05


def _monitor(y, order, n, *, t_star, cache=None):  # type: ignore[no-untyped-def]
    """The two systems' monitor after the first ``n`` items of ``order`` (both labelled)."""
    k, size = y.shape
    items = np.repeat(order[:n], k)
    sys_ = np.tile(np.arange(k), n)
    return CampaignMonitor(
        [None] * k, items, sys_, y[sys_, items], np.arange(items.size, dtype=float),
        np.ones(items.size), present=np.ones((k, size), dtype=bool), design="betting",
        t_star=t_star, finite_pool=True, alpha=ALPHA, equivalence_margin=0.05,
        label_range=(0.0, 1.0), cache=cache,
    )  # fmt: skip


def _score_pool() -> np.ndarray:
    rng = np.random.default_rng(0)
    z1, z2 = rng.standard_normal(2000), rng.standard_normal(2000)
    ya = np.clip(0.85 + 0.10 * z1, 0, 1)
    return np.vstack([ya, np.clip(ya - 0.012 + 0.03 * z2, 0, 1)])


def _binary_pool() -> np.ndarray:
    """N = 400: 60 items only A adequate, 20 only B, 200 both, 120 neither (Δ = +0.10)."""
    a = np.r_[np.ones(60), np.zeros(20), np.ones(200), np.zeros(120)]
    b = np.r_[np.zeros(60), np.ones(20), np.ones(200), np.zeros(120)]
    return np.vstack([a, b])


def _check_read(pair, previous) -> None:  # type: ignore[no-untyped-def]
    """One read: nested in the previous one, the estimate inside, the side iff p ≤ α."""
    lo, hi = pair.result.diagnostics["interval"]
    est = pair.result.estimate
    assert lo <= est <= hi, (pair.result.n_human, lo, est, hi)
    assert pair.result.ci[0] <= est <= pair.result.ci[1]
    if previous is not None:
        assert previous[0] <= lo and hi <= previous[1], (pair.result.n_human, previous, lo, hi)
    rejected = pair.result.diagnostics["p_value"] <= ALPHA  # one pair: Holm reads it at α
    assert rejected == (pair.outcome == Outcome.A_BETTER), (
        pair.result.n_human, pair.result.diagnostics["p_value"], lo, hi, pair.verdict,
    )  # fmt: skip


@pytest.mark.slow
def test_score_case_is_nested_and_shows_the_side_once_rejected():
    y = _score_pool()
    order = np.arange(y.shape[1])
    cache, previous = MonitorCache(), None
    for n in range(seq.BURN_IN, 2001, 20):
        pair = _monitor(y, order, n, t_star=2000, cache=cache).report().pairs[0]
        _check_read(pair, previous)
        previous = pair.result.diagnostics["interval"]
    at = {n: _monitor(y, order, n, t_star=2000).report().pairs[0] for n in (200, 400, 1900)}
    assert at[200].result.diagnostics["interval"][1] >= at[400].result.diagnostics["interval"][1]
    assert at[1900].result.diagnostics["p_value"] < 1e-20
    assert at[1900].outcome == Outcome.A_BETTER
    lo, hi = at[1900].result.diagnostics["interval"]
    assert 0 < lo <= 0.0126 <= hi and hi - lo < 0.01


def _first_rejection(y, order) -> int:  # type: ignore[no-untyped-def]
    """The first n with the pair's anytime p-value ≤ α (the monitor's capital)."""
    d = y[0, order] - y[1, order]
    p = betting.betting_pvalue(
        d, 0.0, bounds=(-1.0, 1.0), alpha_tuning=ALPHA, t_star=y.shape[1],
        pool_size=y.shape[1],
    )  # fmt: skip
    return int(np.argmax(p <= ALPHA)) + 1


@pytest.mark.slow
@pytest.mark.parametrize("orders", [range(0, 100), range(100, 200)])
def test_binary_case_shows_the_side_at_the_first_rejection(orders):
    y = _binary_pool()
    rng = np.random.default_rng(1)
    perms = [rng.permutation(y.shape[1]) for _ in range(200)]
    for i in orders:
        n = _first_rejection(y, perms[i])
        before = _monitor(y, perms[i], n - 1, t_star=None).report().pairs[0]
        pair = _monitor(y, perms[i], n, t_star=None).report().pairs[0]
        assert pair.result.diagnostics["p_value"] <= ALPHA < before.result.diagnostics["p_value"]
        _check_read(before, None)
        _check_read(pair, before.result.diagnostics["interval"])


def test_exact_ends_bracket_the_crossing_and_exclude_a_rejected_grid_mean():
    """Each end lies within 2·END_TOL of a crossing of log(1/α) by the running capital
    (surviving just inside, excluded just outside); Δ = 0 (the grid's middle mean) is
    outside exactly when p ≤ level."""
    rng = np.random.default_rng(3)
    for probs in [(0.2, 0.5, 0.3), (0.1, 0.8, 0.1), (0.05, 0.6, 0.35)]:
        z = rng.choice([-1.0, 0.0, 1.0], 300, p=probs)
        for level in (0.05, 0.01, 0.05 / 10):
            cs = betting.betting_cs(z, level, bounds=(-1, 1), t_star=300, alpha_tuning=0.005)
            lo01, hi01 = (cs.lower[-1] + 1) / 2, (cs.upper[-1] + 1) / 2
            thr = np.log(1 / level)
            tol = 2 * betting.END_TOL
            run = betting._running_log_capital(
                (z + 1) / 2, np.array([lo01 + tol, hi01 - tol]), 0.005, 300, seq.BURN_IN
            )[:, -1]
            out = betting._running_log_capital(
                (z + 1) / 2, np.array([lo01 - tol, hi01 + tol]), 0.005, 300, seq.BURN_IN
            )[:, -1]
            assert (run < thr).all() and (out >= thr).all(), (probs, level, run, out)
            p = betting.betting_pvalue(z, 0.0, bounds=(-1, 1), alpha_tuning=0.005, t_star=300)
            assert (p[-1] <= level) == (not cs.lower[-1] <= 0.0 <= cs.upper[-1])


def _reference_ends(state):  # type: ignore[no-untyped-def]
    """The last interval's ends of ``state`` with every tested mean evaluated over the whole
    stream (no carried capitals)."""
    levels = state._levels(state.grid)[: state.size]
    centre = float(state.path[0][-1])
    return betting.last_ends(levels, state._m, state.thr, state._evaluate, state.refine, centre,
                             x01=state.x01, pool_size=state.grid.tuning[2])  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("running", [True, False], ids=["running", "current"])
@pytest.mark.parametrize("control", [False, True], ids=["labels", "control"])
def test_carried_reads_reuse_the_tested_means_and_equal_a_fresh_search(control, running):
    """Reads after every label (and reads of the state one label back, as after an undo)
    take the means the previous read tested from carried capitals, and report the very
    floats of a search that evaluates every tested mean over the whole stream."""
    from estimators.sequences.betting_carry import CarriedBetting
    from estimators.sequences.betting_control import ControlPool
    from estimators.sequences.betting_control_carry import CarriedControl

    rng = np.random.default_rng(5)
    n = 120
    z = rng.choice([-1.0, 0.0, 1.0], n, p=(0.2, 0.5, 0.3))
    x01 = (z + 1) / 2
    kw = dict(alpha=0.01, tuning=(0.01, n, n, seq.BURN_IN), theta0_01=0.5, running=running)
    if control:
        g_pool = z + 0.7 * rng.standard_normal(n)
        ctrl = ControlPool.of(g_pool)
        gs = ctrl.scaled(g_pool)
        state = CarriedControl.begin(ctrl=ctrl, **kw)
    else:
        state = CarriedBetting.start(**kw)
    reused, previous = 0, None
    for t in range(1, n + 1):
        step = x01[t - 1 : t]
        state = state.extended_with(step, gs[t - 1 : t]) if control else state.extended(step)
        if t < seq.BURN_IN:
            continue
        carried = state.probe
        _, low, high = state.interval01()
        assert (low, high) == _reference_ends(state), t
        if carried is not None and state.probe is not None:  # the census tests one mean
            reused += sum(k in carried.rows for k in state.probe.rows)
        if previous is not None and t % 10 == 0:  # the state one label back, read again
            assert previous.interval01()[1:] == _reference_ends(previous), t
        previous = state
    assert reused > 0


def _pass_search(levels, m, thr, evaluate, refine):  # type: ignore[no-untyped-def]
    """The ends by the pass-by-pass search down the hierarchy (``refine`` means per bracket
    and pass, from the grid's brackets to the deepest level): what exact_ends must equal."""
    edges = np.concatenate([[0.0], m, [1.0]])
    pts = betting._Points(edges, refine + 1)
    alive = levels < thr
    f, g = int(np.argmax(alive)), int(alive.size - 1 - np.argmax(alive[::-1]))
    lo, hi = [f, 0], [g + 1, 0]
    while lo[1] < pts.depth:
        for b, upper in ((lo, False), (hi, True)):
            means = [pts.value(b[0] * pts.base + k, b[1] + 1) for k in range(1, pts.base)]
            ok = evaluate(np.array(means)) < thr
            if upper:
                k = int(refine - 1 - np.argmax(ok[::-1])) + 1 if ok.any() else 0
            else:
                k = int(np.argmax(ok)) if ok.any() else refine
            b[0], b[1] = b[0] * pts.base + k, b[1] + 1
    low_u, high_u = lo[0], hi[0] + 1
    low, high = pts.value(low_u, pts.depth), pts.value(high_u, pts.depth)
    low = low if low_u == 0 else float(np.nextafter(low, 1.0))
    top = (edges.size - 1) * pts.base**pts.depth
    return low, (high if high_u == top else float(np.nextafter(high, 0.0)))


@pytest.mark.parametrize("running", [True, False], ids=["running", "current"])
def test_the_secant_search_finds_the_ends_of_the_pass_by_pass_search(running):
    """The secant search lands on the very depth-D bracket the pass-by-pass search does
    (the surviving points of a quasi-convex capital are contiguous), with fewer means."""
    rng = np.random.default_rng(11)
    cases = [((0.2, 0.5, 0.3), 300, 0.05), ((0.1, 0.8, 0.1), 150, 0.01),
             ((0.05, 0.6, 0.35), 500, 0.005), ((0.4, 0.2, 0.4), 80, 0.05)]  # fmt: skip
    for probs, n, level in cases:
        z = rng.choice([-1.0, 0.0, 1.0], n, p=probs)
        x01 = (z + 1) / 2
        m = np.linspace(0.0, 1.0, betting.CS_GRID)[1:-1]
        tested: list[int] = []

        def evaluate(points, x01=x01, tested=tested, level=level, n=n):  # type: ignore[no-untyped-def]
            tested.append(len(points))
            run = betting._running_log_capital(x01, points, level, n, seq.BURN_IN, running)
            return run[:, -1]

        levels = evaluate(m)
        tested.clear()
        thr = np.log(1 / level)
        got = betting.exact_ends(levels, m, thr, evaluate, betting.REFINE)
        searched = sum(tested)
        assert got == _pass_search(levels, m, thr, evaluate, betting.REFINE), (probs, n)
        assert searched < sum(tested) - searched, (searched, sum(tested) - searched)


def test_a_read_after_one_label_tests_few_new_means():
    """After one new label the search starts from the means the last read tested (their
    capitals carried label by label): a few new capitals over the whole stream per read
    (one per search step, both ends together), not one per pass of the pass-by-pass search
    (18 passes), also near the census, where the upper end sits at the jump to +∞."""
    from estimators.sequences import betting_carry
    from estimators.sequences.betting_carry import CarriedBetting

    rng = np.random.default_rng(7)
    n = 400
    x01 = (rng.choice([-1.0, 0.0, 1.0], n, p=(0.25, 0.4, 0.35)) + 1) / 2
    state = CarriedBetting.start(alpha=0.05, tuning=(0.05, n, n, seq.BURN_IN), theta0_01=0.5,
                                 running=True)  # fmt: skip
    fresh: list[int] = []
    make = betting_carry.CarriedBetting._fresh

    def counted(self, points):  # type: ignore[no-untyped-def]
        fresh.append(len(np.unique(points)))
        return make(self, points)

    for t in range(n):
        state = state.extended(x01[t : t + 1])
        if t + 1 >= 300:
            fresh.clear()
            betting_carry.CarriedBetting._fresh = counted
            try:
                state.interval01()
            finally:
                betting_carry.CarriedBetting._fresh = make
            assert len(fresh) <= 8, (t, fresh)
        elif t + 1 >= seq.BURN_IN:
            state.interval01()


@pytest.mark.parametrize("seed", [2, 7])
def test_a_census_read_costs_one_new_capital(seed):
    """At the last labels of a finite pool no grid mean survives and the last read's
    survivors are ruled out too: the search for a survivor starts in the window the labels
    alone leave (betting.ruled_window), testing the points at that window's ends (where
    the ends sit at the census) in the same call — one new capital over the whole stream
    per read, where a search from the two grid cells around the least level took two."""
    from estimators.sequences.betting_carry import CarriedBetting

    rng = np.random.default_rng(seed)
    n = 400
    x01 = (rng.choice([-1.0, 0.0, 1.0], n, p=(0.25, 0.4, 0.35)) + 1) / 2
    state = CarriedBetting.start(alpha=0.05, tuning=(0.05, n, n, seq.BURN_IN), theta0_01=0.5,
                                 running=True)  # fmt: skip
    fresh: list[int] = []
    make = CarriedBetting._fresh

    def counted(self, points):  # type: ignore[no-untyped-def]
        fresh.append(len(np.unique(points)))
        return make(self, points)

    for t in range(n):
        state = state.extended(x01[t : t + 1])
        if t + 1 >= seq.BURN_IN:
            fresh.clear()
            CarriedBetting._fresh = counted
            try:
                low, high = state.interval01()[1:]
            finally:
                CarriedBetting._fresh = make
            if t + 1 > n - 6:
                # one capital, of the ten points around the window's ends alone
                assert len(fresh) <= 1 and sum(fresh) <= 10, (t + 1, fresh)
    # the census interval: inside the window the labels leave (to the search's resolution)
    window = betting.ruled_window(x01, n)
    tol = 2 * betting.END_TOL
    assert window is not None and window[0] - tol <= low <= high <= window[1] + tol
    assert high - low <= window[1] - window[0] + 2 * tol <= 1.0 / n + 1e-9


@pytest.mark.parametrize("seed", [2, 7, 11])
def test_census_ends_from_the_window_ends_alone_equal_the_window_search(seed, monkeypatch):
    """Near the census the ends found from the ten points around the window's ends alone
    (betting._jump_brackets) are the ends the search across the whole window finds: the
    surviving points are contiguous, so which points bracket them does not matter."""
    rng = np.random.default_rng(seed)
    n = 400
    x01 = (rng.choice([-1.0, 0.0, 1.0], n, p=(0.25, 0.4, 0.35)) + 1) / 2
    used = []
    jump = betting._jump_brackets

    def counted(alive, depth):  # type: ignore[no-untyped-def]
        found = jump(alive, depth)
        used.append(found is not None)
        return found

    for t in range(n - 12, n):  # the last labels but the census (a point, last_ends)
        monkeypatch.setattr(betting, "_jump_brackets", counted)
        fast = betting.betting_cs(x01[:t], bounds=(0.0, 1.0), t_star=n, pool_size=n)
        monkeypatch.setattr(betting, "_jump_brackets", lambda alive, depth: None)
        whole = betting.betting_cs(x01[:t], bounds=(0.0, 1.0), t_star=n, pool_size=n)
        ends = (fast.lower[-1], fast.upper[-1])
        assert ends == (whole.lower[-1], whole.upper[-1]), t
    assert sum(used) >= 1, used  # the short path was taken (where no grid mean survives)


@pytest.mark.parametrize("running", [True, False], ids=["running", "current"])
def test_the_census_interval_is_the_pool_mean_from_one_tested_mean(running):
    """With every value of the pool labelled the pool mean is known: the last interval is
    that point (C_t holds it), carried or recomputed, and the read tests that one mean."""
    from estimators.sequences.betting_carry import CarriedBetting

    rng = np.random.default_rng(3)
    n = 300
    x01 = (rng.choice([-1.0, 0.0, 1.0], n, p=(0.25, 0.4, 0.35)) + 1) / 2
    state = CarriedBetting.start(alpha=0.05, tuning=(0.05, n, n, seq.BURN_IN), theta0_01=0.5,
                                 running=running)  # fmt: skip
    for t in range(n - 1):
        state = state.extended(x01[t : t + 1])
    before = state.interval01()
    state = state.extended(x01[n - 1 :])
    fresh: list[np.ndarray] = []
    evaluated: list[np.ndarray] = []
    make, evaluate = CarriedBetting._fresh, CarriedBetting._evaluate

    def counted(self, points):  # type: ignore[no-untyped-def]
        fresh.append(np.unique(points))
        return make(self, points)

    def counted_levels(self, points):  # type: ignore[no-untyped-def]
        evaluated.append(points)
        return evaluate(self, points)

    CarriedBetting._fresh, CarriedBetting._evaluate = counted, counted_levels
    try:
        centre, low, high = state.interval01()
    finally:
        CarriedBetting._fresh, CarriedBetting._evaluate = make, evaluate
    mean = float(np.cumsum(x01)[-1] / n)
    assert low == high == centre == mean
    # one capital of the one mean over the stream, no carried search
    assert fresh == [] and [e.tolist() for e in evaluated] == [[mean]]
    if running:  # nested: the point lies in the interval the read before reported
        assert before[1] <= mean <= before[2]
    cs = betting.betting_cs(x01, bounds=(0.0, 1.0), t_star=n, pool_size=n, running=running)
    assert (cs.lower[-1], cs.upper[-1]) == (mean, mean)
    # one label short of the census the interval is the search's, wider than a point
    cs = betting.betting_cs(x01[:-1], bounds=(0.0, 1.0), t_star=n, pool_size=n, running=running)
    assert cs.upper[-1] - cs.lower[-1] > 0


def test_the_probe_extended_with_the_grid_is_the_probe_extended_alone():
    """A read's new label extends the grid's capital and the probe's in one call
    (CarriedBetting._with_probe): the probe's capital is the one its own extension gives,
    number for number, and so is the grid's."""
    from dataclasses import replace

    from estimators.sequences.betting_carry import CarriedBetting

    rng = np.random.default_rng(9)
    n = 300
    x01 = (rng.choice([-1.0, 0.0, 1.0], n, p=(0.25, 0.4, 0.35)) + 1) / 2
    state = CarriedBetting.start(alpha=0.01, tuning=(0.01, n, n, seq.BURN_IN), theta0_01=0.5,
                                 running=True).extended(x01[:150])  # fmt: skip
    state.interval01()  # a search: its probe
    assert state.probe is not None and len(state.probe.caps) == 1
    together = state.extended(x01[150:152])
    alone = replace(state, probe=None).extended(x01[150:152])
    cap, want = together.probe.caps[0], state.probe.caps[0].extended(x01[150:152])
    assert together.probe.rows == state.probe.rows and cap.t == want.t == 152
    for got, ref in ((cap, want), (together.grid, alone.grid)):
        np.testing.assert_array_equal(got.th, ref.th)
        np.testing.assert_array_equal(got.last, ref.last)
        np.testing.assert_array_equal(got.run, ref.run)
        flat = [np.asarray(a) for a in _leaves(got.state)]
        for a, b in zip(flat, [np.asarray(b) for b in _leaves(ref.state)], strict=True):
            np.testing.assert_array_equal(a, b)
    assert together.path01()[1][-1] == alone.path01()[1][-1]


def _leaves(tree):  # type: ignore[no-untyped-def]
    if isinstance(tree, (tuple, list)):
        for x in tree:
            yield from _leaves(x)
    elif tree is not None:
        yield tree
