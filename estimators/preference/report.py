"""A preference campaign's numbers in one object: pairs, leaderboard, graph, position bias.

docs/statistics-notes.md §28. :func:`preference_report` runs every preference estimator on
one :class:`~estimators.preference.data.Preferences`:

- per pair, the win rate (ties half), tie rate, anytime interval, p-value and verdict under
  Holm or e-BH (:mod:`estimators.preference.pairs`, the verdicts of every other label kind);
- the Bradley–Terry–Davidson leaderboard with simultaneous intervals and rank sets
  (:mod:`estimators.preference.leaderboard`), left out (None) while the comparison graph
  does not allow it (:mod:`estimators.preference.graph`);
- the left-position win rate (:mod:`estimators.preference.position`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from estimators.base.multiple import pairs
from estimators.base.verdicts import ErrorRate
from estimators.preference.data import Preferences
from estimators.preference.graph import GraphCheck, check_graph
from estimators.preference.judge_live import JudgeStreams
from estimators.preference.leaderboard import Leaderboard, bradley_terry
from estimators.preference.pairs import PairPreference, pair_preferences
from estimators.preference.position import LeftBias, left_bias


@dataclass(frozen=True)
class PreferenceReport:
    """Everything :func:`preference_report` computes (module docstring)."""

    systems: tuple[str, ...]
    n: int
    alpha: float
    epsilon: float
    correction: str
    pairs: tuple[PairPreference, ...]
    leaderboard: Leaderboard | None
    graph: GraphCheck
    position: LeftBias
    problems: tuple[str, ...]
    #: adaptive pair selection: the known floor δ of every π (None: uniform draws)
    floor: float | None = None

    def pair(self, a: str, b: str) -> PairPreference | None:
        """The pair (a, b) in either order, seen from ``a`` (None when never judged)."""
        for row in self.pairs:
            if (row.a, row.b) == (a, b):
                return row
            if (row.a, row.b) == (b, a):
                return flipped(row)
        return None


def flipped(row: PairPreference) -> PairPreference:
    """The same pair seen from its second system."""
    from dataclasses import replace

    from estimators.base.verdicts import Outcome

    swap = {Outcome.A_BETTER: Outcome.B_BETTER, Outcome.B_BETTER: Outcome.A_BETTER}
    return replace(
        row, a=row.b, b=row.a, wins_a=row.wins_b, wins_b=row.wins_a,
        win_rate=1.0 - row.win_rate, low=1.0 - row.high, high=1.0 - row.low,
        outcome=swap.get(row.outcome, row.outcome),
    )  # fmt: skip


def _uneven_weights(prefs: Preferences) -> list[str]:
    """A note for the pairs whose judgments carry unequal weights 1/π: their win rate is the
    weighted (Hájek) mean, while the betting verdict reads the judgments unweighted, which
    is exact only when the pair's sources were drawn with equal probability. None for an
    adaptive campaign (``prefs.floor`` set): its verdicts read the weighted increments."""
    if prefs.weight is None or prefs.n == 0 or prefs.floor is not None:
        return []
    idx = prefs.pair_index()
    m = prefs.k * (prefs.k - 1) // 2
    lo = np.full(m, np.inf)
    hi = np.full(m, -np.inf)
    np.minimum.at(lo, idx, prefs.weight)
    np.maximum.at(hi, idx, prefs.weight)
    uneven = np.flatnonzero(hi > lo * (1 + 1e-9))
    if not uneven.size:
        return []
    names = [f"{prefs.systems[a]}–{prefs.systems[b]}" for a, b in
             (pairs(prefs.k)[int(i)] for i in uneven[:5])]  # fmt: skip
    more = f" and {uneven.size - 5} more" if uneven.size > 5 else ""
    return [
        f"the judgments of {', '.join(names)}{more} were drawn with unequal probabilities: "
        "their win rates are weighted, their live verdicts assume equal probabilities"
    ]


def _judge_gaps(prefs: Preferences, judge: JudgeStreams | None) -> list[str]:
    """A note for the pairs the judge's preferences could not serve as a control for."""
    if judge is None or not judge.skipped:
        return []
    names = [f"{prefs.systems[a]}–{prefs.systems[b]}" for a, b in
             (pairs(prefs.k)[i] for i in judge.skipped[:5])]  # fmt: skip
    more = f" and {len(judge.skipped) - 5} more" if len(judge.skipped) > 5 else ""
    return [
        f"{judge.name} did not judge every source the humans judged for {', '.join(names)}"
        f"{more}: their verdicts use the human judgments alone"
    ]


def preference_report(
    prefs: Preferences,
    *,
    alpha: float = 0.05,
    epsilon: float = 0.0,
    correction: str = "holm",
    t_star: float | None = None,
    judge: JudgeStreams | None = None,
) -> PreferenceReport:
    """The report of the module docstring. ``correction``: "holm" (family-wise error rate)
    or "ebh" (false discovery rate); ``epsilon``: the margin on the win-rate scale (a pair is
    "within ε" when its interval lies inside ½ ± ε); ``t_star``: judgments per pair the bets
    are sized for (:func:`estimators.preference.pairs.pair_preferences`); ``judge``: a
    judge's preferences as the verdicts' control (:mod:`estimators.preference.judge_live`)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), not {alpha}")
    if not 0.0 <= epsilon < 0.5:
        raise ValueError(f"epsilon is a margin on the win-rate scale, in [0, 0.5), not {epsilon}")
    ErrorRate(correction)  # a clear error for an unknown correction
    rows = pair_preferences(prefs, alpha=alpha, epsilon=epsilon, correction=correction,
                            t_star=t_star, judge=judge)  # fmt: skip
    graph = check_graph(prefs)
    problems = list(graph.problems) + _uneven_weights(prefs) + _judge_gaps(prefs, judge)
    board = None
    if prefs.k >= 2 and graph.connected and prefs.n:
        board = bradley_terry(prefs, alpha=alpha)
        if not board.converged:
            problems.append("the Bradley–Terry fit did not converge: its scores are not shown")
            board = None
    return PreferenceReport(
        systems=prefs.systems, n=prefs.n, alpha=alpha, epsilon=epsilon,
        correction=correction, pairs=tuple(rows), leaderboard=board, graph=graph,
        position=left_bias(prefs, alpha=alpha), problems=tuple(problems), floor=prefs.floor,
    )  # fmt: skip
