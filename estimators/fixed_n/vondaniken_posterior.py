"""The grid posterior of the von Däniken et al. (2022) model (:mod:`estimators.fixed_n.vondaniken`).

Posterior of a system's adequacy rate

    α ∝ α^{h₊}(1−α)^{h₋} · ∫∫ Bin(m₊; n_m, α_M(α, ρ, η)) p(ρ) p(η) dρ dη

(von Däniken, Deriu, Tuggener, Cieliebak 2022, §3.3; docs/statistics-notes.md §16.3–§16.4),
with α_M = (ρ + η − 1)·α + (1 − η), ρ ~ Beta(TP+1, FN+1), η ~ Beta(TN+1, FP+1) from a
calibration set (or point masses). The double integral is done by adaptive Gauss–Hermite
quadrature (Liu & Pierce 1994) at Chebyshev knots in α and interpolated (barycentric) to a grid.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import special


@dataclass(frozen=True)
class Ratings:
    """One system's ratings: h₊ of n_h human labels positive, m₊ of n_m metric verdicts
    positive, on separate items. Counts may be non-integer (expected data, for planning)."""

    h_pos: float
    n_h: float
    m_pos: float
    n_m: float

    @classmethod
    def from_labels(cls, y_labelled: np.ndarray, m_unlabelled: np.ndarray) -> Ratings:
        """Counts from binary human labels and the metric's verdicts on the other items."""
        y = np.asarray(y_labelled).astype(int).ravel()
        m_u = np.asarray(m_unlabelled).astype(bool).ravel()
        return cls(int(y.sum()), y.size, int(m_u.sum()), m_u.size)


@dataclass(frozen=True)
class MetricAccuracy:
    """A binary metric against humans: its true-positive rate ρ and true-negative rate η,
    each known (a point mass) or, when not given, Beta(TP+1, FN+1) and Beta(TN+1, FP+1)
    from ``calibration = (TP, FN, TN, FP)``."""

    rho: float | None = None
    eta: float | None = None
    calibration: tuple[float, float, float, float] | None = None

    def __post_init__(self) -> None:
        if (self.rho is None or self.eta is None) and self.calibration is None:
            raise ValueError("give rho and eta, or calibration=(TP, FN, TN, FP)")

    def rates(self) -> tuple[_Rate, _Rate]:
        """ρ and η as known rates or Beta posteriors from the calibration counts."""
        if self.rho is not None and self.eta is not None:
            return _Rate(self.rho, None), _Rate(self.eta, None)
        tp, fn, tn, fp = map(float, self.calibration)  # type: ignore[arg-type]
        return (
            _Rate(self.rho, None if self.rho is not None else (tp, fn)),
            _Rate(self.eta, None if self.eta is not None else (tn, fp)),
        )


@dataclass(frozen=True)
class Posterior:
    """Posterior of α on a grid: mean, variance and the equal-tailed interval."""

    mean: float
    var: float
    low: float
    high: float
    grid: np.ndarray
    density: np.ndarray


@functools.lru_cache(maxsize=8)
def _gauss_hermite(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes t and log-weights log(w)+t² for ∫ F(x) dx ≈ Σ exp(lw) F(t) (Gauss–Hermite)."""
    t, w = np.polynomial.hermite.hermgauss(k)
    return t, np.log(w) + t * t


def _beta_logpdf(z: np.ndarray, a: float, b: float) -> np.ndarray:
    zc = np.clip(z, 1e-300, 1 - 1e-16)
    out = (a - 1) * np.log(zc) + (b - 1) * np.log(1 - zc) - special.betaln(a, b)
    out[(z <= 0) | (z >= 1)] = -np.inf
    return out


def _lse(x: np.ndarray) -> np.ndarray:
    """log Σ exp over the last axis (a lean logsumexp; rows of -inf give -inf)."""
    top = x.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(x - top).sum(axis=-1)) + top[..., 0]


class _Rate:
    """A rate that is known (``sd == 0``) or Beta(k₁+1, k₀+1) from calibration counts."""

    def __init__(self, known: float | None, counts: tuple[float, float] | None):
        if known is not None:
            self.a = self.b = math.nan
            self.mean, self.var = float(known), 0.0
        else:
            self.a, self.b = counts[0] + 1.0, counts[1] + 1.0
            s = self.a + self.b
            self.mean, self.var = self.a / s, self.a * self.b / (s * s * (s + 1))

    @property
    def known(self) -> bool:
        return self.var == 0.0

    def logpdf(self, z: np.ndarray) -> np.ndarray:
        return _beta_logpdf(z, self.a, self.b)


class _MetricLik:
    """log p(m₊ | α) = log ∫∫ Bin(m₊; n_m, αρ + (1−α)(1−η)) p(ρ) p(η) dρ dη (up to a constant).

    Known rates give the binomial directly. Otherwise, for each α, change variables
    (ρ, η) → (x = α_M, v) and use adaptive Gauss–Hermite quadrature (Liu & Pierce 1994):
    x-nodes centred on the normal approximation of Bin(m₊; n, x)·p(x | α), v-nodes on the
    normal approximation of the remaining Beta product. ``k`` nodes per dimension.
    """

    def __init__(self, m_pos, n_m, rho: _Rate, eta: _Rate, k: int | None = None):
        self.m_pos, self.m_neg = float(m_pos), float(n_m - m_pos)
        if k is None:  # skewed Betas (small calibration counts) need more nodes
            smallest = (
                min(x for r in (rho, eta) if not r.known for x in (r.a, r.b))
                if not (rho.known and eta.known)
                else math.inf
            )
            k = 12 if smallest >= 30 else 24
        self.rho, self.eta, self.k = rho, eta, k
        self.exact = rho.known and eta.known
        x_hat = (self.m_pos + 0.5) / (n_m + 1.0)
        self.x_hat, self.w2 = x_hat, x_hat * (1 - x_hat) / (n_m + 1.0)

    def _binom(self, x: np.ndarray) -> np.ndarray:
        xc = np.clip(x, 1e-300, 1 - 1e-16)
        ll = self.m_pos * np.log(xc) + self.m_neg * np.log(1 - xc)
        ll[(x < 0) | (x > 1)] = -np.inf
        return ll

    def __call__(self, alpha: np.ndarray, k: int | None = None) -> np.ndarray:
        rho, eta = self.rho, self.eta
        if self.exact:
            return self._binom(rho.mean * alpha + (1 - eta.mean) * (1 - alpha))
        alpha = np.clip(np.asarray(alpha, float), 1e-9, 1 - 1e-9)
        out = np.empty(alpha.shape)
        # explicit variable: η where α ≥ 1/2 (ρ implied, Jacobian 1/α), else ρ
        hi = alpha >= 0.5
        if rho.known:
            hi[:] = False
        elif eta.known:
            hi[:] = True
        for mask, eta_explicit in ((hi, True), (~hi, False)):
            if mask.any():
                out[mask] = self._integrate(alpha[mask], eta_explicit, k or self.k)
        return out

    def _integrate(self, a: np.ndarray, eta_explicit: bool, k: int) -> np.ndarray:
        rho, eta = self.rho, self.eta
        t, lw = _gauss_hermite(k)
        # x = α_M: prior-induced normal approximation times the binomial's
        mu_x = a * rho.mean + (1 - a) * (1 - eta.mean)
        s2 = a * a * rho.var + (1 - a) ** 2 * eta.var
        prec = 1 / self.w2 + 1 / s2
        tau = 1 / np.sqrt(prec)
        c = (self.x_hat / self.w2 + mu_x / s2) / prec
        x = c[:, None] + math.sqrt(2) * tau[:, None] * t[None, :]  # (A, K)
        lx = self._binom(x) + lw[None, :] + np.log(math.sqrt(2) * tau)[:, None]
        a3 = a[:, None, None]
        x3 = x[:, :, None]
        if eta_explicit:  # v = η, ρ = (x − (1−α)(1−η))/α
            explicit, implied, coef_i, coef_v = eta, rho, a3, 1 - a3
            # ρ(η) ~ N(μ_ρ, v_ρ)  ⇔  η ~ N((αμ_ρ − x + 1 − α)/(1−α), v_ρ α²/(1−α)²)
            centre_c = (a3 * implied.mean - x3 + 1 - a3) / coef_v
        else:  # v = ρ, η = 1 − (x − αρ)/(1−α)
            explicit, implied, coef_i, coef_v = rho, eta, 1 - a3, a3
            centre_c = (x3 - (1 - a3) * (1 - implied.mean)) / coef_v
        if implied.known:
            # x determines the explicit variable exactly: one node, Jacobian 1/coef_v
            v = centre_c
            lv = explicit.logpdf(v) - np.log(coef_v)
            return _lse((lx[:, :, None] + lv).reshape(a.size, -1))
        var_c = implied.var * coef_i**2 / coef_v**2
        prec_v = 1 / explicit.var + 1 / var_c
        sd_v = 1 / np.sqrt(prec_v)
        centre = (explicit.mean / explicit.var + centre_c / var_c) / prec_v
        v = centre + math.sqrt(2) * sd_v * t[None, None, :]
        # the implied variable: ρ = (x − (1−α)(1−η))/α, or η = 1 − (x − αρ)/(1−α)
        imp = (x3 - (1 - a3) * (1 - v)) / a3 if eta_explicit else 1 - (x3 - a3 * v) / (1 - a3)
        lv = (
            explicit.logpdf(v)
            + implied.logpdf(imp)
            - np.log(coef_i)
            + lw[None, None, :]
            + np.log(math.sqrt(2) * sd_v)
        )
        return _lse((lx[:, :, None] + lv).reshape(a.size, -1))


def _chebyshev_matrix(k: int, g: int) -> tuple[np.ndarray, np.ndarray]:
    """Chebyshev–Lobatto knots on [0, 1] and the barycentric matrix to g uniform points."""
    j = np.arange(k)
    knots = (1 - np.cos(np.pi * j / (k - 1))) / 2
    w = (-1.0) ** j
    w[[0, -1]] /= 2
    t = np.linspace(0, 1, g)
    diff = t[:, None] - knots[None, :]
    exact = diff == 0
    diff[exact] = 1.0
    m = w / diff
    m /= m.sum(axis=1, keepdims=True)
    rows = exact.any(axis=1)
    m[rows] = exact[rows].astype(float)
    return knots, m


_FINE = 513
_CHEB_KNOTS, _CHEB_MATRIX = _chebyshev_matrix(33, _FINE)


def _human_loglik(alpha: np.ndarray, h_pos: float, h_neg: float) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return special.xlogy(h_pos, alpha) + special.xlog1py(h_neg, -alpha)


def posterior(ratings: Ratings, metric: MetricAccuracy, level: float = 0.95) -> Posterior:
    """Posterior of α ∝ α^{h₊}(1−α)^{h₋} · ∫∫ Bin(m₊; n_m, α_M(α, ρ, η)) p(ρ) p(η) dρ dη.

    von Däniken et al. (2022, §3.3); uniform prior on α. ρ and η as ``metric`` gives them
    (:class:`MetricAccuracy`: point masses, or Beta posteriors from calibration counts).
    Counts may be non-integer (expected data, for planning). Evaluated by a coarse pass
    over [0, 1] that finds the posterior's support, then 513 grid points across it; the
    calibrated likelihood is computed at 33 Chebyshev knots and interpolated in α.
    """
    h_pos, n_m = ratings.h_pos, ratings.n_m
    h_neg = float(ratings.n_h - h_pos)
    lik = _MetricLik(ratings.m_pos, n_m, *metric.rates()) if n_m > 0 else None

    grid, lp = _log_posterior(lik, h_pos, h_neg, 0.0, 1.0, coarse=True)
    keep = np.flatnonzero(lp > lp.max() - 45)
    step = 1 / 32
    lo, hi = max(0.0, grid[keep[0]] - step), min(1.0, grid[keep[-1]] + step)
    grid, lp = _log_posterior(lik, h_pos, h_neg, lo, hi, coarse=False)
    return _summarise(grid, lp, level)


def _log_posterior(
    lik: _MetricLik | None, h_pos: float, h_neg: float, lo: float, hi: float, coarse: bool
) -> tuple[np.ndarray, np.ndarray]:
    """log posterior of α (up to a constant) on a grid over [lo, hi]: the human
    log-likelihood plus the metric's, from 17 knots with 8 nodes interpolated linearly
    (``coarse``: locating the support over 2049 points) or from 33 Chebyshev knots
    interpolated to the 513-point grid."""
    grid = np.linspace(lo, hi, 2049 if coarse else _FINE)
    lp = _human_loglik(grid, h_pos, h_neg)
    if lik is None:
        return grid, lp
    if lik.exact:
        return grid, lp + lik(grid)
    if coarse:  # locate the support: 17 knots, 8 nodes, linear interpolation
        knots = np.linspace(lo, hi, 17)
        ll = lik(knots, k=8)
    else:  # Chebyshev interpolation from 33 knots to the fine grid
        knots = lo + (hi - lo) * _CHEB_KNOTS
        ll = lik(knots)
    finite = np.isfinite(ll)
    ll = np.where(finite, ll, ll[finite].min() - 1e3 if finite.any() else 0.0)
    if coarse:
        return grid, lp + np.interp(grid, knots, ll)
    return grid, lp + _CHEB_MATRIX @ ll


def _summarise(grid: np.ndarray, lp: np.ndarray, level: float) -> Posterior:
    """Mean, variance and equal-tailed interval of the grid posterior (trapezoid weights;
    the CDF by the trapezoid rule between grid points, then linear interpolation)."""
    dens = np.exp(lp - lp.max())
    w = np.full(grid.size, grid[1] - grid[0])
    w[[0, -1]] /= 2
    mass = dens * w
    mass /= mass.sum()
    mean = float(mass @ grid)
    var = float(mass @ (grid - mean) ** 2)
    # CDF by the trapezoid rule between grid points, then linear interpolation.
    cdf = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) / 2)])
    cdf /= cdf[-1]
    tail = (1 - level) / 2
    q_lo, q_hi = np.interp([tail, 1 - tail], cdf, grid)
    return Posterior(mean, var, float(q_lo), float(q_hi), grid, dens / (dens * w).sum())
