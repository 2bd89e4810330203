"""Pairwise preference judgments as plain arrays: what every preference estimator reads.

One entry per judgment, in the order the judgments were made (the anytime-valid verdicts read
them in that order). A judgment compares two systems' outputs of the same source; the pair is
stored canonically as (a, b) with a < b (indices into ``systems``) and the outcome is seen from
a: 1 when a's output was preferred, ½ for a tie, 0 when b's was. ``a_on_left`` records where a
was shown, for the position-bias check; ``weight`` is 1/π, π the probability with which the
queue showed that pair (None: every pair drawn with equal probability). ``floor`` is set
when the queue chose the pairs adaptively (annotation.queue.pair_policy): the known lower
bound δ of every π, so the verdicts read inverse-probability-weighted increments
(:mod:`estimators.preference.adaptive`); ``present`` (n × k, bool) then says which systems
each judged source has (None: every source has every system).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: The outcomes a judgment may carry: a preferred, tie, b preferred.
OUTCOMES = (1.0, 0.5, 0.0)


@dataclass(frozen=True)
class Preferences:
    """Pairwise judgments (module docstring). Checked on construction: a clear ValueError
    names the first bad entry."""

    systems: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    a_on_left: np.ndarray
    weight: np.ndarray | None = None
    floor: float | None = None
    present: np.ndarray | None = None

    def __post_init__(self) -> None:
        systems = tuple(str(s) for s in self.systems)
        if len(set(systems)) != len(systems):
            raise ValueError("system names must be distinct")
        a = np.asarray(self.a, dtype=np.int64).reshape(-1)
        b = np.asarray(self.b, dtype=np.int64).reshape(-1)
        outcome = np.asarray(self.outcome, dtype=float).reshape(-1)
        left = np.asarray(self.a_on_left, dtype=bool).reshape(-1)
        n = a.size
        for name, arr in (("b", b), ("outcome", outcome), ("a_on_left", left)):
            if arr.size != n:
                raise ValueError(f"{name} has {arr.size} entries, a has {n}")
        k = len(systems)
        bad = np.flatnonzero((a < 0) | (b >= k) | (a >= b))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"judgment {i}: pair ({int(a[i])}, {int(b[i])}) is not a canonical pair of "
                f"the {k} systems (need 0 ≤ a < b < {k}; swap a and b and use 1 − outcome)"
            )
        bad = np.flatnonzero(~np.isin(outcome, OUTCOMES))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"judgment {i}: outcome {float(outcome[i])!r} is not 1, 0.5 or 0")
        weight = None
        if self.weight is not None:
            weight = np.asarray(self.weight, dtype=float).reshape(-1)
            if weight.size != n:
                raise ValueError(f"weight has {weight.size} entries, a has {n}")
            bad = np.flatnonzero(~(np.isfinite(weight) & (weight >= 1.0 - 1e-12)))
            if bad.size:
                i = int(bad[0])
                raise ValueError(
                    f"judgment {i}: weight {float(weight[i])!r} is not 1/π for a probability π "
                    "in (0, 1]"
                )
        floor, present = self._adaptive(weight, a, b, k)
        for name, value in (("systems", systems), ("a", a), ("b", b), ("outcome", outcome),
                            ("a_on_left", left), ("weight", weight), ("floor", floor),
                            ("present", present)):  # fmt: skip
            object.__setattr__(self, name, value)

    def _adaptive(self, weight, a, b, k):  # type: ignore[no-untyped-def]
        """The checked floor and present-systems mask (module docstring)."""
        floor = None if self.floor is None else float(self.floor)
        if floor is not None:
            if not 0.0 < floor <= 1.0:
                raise ValueError(f"floor {floor!r} is not a probability in (0, 1]")
            if weight is not None and weight.size and float(weight.max()) > 1.0 / floor + 1e-9:
                i = int(np.argmax(weight))
                raise ValueError(
                    f"judgment {i}: π = {1.0 / float(weight[i]):.6g} is below the floor {floor:.6g}"
                )
        if self.present is None:
            return floor, None
        present = np.asarray(self.present, dtype=bool)
        if present.shape != (a.size, k):
            raise ValueError(f"present has shape {present.shape}, not ({a.size}, {k})")
        bad = np.flatnonzero(~(present[np.arange(a.size), a] & present[np.arange(a.size), b]))
        if bad.size:
            raise ValueError(f"judgment {int(bad[0])}: its source lacks one of its two systems")
        return floor, present

    @property
    def k(self) -> int:
        return len(self.systems)

    @property
    def n(self) -> int:
        return int(self.a.size)

    @property
    def weights(self) -> np.ndarray:
        """1/π per judgment (ones when the design is uniform)."""
        return np.ones(self.n) if self.weight is None else self.weight

    def pair_index(self) -> np.ndarray:
        """Each judgment's pair as its index in :func:`estimators.base.multiple.pairs` order
        ((0, 1), (0, 2), …, (k−2, k−1))."""
        k = self.k
        return self.a * k - self.a * (self.a + 1) // 2 + (self.b - self.a - 1)

    def left_won(self) -> np.ndarray:
        """The outcome seen from the output shown on the left (1 left preferred, ½ tie)."""
        return np.where(self.a_on_left, self.outcome, 1.0 - self.outcome)


def preferences_from_names(
    systems: Sequence[str],
    left: Sequence[str],
    right: Sequence[str],
    winner: Sequence[str],
    weight: Sequence[float] | None = None,
) -> Preferences:
    """Judgments given by name as shown: the left and right system and the ``winner`` —
    ``"left"``, ``"right"`` or ``"tie"`` — turned into canonical pairs."""
    index = {s: i for i, s in enumerate(systems)}
    rows = []
    for i, (lname, rname, w) in enumerate(zip(left, right, winner, strict=True)):
        if lname not in index or rname not in index:
            missing = lname if lname not in index else rname
            raise ValueError(f"judgment {i}: unknown system {missing!r}")
        if lname == rname:
            raise ValueError(f"judgment {i}: a system compared with itself ({lname!r})")
        if w not in ("left", "right", "tie"):
            raise ValueError(f"judgment {i}: winner {w!r} is not left, right or tie")
        li, ri = index[lname], index[rname]
        x_left = {"left": 1.0, "right": 0.0, "tie": 0.5}[w]
        a_left = li < ri
        a, b = (li, ri) if a_left else (ri, li)
        rows.append((a, b, x_left if a_left else 1.0 - x_left, a_left))
    arr = np.array(rows, dtype=float).reshape(-1, 4)
    return Preferences(
        systems=tuple(systems), a=arr[:, 0].astype(int), b=arr[:, 1].astype(int),
        outcome=arr[:, 2], a_on_left=arr[:, 3].astype(bool),
        weight=None if weight is None else np.asarray(weight, dtype=float),
    )  # fmt: skip
