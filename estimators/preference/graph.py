"""Is the comparison graph good enough for a leaderboard? Connectivity and per-system counts.

docs/statistics-notes.md §28. The Bradley–Terry scores of two groups of systems that were
never compared with each other have no common scale: the graph whose edges are the pairs
judged at least once must be connected. Even when it is, the maximum-likelihood estimate
exists only when, for every split of the systems into two groups, some system of each group
was preferred to (or tied with) some system of the other (Zermelo 1929; Ford 1957: the
directed "preferred or tied" graph is strongly connected). A system short of judgments gets
an interval too wide to rank. Each failure is said in plain words, naming the systems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from estimators.preference.data import Preferences

#: Fewer judgments than this for a system and its place on the leaderboard is called thin.
MIN_PER_SYSTEM = 30


@dataclass(frozen=True)
class GraphCheck:
    """Connectivity, Ford's condition and the judgments per system (module docstring)."""

    components: tuple[tuple[str, ...], ...]  # connected groups of systems
    strongly_connected: bool  # Ford's condition: the MLE exists
    per_system: dict[str, int]
    pairs_judged: int
    pairs_total: int
    problems: tuple[str, ...]

    @property
    def connected(self) -> bool:
        return len(self.components) == 1

    @property
    def ok(self) -> bool:
        return not self.problems


def _names(systems: tuple[str, ...], idx) -> str:  # type: ignore[no-untyped-def]
    return ", ".join(systems[i] for i in idx)


def check_graph(prefs: Preferences, *, min_per_system: int = MIN_PER_SYSTEM) -> GraphCheck:
    """The checks of the module docstring, with one plain sentence per problem."""
    k, systems = prefs.k, prefs.systems
    per = np.bincount(prefs.a, minlength=k) + np.bincount(prefs.b, minlength=k)
    ones = np.ones(prefs.n)
    undirected = csr_matrix((ones, (prefs.a, prefs.b)), shape=(k, k))
    n_comp, labels = connected_components(undirected, directed=False)
    groups = tuple(tuple(systems[i] for i in np.flatnonzero(labels == c)) for c in range(n_comp))
    # i → j when i was preferred to or tied with j at least once
    a_wins = prefs.outcome >= 0.5
    b_wins = prefs.outcome <= 0.5
    src = np.concatenate([prefs.a[a_wins], prefs.b[b_wins]])
    dst = np.concatenate([prefs.b[a_wins], prefs.a[b_wins]])
    directed = csr_matrix((np.ones(src.size), (src, dst)), shape=(k, k))
    n_strong, strong = connected_components(directed, directed=True, connection="strong")
    problems = []
    never = np.flatnonzero(per == 0)
    if never.size:
        problems.append(f"never judged: {_names(systems, never)} — no score can be given")
    judged_groups = [g for g in groups if not (len(g) == 1 and per[systems.index(g[0])] == 0)]
    if len(judged_groups) > 1:
        listed = "; ".join("{" + ", ".join(g) + "}" for g in judged_groups)
        problems.append(
            f"the comparisons fall into {len(judged_groups)} groups never compared with each "
            f"other ({listed}): scores of different groups are not on one scale — judge "
            "pairs across the groups"
        )
    elif n_strong > 1 and not never.size:
        problems.append(_ford_problem(prefs, strong, n_strong))
    thin = np.flatnonzero((per > 0) & (per < min_per_system))
    if thin.size:
        problems.append(
            f"few judgments for {_names(systems, thin)} (under {min_per_system} each): "
            "their intervals are too wide to rank them"
        )
    pairs_judged = int(np.unique(prefs.pair_index()).size) if prefs.n else 0
    return GraphCheck(
        components=groups, strongly_connected=n_strong == 1,
        per_system={systems[i]: int(per[i]) for i in range(k)}, pairs_judged=pairs_judged,
        pairs_total=k * (k - 1) // 2, problems=tuple(problems),
    )  # fmt: skip


def _ford_problem(prefs: Preferences, strong: np.ndarray, n_strong: int) -> str:
    """Which group was always preferred (or never): the components with no way out."""
    k = prefs.k
    reach = np.zeros((n_strong, n_strong), dtype=bool)  # component → component edges
    for a, b, x in zip(prefs.a, prefs.b, prefs.outcome, strict=True):
        ca, cb = strong[a], strong[b]
        if ca != cb:
            if x >= 0.5:
                reach[ca, cb] = True
            if x <= 0.5:
                reach[cb, ca] = True
    top = [c for c in range(n_strong) if not reach[:, c].any()]  # never beaten from outside
    group = [i for i in range(k) if strong[i] in top[:1]]
    names = _names(prefs.systems, group)
    return (
        f"{names} won every comparison with the other systems (or lost every one): the "
        "Bradley–Terry score has no finite estimate and its interval runs off — judge more "
        "pairs with them"
    )
