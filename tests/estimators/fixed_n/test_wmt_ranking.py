"""estimators.fixed_n.wmt_ranking: WMT25's neighbour walk and WMT24's Stouffer variant against
independent implementations written straight from the findings' descriptions with scipy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from estimators.fixed_n.wmt_ranking import (
    symmetrised_differences,
    wilcoxon_greater,
    wmt24_ranking,
    wmt25_ranking,
)

SYSTEMS = ["A", "B", "C", "D", "E", "F"]


def fixed_table(seed: int = 11, n: int = 60) -> np.ndarray:
    """Paired ESA-like scores: item difficulty shared by all systems, system effects in
    steps that leave some neighbours apart and some not; rounded to whole points (ties)."""
    rng = np.random.default_rng(seed)
    effects = np.array([80.0, 78.5, 72.0, 71.0, 70.5, 60.0])
    item = rng.normal(0, 8, n)
    s = effects[:, None] + item[None, :] + rng.normal(0, 6, (len(effects), n))
    return np.round(np.clip(s, 0, 100))


def independent_wmt25(scores: np.ndarray, names: list[str], alpha: float = 0.05):
    """WMT25 as the findings describe it, one wave: sort by mean; A beats B when
    scipy.stats.wilcoxon(a - b, alternative="greater").pvalue < alpha / 2; a system's
    rank range spans the run of neighbours it is not separated from; a cluster ends where
    no range crosses."""
    order = sorted(range(len(names)), key=lambda i: -scores[i].mean())

    def beats(i: int, j: int) -> bool:
        d = scores[i] - scores[j]
        if not np.any(d != 0):
            return False
        return stats.wilcoxon(d, alternative="greater").pvalue < alpha / 2

    ranges = []
    for pos, i in enumerate(order):
        up = pos
        while up > 0 and not beats(order[up - 1], i):
            up -= 1
        down = pos
        while down < len(order) - 1 and not beats(i, order[down + 1]):
            down += 1
        ranges.append((up + 1, down + 1))
    clusters, c = [], 1
    for pos in range(len(order)):
        clusters.append(c)
        cut = pos + 1
        if all(hi <= cut for _, hi in ranges[:cut]) and all(lo > cut for lo, _ in ranges[cut:]):
            c += 1
    return [names[i] for i in order], ranges, clusters


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_wmt25_reproduces_an_independent_scipy_implementation(seed: int) -> None:
    s = fixed_table(seed)
    got = wmt25_ranking(s, SYSTEMS)
    names, ranges, clusters = independent_wmt25(s, SYSTEMS)
    assert [r.system for r in got.rows] == names
    assert [(r.rank_low, r.rank_high) for r in got.rows] == ranges
    assert [r.cluster for r in got.rows] == clusters
    assert got.threshold == 0.025
    # the table is not trivial: some neighbours are apart, some are not
    assert 1 < max(clusters) < len(SYSTEMS)


def test_wmt25_fixed_table_clusters() -> None:
    """The fixed table's clusters, written out: {A, B}, {C, D, E}, {F}."""
    got = wmt25_ranking(fixed_table(11), SYSTEMS)
    by_cluster: dict[int, set[str]] = {}
    for r in got.rows:
        by_cluster.setdefault(r.cluster, set()).add(r.system)
    assert list(by_cluster.values()) == [{"A", "B"}, {"C", "D", "E"}, {"F"}]


def test_wave_symmetrisation_is_wmt25s_four_differences() -> None:
    """With two waves: a₁−b₁, a₂−b₂, a₁−b₂, a₂−b₁ (the script's a + a against
    b + swap(b)), pairs with a missing score dropped."""
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(20, 2)), rng.normal(size=(20, 2))
    b[3, 1] = np.nan
    aa = np.concatenate([a[:, 0], a[:, 1], a[:, 0], a[:, 1]])
    bb = np.concatenate([b[:, 0], b[:, 1], b[:, 1], b[:, 0]])
    want = aa - bb
    want = want[np.isfinite(want)]
    got = symmetrised_differences(a, b)
    assert sorted(got) == pytest.approx(sorted(want))
    assert got.size == 78
    p = stats.wilcoxon(want, alternative="greater").pvalue
    assert wilcoxon_greater(got) == pytest.approx(p)


def test_waves_change_the_test_and_one_wave_is_plain() -> None:
    s = fixed_table(11)
    one = wmt25_ranking(s, SYSTEMS)
    assert wmt25_ranking(s[:, :, None], SYSTEMS).p == one.p
    waves = np.stack([s, np.roll(s, 1, axis=0)], axis=2)  # a second wave that differs
    two = wmt25_ranking(waves, SYSTEMS)
    assert two.waves == 2 and two.p != one.p


def test_ties_and_empty_systems() -> None:
    s = np.vstack([np.full(10, 50.0), np.full(10, 50.0), np.full(10, np.nan)])
    got = wmt25_ranking(s, ["x", "y", "z"])
    assert [r.system for r in got.rows] == ["x", "y"] and got.unranked == ("z",)
    assert got.p[("x", "y")] == 1.0 and not got.better
    assert [r.cluster for r in got.rows] == [1, 1]


def independent_wmt24(x: np.ndarray, domains: list[str], names: list[str], alpha=0.05):
    """WMT24 from its description: macro mean over domains; per domain the two-sided
    Wilcoxon p; Stouffer's Z = Σ Φ⁻¹(1 − p_d) / √D; p = 1 − Φ(Z)."""
    doms = sorted(set(domains))
    masks = {d: np.array([g == d for g in domains]) for d in doms}
    mean = {n: np.mean([x[i, masks[d]].mean() for d in doms]) for i, n in enumerate(names)}
    p = {}
    for i, j in itertools.combinations(range(len(names)), 2):
        z = [stats.norm.ppf(1 - stats.wilcoxon(x[i, masks[d]] - x[j, masks[d]]).pvalue)
             for d in doms]  # fmt: skip
        pv = 1 - stats.norm.cdf(sum(z) / math.sqrt(len(z)))
        p[names[i], names[j]] = p[names[j], names[i]] = pv
    wins = {n: sum(p[n, m] < alpha and mean[n] > mean[m] for m in names if m != n) for n in names}
    losses = {n: sum(p[n, m] < alpha and mean[n] < mean[m] for m in names if m != n) for n in names}
    return mean, p, {n: (losses[n] + 1, len(names) - wins[n]) for n in names}


def test_wmt24_stouffer_and_rank_ranges() -> None:
    s = fixed_table(12, n=90)
    domains = ["news", "speech", "social"] * 30
    got = wmt24_ranking(s, SYSTEMS, domains)
    mean, p, ranges = independent_wmt24(s, domains, SYSTEMS)
    assert [r.system for r in got.rows] == sorted(SYSTEMS, key=lambda n: -mean[n])
    for a, b in itertools.combinations(SYSTEMS, 2):
        assert got.p[a, b] == pytest.approx(p[a, b], rel=1e-9, abs=1e-15)
    assert {r.system: (r.rank_low, r.rank_high) for r in got.rows} == ranges
    assert {r.system: r.mean for r in got.rows} == pytest.approx(mean)
    assert got.domains == ("news", "social", "speech")


def test_wmt24_one_domain_is_the_two_sided_test() -> None:
    s = fixed_table(13)
    got = wmt24_ranking(s, SYSTEMS)
    for a, b in itertools.combinations(range(len(SYSTEMS)), 2):
        want = stats.wilcoxon(s[a] - s[b]).pvalue
        assert got.p[SYSTEMS[a], SYSTEMS[b]] == pytest.approx(want, rel=1e-9)


def test_wmt24_clusters_need_every_pair_across_the_cut() -> None:
    got = wmt24_ranking(fixed_table(11), SYSTEMS)
    names = [r.system for r in got.rows]
    for i in range(len(names) - 1):
        cut = got.rows[i].cluster != got.rows[i + 1].cluster
        across = all(got.p[a, b] < 0.05 for a in names[: i + 1] for b in names[i + 1 :])
        assert cut == across


def test_bad_shapes_refused() -> None:
    with pytest.raises(ValueError, match="systems, items"):
        wmt25_ranking(np.zeros((2, 3)), ["a"])
    with pytest.raises(ValueError, match="domains"):
        wmt24_ranking(np.zeros((2, 3)), ["a", "b"], ["x"])
