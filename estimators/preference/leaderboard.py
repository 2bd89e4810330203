"""The Bradley–Terry leaderboard with Davidson ties: scores, simultaneous intervals, rank sets.

docs/statistics-notes.md §28. Bradley & Terry (1952), "Rank analysis of incomplete block
designs I", Biometrika 39; Davidson (1970), "On extending the Bradley–Terry model to
accommodate ties in paired comparison experiments", JASA 65. System i has strength
π_i = exp(θ_i) and the ties a parameter ν = exp(η) ≥ 0:

    P(i preferred to j) = π_i / D,   P(tie) = ν √(π_i π_j) / D,   D = π_i + π_j + ν √(π_i π_j).

Dividing by √(π_i π_j), with d = (θ_i − θ_j)/2, a pair with weighted counts W (i preferred),
T (ties), L (j preferred), N = W + T + L adds to the log-likelihood

    ℓ = (W − L) d + T η − N log(2 cosh d + e^η),

whose Hessian depends on the counts only through N (observed = expected information):
∂²ℓ/∂d² = −N (4 + c ν)/D², ∂²ℓ/∂d∂η = N s ν/D², ∂²ℓ/∂η² = −N c ν/D² (c = 2 cosh d,
s = 2 sinh d, D = c + ν). Without a single tie ν = 0 (plain Bradley–Terry). θ is identified
by Σθ_i = 0: θ = Zβ, Z an orthonormal basis of the sum-zero vectors, and β̂ maximises ℓ by
Newton's method (scipy.optimize.minimize, "trust-exact") with a ridge ½·10⁻⁶‖β‖² that keeps
the estimate finite when a system won (or lost) every comparison — then its score and
interval run off and :mod:`estimators.preference.graph` says why.

Covariance: Cov(θ̂) = Z H⁻¹ Zᵀ (H the negative Hessian in β) with a uniform design; with
weights w = 1/π the sandwich Z H⁻¹ J H⁻¹ Zᵀ, J = Σ_i w_i² u_i u_iᵀ (u_i judgment i's score
vector), so the weighted (design-unbiased) fit keeps its coverage.

Simultaneous intervals for the scores (Bonferroni over the k systems): θ̂_i ± z_{1−α/(2k)}·se_i,
so all k intervals cover together with asymptotic probability ≥ 1 − α. The exact
max-statistic constant (the 1 − α quantile of max_i |Z_i|/se_i, Z ~ N(0, Cov θ̂), Monte Carlo
with a fixed seed) is smaller — the sum-zero scores are negatively correlated — and is
reported (``crit_max_stat``), not used: at fixed n with many systems the MLE's tails are
heavier than normal (k = 30 Davidson world, 6,000 judgments: 0.930 of 300 campaigns with
either constant), so the conservative one is kept. Pairwise differences get the
max-statistic constant c_Δ over the k(k−1)/2 differences, and the rank sets follow from the
differences whose simultaneous interval excludes 0 (:func:`estimators.base.multiple.rank_sets`):
with probability ≥ 1 − α (asymptotically) every system's true rank lies in its set, all at
once (measured ≥ 0.998 in every world tested: a rank set needs only the clear pairs ordered).
"Tied for first" are the systems whose rank set holds 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from estimators.base.multiple import RankSet, pairs, rank_sets
from estimators.preference.data import Preferences
from estimators.preference.firth import firth_fit

#: Ridge on β (see module): a Gaussian prior of SD 1000 on the log-strengths.
RIDGE = 1e-6
#: Monte Carlo draws for the max-statistic constants, and their seed (a fixed seed: one
#: data set, one answer).
DRAWS = 20_000
SEED = 20260
#: The fits :func:`bradley_terry` offers: Firth's bias-reduced one (the default) and the MLE.
FIT_METHODS = ("firth", "mle")
#: Elo-style display scale: 400/ln 10 points per unit of θ, centred at 1000 (Chatbot Arena's).
ELO_SCALE = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class SystemScore:
    """One row of the leaderboard (θ on the log-strength scale, Σθ = 0)."""

    system: str
    theta: float
    se: float
    low: float  # simultaneous interval (Bonferroni over the systems, see module)
    high: float
    rank: RankSet
    n: int  # judgments that compared this system

    @property
    def elo(self) -> float:
        return 1000.0 + ELO_SCALE * self.theta


@dataclass(frozen=True)
class Leaderboard:
    """The Davidson fit (module docstring), rows ordered by θ̂ (best first)."""

    rows: tuple[SystemScore, ...]
    theta: np.ndarray  # in the systems' order
    cov: np.ndarray  # Cov(θ̂), k × k
    tie_param: float  # ν̂ (0 without ties)
    crit_scores: float  # z_{1−α/(2k)}: simultaneous constant for the k scores (Bonferroni)
    crit_differences: float  # c_Δ: max-statistic constant for the k(k−1)/2 differences
    alpha: float
    converged: bool
    crit_max_stat: float = float("nan")  # the scores' max-statistic constant, for reference
    method: str = "Bonferroni over systems; max-statistic over differences"

    def tied_for_first(self) -> list[str]:
        """The systems whose rank set holds rank 1."""
        return [r.system for r in self.rows if r.rank.best == 1]

    def first_text(self) -> str:
        top = self.tied_for_first()
        if len(top) == 1:
            return f"first: {top[0]}"
        return "tied for first: " + ", ".join(top)


def _basis(k: int) -> np.ndarray:
    """An orthonormal basis (k × (k−1)) of the vectors summing to 0."""
    q, _ = np.linalg.qr(np.eye(k)[:, : k - 1] - 1.0 / k)
    return q[:, : k - 1]


def pair_counts(prefs: Preferences) -> np.ndarray:
    """(m, 3) weighted counts (W, T, L) of every pair in :func:`pairs` order."""
    m = prefs.k * (prefs.k - 1) // 2
    idx = prefs.pair_index()
    w = prefs.weights
    out = np.zeros((m, 3))
    for col, value in enumerate((1.0, 0.5, 0.0)):
        hit = prefs.outcome == value
        out[:, col] = np.bincount(idx[hit], weights=w[hit], minlength=m)
    return out


class _Fit:
    """ℓ(β, η) and its derivatives (module docstring) for fixed counts."""

    def __init__(self, k: int, counts: np.ndarray, ties: bool) -> None:
        self.k, self.ties = k, ties
        plist = np.array(pairs(k)).reshape(-1, 2)
        keep = counts.sum(axis=1) > 0
        self.ia, self.ib = plist[keep, 0], plist[keep, 1]
        self.W, self.T, self.L = counts[keep].T
        self.N = self.W + self.T + self.L
        self.Z = _basis(k)
        # dd/dβ for each pair: half the difference of the two rows of Z
        self.G = 0.5 * (self.Z[self.ia] - self.Z[self.ib])

    def split(self, par: np.ndarray) -> tuple[np.ndarray, float]:
        beta = par[: self.k - 1]
        return beta, float(par[-1]) if self.ties else -np.inf

    def pieces(self, par: np.ndarray):  # type: ignore[no-untyped-def]
        """(β, η, d, c = 2 cosh d, s = 2 sinh d, ν, D = c + ν) per judged pair."""
        beta, eta = self.split(par)
        d = self.G @ beta
        c, s = 2.0 * np.cosh(d), 2.0 * np.sinh(d)
        nu = math.exp(eta) if self.ties else 0.0
        return beta, eta, d, c, s, nu, c + nu

    def negll(self, par: np.ndarray) -> float:
        beta, eta, d, *_, D = self.pieces(par)
        ll = np.sum((self.W - self.L) * d - self.N * np.log(D))
        if self.ties:
            ll += float(np.sum(self.T)) * eta
        return float(-ll + 0.5 * RIDGE * beta @ beta)

    def grad(self, par: np.ndarray) -> np.ndarray:
        beta, _, _, _, s, nu, D = self.pieces(par)
        gd = self.W - self.L - self.N * s / D
        g = [self.G.T @ gd]
        if self.ties:
            g.append(np.array([np.sum(self.T) - np.sum(self.N * nu / D)]))
        return -np.concatenate(g) + RIDGE * np.concatenate([beta, [0.0] * self.ties])

    def hess(self, par: np.ndarray) -> np.ndarray:
        """The negative Hessian of ℓ (plus the ridge): the information matrix."""
        *_, c, s, nu, D = self.pieces(par)
        hdd = self.N * (4.0 + c * nu) / D**2
        h_bb = (self.G * hdd[:, None]).T @ self.G
        if not self.ties:
            return h_bb + RIDGE * np.eye(self.k - 1)
        hde = -self.N * s * nu / D**2
        hee = float(np.sum(self.N * c * nu / D**2))
        top = np.hstack([h_bb + RIDGE * np.eye(self.k - 1), (self.G.T @ hde)[:, None]])
        bottom = np.concatenate([self.G.T @ hde, [hee]])[None, :]
        return np.vstack([top, bottom])


def _scores(prefs: Preferences, fit: _Fit, par: np.ndarray) -> np.ndarray:
    """Per judgment the score vector u_i = ∂ℓ_i/∂(β, η) (for the sandwich)."""
    beta, eta = fit.split(par)
    Z = fit.Z
    g = 0.5 * (Z[prefs.a] - Z[prefs.b])
    d = g @ beta
    c, s = 2.0 * np.cosh(d), 2.0 * np.sinh(d)
    nu = math.exp(eta) if fit.ties else 0.0
    D = c + nu
    x = prefs.outcome
    ud = np.where(x == 1.0, 1.0, np.where(x == 0.0, -1.0, 0.0)) - s / D
    cols = [g * ud[:, None]]
    if fit.ties:
        cols.append(((x == 0.5) - nu / D)[:, None])
    return np.hstack(cols)


def max_stat_constant(cov: np.ndarray, alpha: float, draws: int = DRAWS,
                      seed: int = SEED, contrasts: np.ndarray | None = None) -> float:  # fmt: skip
    """c = the 1 − α quantile of max_j |Y_j|/sd_j, Y = C Z, Z ~ N(0, cov) (Monte Carlo with a
    fixed seed; cov may be singular; C = ``contrasts``, the identity when None: the
    differences' constant draws Z in the k dimensions of the scores and takes C Z, never
    factorising the k(k−1)/2 × k(k−1)/2 covariance of the differences). Rows of zero
    variance are left out."""
    cov = np.asarray(cov, dtype=float)
    vals, vecs = np.linalg.eigh((cov + cov.T) / 2.0)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))  # cov = root rootᵀ
    if contrasts is not None:
        root = np.asarray(contrasts, dtype=float) @ root
    sd = np.sqrt(np.sum(root * root, axis=1))
    keep = sd > 1e-12 * max(float(sd.max(initial=0.0)), 1e-300)
    if not keep.any():
        return float("nan")
    root = root[keep] / sd[keep, None]
    rng = np.random.default_rng(seed)
    maxima = np.empty(draws)
    chunk = max(1, 2_000_000 // max(root.shape[0], 1))
    for start in range(0, draws, chunk):
        stop = min(draws, start + chunk)
        z = rng.standard_normal((stop - start, root.shape[1])) @ root.T
        maxima[start:stop] = np.max(np.abs(z), axis=1)
    return float(np.quantile(maxima, 1.0 - alpha))


def contrast_matrix(k: int) -> np.ndarray:
    """C ((k(k−1)/2) × k): row (a, b) in :func:`pairs` order picks θ_a − θ_b."""
    plist = np.array(pairs(k)).reshape(-1, 2)
    C = np.zeros((plist.shape[0], k))
    C[np.arange(plist.shape[0]), plist[:, 0]] = 1.0
    C[np.arange(plist.shape[0]), plist[:, 1]] = -1.0
    return C


def difference_cov(cov: np.ndarray) -> np.ndarray:
    """Cov of the k(k−1)/2 differences θ̂_a − θ̂_b in :func:`pairs` order."""
    C = contrast_matrix(cov.shape[0])
    return C @ cov @ C.T


def bradley_terry(
    prefs: Preferences, *, alpha: float = 0.05, draws: int = DRAWS, fit_method: str = "firth"
) -> Leaderboard:
    """The Davidson (Bradley–Terry with ties) fit with simultaneous intervals and rank sets
    (module docstring). Needs at least two systems. ``draws``: Monte Carlo draws of the
    max-statistic constants; ``fit_method``: "firth" (bias-reduced,
    :mod:`estimators.preference.firth`, the default) or "mle"."""
    k = prefs.k
    if k < 2:
        raise ValueError("a leaderboard needs at least two systems")
    if fit_method not in FIT_METHODS:
        raise ValueError(f"fit_method must be one of {', '.join(FIT_METHODS)}, not {fit_method!r}")
    # weights rescaled to mean 1: the MLE and the sandwich do not change, and Firth's
    # penalty then weighs as many judgments as were made
    scale = prefs.n / float(prefs.weights.sum()) if prefs.n else 1.0
    counts = pair_counts(prefs) * scale
    ties = bool(counts[:, 1].sum() > 0)
    fit = _Fit(k, counts, ties)
    start = np.zeros(k - 1 + ties)
    if ties:
        share = counts[:, 1].sum() / max(counts.sum(), 1e-12)
        start[-1] = math.log(max(2 * share / max(1 - share, 1e-9), 1e-6))
    res = optimize.minimize(fit.negll, start, jac=fit.grad, hess=fit.hess, method="trust-exact",
                            options={"gtol": 1e-9, "maxiter": 500})  # fmt: skip
    par = res.x
    # trust-exact may stop on "failure to predict improvement" at the optimum itself
    converged = bool(res.success) or float(np.max(np.abs(fit.grad(par)), initial=0.0)) < 1e-6 * max(
        1.0, float(counts.sum())
    )
    if fit_method == "firth":  # Fisher scoring on the penalised likelihood, from the MLE
        # unless it ran off (a system that won or lost every comparison)
        near = bool(np.all(np.isfinite(par)) and np.max(np.abs(par[: k - 1]), initial=0) < 10)
        par, converged = firth_fit(fit, par if near else start)
    info_inv = np.linalg.pinv(fit.hess(par))
    if prefs.weight is not None:
        u = _scores(prefs, fit, par) * (prefs.weights * scale)[:, None]
        info_inv = info_inv @ (u.T @ u) @ info_inv
    Z = fit.Z
    cov = Z @ info_inv[: k - 1, : k - 1] @ Z.T
    theta = Z @ par[: k - 1]
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    c = float(stats.norm.ppf(1.0 - alpha / (2 * k)))
    c_max = max_stat_constant(cov, alpha, draws)
    dcov = difference_cov(cov)
    c_d = max_stat_constant(cov, alpha, draws, seed=SEED + 1, contrasts=contrast_matrix(k))
    plist = pairs(k)
    diff = np.array([theta[a] - theta[b] for a, b in plist])
    dse = np.sqrt(np.clip(np.diag(dcov), 0.0, None))
    significant = np.abs(diff) > c_d * dse
    ranks = rank_sets(k, significant, diff)
    per_system = np.bincount(prefs.a, minlength=k) + np.bincount(prefs.b, minlength=k)
    order = np.argsort(-theta, kind="stable")
    rows = tuple(
        SystemScore(system=prefs.systems[i], theta=float(theta[i]), se=float(se[i]),
                    low=float(theta[i] - c * se[i]), high=float(theta[i] + c * se[i]),
                    rank=ranks[i], n=int(per_system[i]))
        for i in order
    )  # fmt: skip
    return Leaderboard(
        rows=rows, theta=theta, cov=cov, tie_param=math.exp(par[-1]) if ties else 0.0,
        crit_scores=c, crit_differences=c_d, alpha=alpha, converged=converged,
        crit_max_stat=c_max,
    )  # fmt: skip
