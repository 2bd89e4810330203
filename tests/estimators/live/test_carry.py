"""The betting analyses carried label by label between reads (estimators.live.carry)
agree with the full recomputation at EVERY read of replayed campaigns, to 1e-12 — binary and
continuous labels, paired and unpaired queues, test-set and superpopulation estimands, Holm
and e-BH, racing on and off, labels undone — and a new label extends the carried states
instead of analysing the streams again (issue 29)."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.caches.monitor import MonitorCache
from estimators.live.monitor import CampaignMonitor
from estimators.sequences import betting
from estimators.sequences import sequential as seq
from estimators.sequences.betting_carry import CarriedBetting
from tests.estimators.caches.test_monitor import _same


def _queue(k: int, n: int, rng, paired: bool):  # type: ignore[no-untyped-def]
    """(item, system) in queue order: every system's output of an item in turn (paired),
    or the k·n outputs in one random order (unpaired)."""
    if paired:
        items = np.repeat(rng.permutation(n), k)
        sys_ = np.concatenate([rng.permutation(k) for _ in range(n)])
        return items, sys_
    flat = rng.permutation(k * n)
    return flat % n, flat // n


def _labels(k: int, n: int, rng, continuous: bool) -> np.ndarray:
    q = np.linspace(0.35, 0.85, k)[:, None]
    if continuous:
        return np.clip(q + 0.5 * (rng.random((k, n)) - 0.5), 0.0, 1.0)
    return (rng.random((k, n)) < q).astype(float)


def _replay(k, n, seed, *, paired=True, continuous=False, racing=False, undo=(), **kw):  # type: ignore[no-untyped-def]
    """Label the queue one label at a time and compare the carried monitor's report with a
    fresh one after every label; ``undo``: reads after which the last label is withdrawn
    (compared again); ``racing``: a system whose pairs are all settled gets no more
    labels. Returns the cache."""
    rng = np.random.default_rng(seed)
    y = _labels(k, n, rng, continuous)
    items, sys_ = _queue(k, n, rng, paired)
    cache = MonitorCache()
    common = dict(present=np.ones((k, n), dtype=bool), design="betting", **kw)
    done: list[int] = []
    dropped: set[int] = set()

    def read(idx):  # type: ignore[no-untyped-def]
        idx = np.asarray(idx, dtype=int)
        args = ([None] * k, items[idx], sys_[idx], y[sys_[idx], items[idx]],
                idx.astype(float), np.ones(idx.size))  # fmt: skip
        full_mon, carried_mon = (
            CampaignMonitor(*args, **common),
            CampaignMonitor(*args, cache=cache, **common),
        )
        fresh, carried = full_mon.report(), carried_mon.report()
        _same(carried, fresh)
        for a in range(k):  # the width chart's paths too
            for b in range(a + 1, k):
                _same(carried_mon.pair_sequence(a, b), full_mon.pair_sequence(a, b))
        return fresh

    for t in range(items.size):
        if racing and sys_[t] in dropped:
            continue
        done.append(t)
        rep = read(done)
        if len(done) in undo:
            read(done[:-1])  # withdrawn ...
            rep = read(done)  # ... and given again
        if racing:
            for s, status in enumerate(rep.systems):
                mine = [p for p in rep.pairs if status.name in (p.a, p.b)]
                if mine and all(p.decided for p in mine):
                    dropped.add(s)
    return cache


@pytest.mark.parametrize(
    "case",
    [
        dict(finite_pool=True, error_rate="holm"),
        dict(finite_pool=True, error_rate="ebh"),
        dict(finite_pool=False, error_rate="holm", continuous=True),
        dict(finite_pool=False, error_rate="ebh", paired=False),
        dict(finite_pool=True, error_rate="holm", paired=False, continuous=True, t_star=9),
        dict(finite_pool=True, error_rate="holm", racing=True, equivalence_margin=0.3),
        dict(
            finite_pool=False,
            error_rate="ebh",
            racing=True,
            continuous=True,
            equivalence_margin=0.3,
        ),
        # long streams: the intervals leave the edges, their end points move between cells
        dict(k=2, n=110, finite_pool=True, error_rate="holm", t_star=60),
        dict(k=2, n=110, finite_pool=False, error_rate="ebh", continuous=True),
    ],
    ids=[
        "wor-holm",
        "wor-ebh",
        "iid-cont",
        "iid-ebh-unpaired",
        "wor-cont-unpaired-plan",
        "racing-wor",
        "racing-iid-cont-ebh",
        "long-wor",
        "long-iid-cont-ebh",
    ],
)
@pytest.mark.slow
def test_every_read_agrees_with_the_full_recomputation(case):
    case = dict(case)
    k, n = case.pop("k", 4), case.pop("n", 18)
    cache = _replay(k, n, seed=len(str(case)), **case)
    streams = k + k * (k - 1) // 2
    # every stream was built once from its first label, then only extended
    assert cache.rebuilt == streams, cache.rebuilt


def test_a_label_undone_rolls_back_without_analysing_the_streams_again():
    k, n = 3, 16
    undo = {10, 25, 40}
    cache = _replay(k, n, seed=11, finite_pool=True, undo=undo)
    assert cache.rebuilt == k + k * (k - 1) // 2


def test_a_label_removed_from_the_middle_rebuilds_the_streams_it_touches():
    rng = np.random.default_rng(4)
    k, n = 3, 14
    y = (rng.random((k, n)) < 0.6).astype(float)
    items, sys_ = _queue(k, n, rng, paired=True)
    common = dict(present=np.ones((k, n), dtype=bool), design="betting", finite_pool=True)
    cache = MonitorCache()

    def read(idx):  # type: ignore[no-untyped-def]
        args = ([None] * k, items[idx], sys_[idx], y[sys_[idx], items[idx]],
                idx.astype(float), np.ones(idx.size))  # fmt: skip
        _same(CampaignMonitor(*args, cache=cache, **common).report(),
              CampaignMonitor(*args, **common).report())  # fmt: skip

    every = np.arange(items.size)
    read(every)
    built = cache.rebuilt
    read(np.delete(every, 5))  # an early label of system sys_[5] withdrawn
    # that system and its two pairs are analysed again; the third pair is reused
    assert cache.rebuilt - built == 3
    read(every)


def test_the_carried_state_matches_the_whole_path_label_by_label():
    rng = np.random.default_rng(7)
    z = rng.random(70) - (rng.random(70) < 0.5)
    for pool, running in ((None, True), (70, False)):
        state = CarriedBetting.start(
            alpha=0.004, tuning=(0.01, 50, pool, seq.BURN_IN), theta0_01=0.5, running=running
        )
        x01 = (z + 1) / 2
        for t in range(1, 71):
            state = state.extended(x01[t - 1 : t])
            cs = betting.betting_cs(
                z[:t], 0.004, bounds=(-1, 1), t_star=50, alpha_tuning=0.01, running=running,
                pool_size=pool,
            )  # fmt: skip
            c, lo, hi = state.interval01()
            assert (c * 2 - 1, lo * 2 - 1, hi * 2 - 1) == pytest.approx(
                (cs.center[-1], cs.lower[-1], cs.upper[-1]), abs=1e-12
            )
            p = betting.betting_pvalue(
                z[:t], 0.0, bounds=(-1, 1), alpha_tuning=0.01, t_star=50, pool_size=pool
            )
            assert state.p_value() == pytest.approx(p[-1], abs=1e-12)


def test_settings_the_verdicts_read_are_part_of_the_key():
    rng = np.random.default_rng(9)
    k, n = 3, 40
    y = (rng.random((k, n)) < np.array([[0.3], [0.6], [0.9]])).astype(float)
    items, sys_ = np.repeat(np.arange(n), k), np.tile(np.arange(k), n)
    args = ([None] * k, items, sys_, y[sys_, items], np.arange(k * n, dtype=float),
            np.ones(k * n))  # fmt: skip
    cache = MonitorCache()
    base = dict(present=np.ones((k, n), bool), design="betting", finite_pool=True)
    CampaignMonitor(*args, cache=cache, **base).report()
    for kw in (dict(equivalence_margin=0.4), dict(names=["x", "y", "z"]),
               dict(higher_is_better=False), dict(error_rate="ebh")):  # fmt: skip
        got = CampaignMonitor(*args, cache=cache, **base, **kw).report()
        _same(got, CampaignMonitor(*args, **base, **kw).report())


@pytest.mark.parametrize("ebh", [False, True], ids=["holm", "ebh"])
def test_a_pair_read_at_a_holm_level_comes_from_its_carried_state(ebh, monkeypatch):
    """The interval a rejected pair's side is read from at a level above its Bonferroni
    level (Holm's later steps) is read off the pair's carried state — the same floats as
    the full analysis at that level, without analysing the pair again."""
    from estimators.base.multiple import bonferroni_alpha
    from estimators.live.pools import known_bounds

    k, n = 5, 240
    rng = np.random.default_rng(4)
    y, (items, sys_) = _labels(k, n, rng, False), _queue(k, n, rng, True)
    t = items.size // 2  # half-way: the intervals are the sequence's, not the known part's
    cache = MonitorCache()
    mon = CampaignMonitor(
        [None] * k, items[:t], sys_[:t], y[sys_[:t], items[:t]], np.arange(t, dtype=float),
        np.ones(t), present=np.ones((k, n), dtype=bool), design="betting", cache=cache,
        finite_pool=True, error_rate="ebh" if ebh else "holm",
    )  # fmt: skip
    mon.report()
    analysis = mon._analysis
    a_pair = bonferroni_alpha(0.05, k * (k - 1) // 2)
    compared = narrower = 0
    bonferroni = None
    for a in range(k):
        for b in range(a + 1, k):
            sa, sb = analysis.labels.stream(a)[0], analysis.labels.stream(b)[0]
            stream = analysis.pool.pair_stream(sa, sb, a, b)
            known = known_bounds(analysis.settings, (sa[:2], sb[:2]), stream.pool)
            for level in (a_pair, 4 * a_pair, 0.05):
                want = analysis.read_interval(stream, known, level)
                full = betting.betting_cs
                monkeypatch.setattr(betting, "betting_cs", _refused)
                got = analysis.read_interval(stream, known, level, name=("pair", a, b))
                monkeypatch.setattr(betting, "betting_cs", full)
                assert got == want, (a, b, level)
                compared += 1
                narrower += level > a_pair and got != bonferroni
                bonferroni = got
            bonferroni = None
    assert compared == 30 and cache.rebuilt == k + k * (k - 1) // 2  # no state built again
    assert narrower >= 10  # the levels change the interval


def _refused(*args, **kw):  # type: ignore[no-untyped-def]
    raise AssertionError("the pair analysed again from its first label")
