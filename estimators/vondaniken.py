"""Binary error-prone metrics: the model of von Däniken et al. (2022).

Model (von Däniken, Deriu, Tuggener, Cieliebak 2022, "On the Effectiveness of Automated
Metrics for Text Generation Systems", Findings of EMNLP, §3; statistics.md §1): a binary
metric m says "adequate" with true-positive rate ρ = P(m=1 | human=1) and true-negative rate
η = P(m=0 | human=0). For a system with adequacy rate α the metric-positive rate is

    α_M(α) = (ρ + η − 1)·α + (1 − η).

- :func:`metric_only_known` — ρ, η known: with m₊ of n_m metric-positive and a uniform prior
  on α, α_M | data ~ Beta(m₊+1, m₋+1) truncated to [1−η, ρ]; α = (α_M + η − 1)/(ρ+η−1)
  (Rogan–Gladen), Var[α|data] = Var_trunc[α_M]/(ρ+η−1)². Closed form.
- :func:`metric_only_calibrated` / :func:`mixed` — ρ ~ Beta(TP+1, FN+1), η ~ Beta(TN+1, FP+1)
  from a calibration set are integrated out of p(m₊ | α) by tensor Gauss–Legendre quadrature
  (the paper's tool used MCMC); human ratings multiply in α^{h₊}(1−α)^{h₋} (paper §3.3,
  mixed case). The posterior of α is evaluated on an adaptive grid: milliseconds.
- :func:`per_system_posterior` — :func:`mixed` with each system's own calibration counts.
  (The default per-system double-sampling estimator, which needs no ρ, η at all, is
  :mod:`estimators.double_sampling`.)
- :func:`shared_rate` — one ρ, η pooled over systems. Biased when a metric's error rates
  differ between systems (statistics.md §1.6: coverage 95% → 78% under a 0.1-SD shift), so
  it is returned with ``valid_for_verdict=False`` and a per-system ρ/η drift test.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from estimators.result import EstimateResult, within

__all__ = [
    "Posterior",
    "calibration_counts",
    "drift_test",
    "metric_only_calibrated",
    "metric_only_known",
    "mixed",
    "per_system_posterior",
    "posterior",
    "rates_from_counts",
    "shared_rate",
]


# --------------------------------------------------------------------------- helpers


def calibration_counts(y: np.ndarray, m: np.ndarray) -> tuple[int, int, int, int]:
    """(TP, FN, TN, FP) of binary metric ``m`` against binary human labels ``y``."""
    y = np.asarray(y).astype(bool).ravel()
    m = np.asarray(m).astype(bool).ravel()
    if y.shape != m.shape:
        raise ValueError("human and metric labels must cover the same items")
    return (
        int(np.sum(y & m)),
        int(np.sum(y & ~m)),
        int(np.sum(~y & ~m)),
        int(np.sum(~y & m)),
    )


def rates_from_counts(tp, fn, tn, fp):  # type: ignore[no-untyped-def]
    """(ρ̂, η̂) = (TP/(TP+FN), TN/(TN+FP)): the metric's true-positive and true-negative
    rates (von Däniken et al. 2022, §3); NaN where a class is empty. Element-wise on arrays."""
    tp, fn, tn, fp = (np.asarray(c, dtype=float) for c in (tp, fn, tn, fp))
    with np.errstate(invalid="ignore", divide="ignore"):
        return tp / (tp + fn), tn / (tn + fp)


def _trunc_beta(a: float, b: float, lo: float, hi: float, level: float):
    """Mean, variance and equal-tailed quantiles of Beta(a, b) truncated to [lo, hi]."""
    i_lo, i_hi = special.betainc(a, b, lo), special.betainc(a, b, hi)
    mass = i_hi - i_lo
    if mass <= 1e-300:  # data far outside [lo, hi]: all mass at the nearer end
        x = hi if i_hi < 0.5 else lo
        return x, 0.0, x, x
    m1 = a / (a + b)
    m2 = m1 * (a + 1) / (a + b + 1)
    mean = m1 * (special.betainc(a + 1, b, hi) - special.betainc(a + 1, b, lo)) / mass
    ex2 = m2 * (special.betainc(a + 2, b, hi) - special.betainc(a + 2, b, lo)) / mass
    var = max(ex2 - mean * mean, 0.0)
    tail = (1 - level) / 2
    qlo, qhi = special.betaincinv(a, b, [i_lo + tail * mass, i_lo + (1 - tail) * mass])
    return float(mean), float(var), float(np.clip(qlo, lo, hi)), float(np.clip(qhi, lo, hi))


def metric_only_known(
    m_pos: float, n_m: float, rho: float, eta: float, level: float = 0.95
) -> EstimateResult:
    """α from metric verdicts alone, ρ and η known (von Däniken et al. 2022, §3.2).

    α_M | m₊ ~ Beta(m₊+1, n_m−m₊+1) truncated to [1−η, ρ]; α = (α_M+η−1)/(ρ+η−1).
    ``estimate`` is the Rogan–Gladen point estimate (m₊/n_m + η − 1)/(ρ+η−1) clipped to
    [0, 1]; ``se`` = sqrt(Var_trunc[α_M])/(ρ+η−1); ``ci`` maps the truncated-Beta quantiles.
    When ρ + η < 1 the metric is flipped (m → 1−m); ρ + η = 1 carries no information.
    The Rogan–Gladen estimate (the posterior mode) can fall just outside the equal-tailed
    interval at small n_m; the interval is then widened to contain it
    (:func:`estimators.result.within`), which keeps at least ``level`` posterior mass.
    """
    m_pos, n_m = float(m_pos), float(n_m)
    if not 0 <= m_pos <= n_m:
        raise ValueError("need 0 <= m_pos <= n_m")
    if not (0 <= rho <= 1 and 0 <= eta <= 1):
        raise ValueError("rho and eta must lie in [0, 1]")
    flipped = rho + eta < 1
    if flipped:
        m_pos, rho, eta = n_m - m_pos, 1 - rho, 1 - eta
    c = rho + eta - 1
    if c <= 1e-12:
        return EstimateResult(
            0.5, (0.0 + (1 - level) / 2, 1 - (1 - level) / 2), math.sqrt(1 / 12), 0,
            int(n_m), "vondaniken_metric_known", level,
            diagnostics={"rho": rho, "eta": eta, "uninformative": True},
        )  # fmt: skip
    a, b = m_pos + 1, n_m - m_pos + 1
    mean_m, var_m, q_lo, q_hi = _trunc_beta(a, b, 1 - eta, rho, level)
    rg = (m_pos / n_m + eta - 1) / c if n_m else 0.5
    post_mean = (mean_m + eta - 1) / c
    return within(EstimateResult(
        estimate=float(np.clip(rg, 0.0, 1.0)),
        ci=((q_lo + eta - 1) / c, (q_hi + eta - 1) / c),
        se=math.sqrt(var_m) / c,
        n_human=0,
        n_metric=int(n_m),
        method="vondaniken_metric_known",
        level=level,
        diagnostics={
            "rho": rho,
            "eta": eta,
            "posterior_mean": post_mean,
            "rogan_gladen": rg,
            "flipped": flipped,
        },
    ), (0.0, 1.0))


# ------------------------------------------------------------------- grid posterior


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


def posterior(
    h_pos: float,
    n_h: float,
    m_pos: float,
    n_m: float,
    rho: float | None = None,
    eta: float | None = None,
    calibration: tuple[float, float, float, float] | None = None,
    level: float = 0.95,
) -> Posterior:
    """Posterior of α ∝ α^{h₊}(1−α)^{h₋} · ∫∫ Bin(m₊; n_m, α_M(α, ρ, η)) p(ρ) p(η) dρ dη.

    von Däniken et al. (2022, §3.3); uniform prior on α. ρ (η) is a point mass when given,
    else Beta(TP+1, FN+1) (Beta(TN+1, FP+1)) from ``calibration = (TP, FN, TN, FP)``.
    Counts may be non-integer (expected data, for planning). Evaluated by a coarse pass
    over [0, 1] that finds the posterior's support, then 513 grid points across it; the
    calibrated likelihood is computed at 33 Chebyshev knots and interpolated in α.
    """
    h_neg = float(n_h - h_pos)
    if rho is None or eta is None:
        if calibration is None:
            raise ValueError("give rho and eta, or calibration=(TP, FN, TN, FP)")
        tp, fn, tn, fp = map(float, calibration)
    rho_r = _Rate(rho, None if rho is not None else (tp, fn))
    eta_r = _Rate(eta, None if eta is not None else (tn, fp))
    lik = _MetricLik(m_pos, n_m, rho_r, eta_r) if n_m > 0 else None

    def logpost(lo: float, hi: float, coarse: bool) -> tuple[np.ndarray, np.ndarray]:
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

    grid, lp = logpost(0.0, 1.0, coarse=True)
    keep = np.flatnonzero(lp > lp.max() - 45)
    step = 1 / 32
    lo, hi = max(0.0, grid[keep[0]] - step), min(1.0, grid[keep[-1]] + step)
    grid, lp = logpost(lo, hi, coarse=False)
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


def mixed(
    h_pos: float,
    n_h: float,
    m_pos: float,
    n_m: float,
    rho: float | None = None,
    eta: float | None = None,
    calibration: tuple[float, float, float, float] | None = None,
    level: float = 0.95,
    *,
    method: str = "vondaniken_mixed",
) -> EstimateResult:
    """Human ratings and metric ratings in one posterior (von Däniken et al. 2022, §3.3).

    p(α | data) ∝ α^{h₊}(1−α)^{h₋} · p(m₊ | α), ρ/η known or integrated out of p(m₊ | α)
    over Beta calibration posteriors (see :func:`posterior`). Human-rated and metric-rated
    items are separate sets. ``estimate`` = posterior mean, ``se`` = posterior SD,
    ``ci`` = equal-tailed credible interval, clipped to [0, 1] and to contain the mean
    (:func:`estimators.result.within`: a guard against grid rounding; a posterior on [0, 1]
    has its mean there).
    """
    post = posterior(h_pos, n_h, m_pos, n_m, rho, eta, calibration, level)
    diag: dict = {"h_pos": float(h_pos), "m_pos": float(m_pos)}
    if rho is not None:
        diag["rho"] = float(rho)
    if eta is not None:
        diag["eta"] = float(eta)
    if calibration is not None:
        tp, fn, tn, fp = map(float, calibration)
        diag |= {"tp": tp, "fn": fn, "tn": tn, "fp": fp}
        diag.setdefault("rho", (tp + 1) / (tp + fn + 2))
        diag.setdefault("eta", (tn + 1) / (tn + fp + 2))
    return within(EstimateResult(
        estimate=post.mean,
        ci=(post.low, post.high),
        se=math.sqrt(post.var),
        n_human=int(n_h),
        n_metric=int(n_m),
        method=method,
        level=level,
        diagnostics=diag,
    ), (0.0, 1.0))


def metric_only_calibrated(
    m_pos: float,
    n_m: float,
    calibration: tuple[float, float, float, float],
    level: float = 0.95,
) -> EstimateResult:
    """α from metric verdicts alone with ρ, η estimated from calibration counts.

    ρ ~ Beta(TP+1, FN+1), η ~ Beta(TN+1, FP+1); p(m₊|α) = ∫∫ Bin(m₊; n_m, α_M) p(ρ)p(η)
    (von Däniken et al. 2022, §3.2 with an uncertain metric; statistics.md §1.3), by
    quadrature instead of the tool's MCMC. Posterior mean, SD and credible interval.
    """
    return mixed(0, 0, m_pos, n_m, calibration=calibration, level=level,
                 method="vondaniken_metric_calibrated")  # fmt: skip


# ------------------------------------------------------------ per-system posterior


def per_system_posterior(
    y_labelled: np.ndarray,
    m_labelled: np.ndarray,
    m_unlabelled: np.ndarray,
    level: float = 0.95,
) -> EstimateResult:
    """Bayesian per-system form: :func:`mixed` with this system's own calibration counts.

    The labelled items give h₊ and (TP, FN, TN, FP); the unlabelled items give m₊. This is
    the full likelihood of the misclassification model for one system, so it is valid for
    verdicts (unlike :func:`shared_rate`); asymptotically it agrees with
    :func:`estimators.double_sampling.per_system`.
    """
    y = np.asarray(y_labelled).astype(int).ravel()
    cal = calibration_counts(y, m_labelled)
    m_u = np.asarray(m_unlabelled).astype(bool).ravel()
    return mixed(int(y.sum()), y.size, int(m_u.sum()), m_u.size, calibration=cal, level=level,
                 method="vondaniken_mixed_per_system")  # fmt: skip


# ------------------------------------------------------------ shared rate (opt-in)


def drift_test(
    y_labelled: Sequence[np.ndarray], m_labelled: Sequence[np.ndarray]
) -> dict[str, float | list[float]]:
    """Do ρ and η differ between systems? Chi-square tests of homogeneity.

    For TPR: the systems × {m=1, m=0} table of human-positive items; for TNR: the same for
    human-negative items (Fisher's exact test when there are two systems). ``p_value`` is
    the Bonferroni combination min(1, 2·min(p_rho, p_eta)).
    """
    counts = np.array(
        [calibration_counts(y, m) for y, m in zip(y_labelled, m_labelled, strict=True)]
    )
    tp, fn, tn, fp = counts.T

    def homogeneity(a: np.ndarray, b: np.ndarray) -> float:
        table = np.column_stack([a, b])
        table = table[table.sum(axis=1) > 0]
        if table.shape[0] < 2 or np.any(table.sum(axis=0) == 0):
            return 1.0
        if table.shape[0] == 2:
            return float(stats.fisher_exact(table).pvalue)
        return float(stats.chi2_contingency(table, correction=False).pvalue)

    p_rho, p_eta = homogeneity(tp, fn), homogeneity(tn, fp)
    rhos, etas = rates_from_counts(tp, fn, tn, fp)
    return {
        "p_rho": p_rho,
        "p_eta": p_eta,
        "p_value": min(1.0, 2 * min(p_rho, p_eta)),
        "rho_by_system": rhos.tolist(),
        "eta_by_system": etas.tolist(),
    }


def shared_rate(
    y_labelled: Sequence[np.ndarray],
    m_labelled: Sequence[np.ndarray],
    m_unlabelled: Sequence[np.ndarray],
    level: float = 0.95,
) -> list[EstimateResult]:
    """Shared-rate von Däniken: one ρ, η pooled over all systems' calibration items.

    For each system s: :func:`mixed` with its own h₊, m₊ and the pooled (TP, FN, TN, FP).
    This is the paper's setting of one calibration set per metric. It is biased whenever
    the metric's error rates differ between systems (statistics.md §1.6), so every result
    has ``valid_for_verdict=False`` and carries the :func:`drift_test` in its diagnostics.
    """
    if not len(y_labelled) == len(m_labelled) == len(m_unlabelled):
        raise ValueError("one labelled and one unlabelled array per system")
    pooled = np.sum(
        [calibration_counts(y, m) for y, m in zip(y_labelled, m_labelled, strict=True)], axis=0
    )
    drift = drift_test(y_labelled, m_labelled)
    out = []
    for y, m_u in zip(y_labelled, m_unlabelled, strict=True):
        y = np.asarray(y).astype(int).ravel()
        m_u = np.asarray(m_u).astype(bool).ravel()
        counts = (int(y.sum()), y.size, int(m_u.sum()), m_u.size)
        res = mixed(
            *counts, calibration=tuple(pooled), level=level, method="vondaniken_shared_rate"
        )
        out.append(
            res.with_(
                valid_for_verdict=False,
                diagnostics={**res.diagnostics, **{f"drift_{k}": v for k, v in drift.items()}},
            )
        )
    return out
