"""Plans that fit the pool: does a plan's labels per system fit the campaign's items, and
what can the pool settle (docs/statistics-notes.md, "Plans that fit the pool")?"""

from __future__ import annotations

from dataclasses import dataclass

from estimators.planning.labels_needed import PERFECT_METRIC, measurable_difference, power_factor


@dataclass(frozen=True)
class PoolFit:
    """Does a plan fit the campaign's pool, and what can the pool settle?

    For m = k(k−1)/2 pairs of binary labels at their largest variance (adequacy 0.5), with
    every item of a pool of N labelled for each system (fixed-n paired test at Holm's first
    level α/m, the Planner's formula :func:`measurable_difference`):
    ``smallest_difference`` = the difference detected with probability ``power``,
    ``smallest_margin`` = the half-width of the α/m interval, i.e. the smallest ε an equal
    pair can be shown to be within. (At the census every pair settles exactly, but that
    spends the whole pool on every system.)
    """

    planned: int | None
    pool: int
    n_systems: int
    alpha: float
    smallest_difference: float
    smallest_margin: float

    @property
    def fits(self) -> bool:
        return self.planned is None or self.planned <= self.pool

    def sentences(self, margin: float | None = None) -> list[str]:
        """What the planner page, ``cli.py plan`` and the dashboard say about the fit."""
        m = max(self.n_systems * (self.n_systems - 1) // 2, 1)
        out = []
        if not self.fits:
            out.append(
                f"The plan asks for {self.planned:,} labels per system, more than the "
                f"{self.pool:,} items in the pool: the live verdicts are tuned to the pool "
                "instead, and pairs closer than the plan's difference may stay undecided "
                "until every item is labelled."
            )
        out.append(
            f"With all {self.pool:,} items labelled, {self.n_systems} systems ({m} pairs) at "
            f"error rate α = {self.alpha:g}: the smallest measurable difference this pool "
            f"settles with 80 % power "
            f"before the census is {self.smallest_difference:.3f}; equal systems can be "
            f"shown within ±{self.smallest_margin:.3f}."
        )
        if margin is not None:
            if margin < self.smallest_margin:
                out.append(
                    f"The equivalence margin ε = {margin:g} is below "
                    f"±{self.smallest_margin:.3f}: no pair can settle as 'no difference "
                    "larger than ε' before the census; a larger ε lets close pairs settle "
                    "early."
                )
            else:
                out.append(
                    f"ε = {margin:g}: pairs whose difference is well inside ±{margin:g} can "
                    "settle as 'no difference larger than ε' within the pool, freeing their "
                    "labels."
                )
        return out


def pool_fit(
    n_systems: int, pool: int, planned: int | None, alpha: float = 0.05, power: float = 0.8
) -> PoolFit:
    """:class:`PoolFit` for ``n_systems`` systems on a pool of ``pool`` items."""
    if pool < 1:
        raise ValueError("the pool has no items")
    m = max(n_systems * (n_systems - 1) // 2, 1)
    level = 1 - alpha / m
    half = measurable_difference(pool, 0, PERFECT_METRIC, 0.5, level)
    return PoolFit(
        planned=planned, pool=int(pool), n_systems=int(n_systems), alpha=alpha,
        smallest_difference=min(power_factor(level, power) * half, 1.0),
        smallest_margin=min(half, 1.0),
    )  # fmt: skip
