"""Firth's bias-reduced fit of the Bradley–Terry–Davidson model.

docs/statistics-notes.md §31. Firth (1993), "Bias reduction of maximum likelihood
estimates", Biometrika 80: maximising the penalised log-likelihood

    ℓ*(β, η) = ℓ(β, η) + ½ log det I(β, η)

(I the Fisher information; for the Davidson model observed = expected, see
:mod:`estimators.preference.leaderboard`) removes the O(1/n) term of the MLE's bias; in
the canonical (logistic) case the penalty is Jeffreys' prior. Heinze & Schemper (2002),
"A solution to the problem of separation in logistic regression", Stat. Med. 21, use it
for the same reason as here: the penalised estimate is finite when a system won (or lost)
every comparison.

The information is a sum over judged pairs p of N_p A_p M_p A_pᵀ, A_p = [[g_p, 0], [0, 1]]
((k − 1 + 1) × 2, g_p = ∂d_p/∂β, the η column only with ties) and M_p the per-judgment
information in (d, η):

    M = [[4 + cν, −sν], [−sν, cν]] / D²,   c = 2 cosh d, s = 2 sinh d, D = c + ν.

With the leverages Q_p = A_pᵀ I⁻¹ A_p (2 × 2), Jacobi's formula gives the penalty's
gradient

    ∂(½ log det I)/∂β = ½ Σ_p N_p tr(Q_p ∂M_p/∂d) g_p,
    ∂(½ log det I)/∂η = ½ Σ_p N_p tr(Q_p ∂M_p/∂η),

with (c' = s, s' = c, ∂ν/∂η = ν)

    ∂M/∂d = [[sν D − 2(4 + cν)s, −cν D + 2s²ν], [·, sν D − 2cνs]] / D³,
    ∂M/∂η = [[cν D − 2(4 + cν)ν, −sν D + 2sν²], [·, cν D − 2cν²]] / D³.

The modified score U* = ∇ℓ* = 0 is solved by Fisher scoring (Firth 1993, §3):
(β, η) ← (β, η) + I⁻¹ U*, halving the step while ℓ* does not increase.
"""

from __future__ import annotations

import math

import numpy as np

#: Fisher-scoring iterations at most, and the tolerance on max |U*| per judgment.
MAX_ITER = 200
TOL = 1e-10


def _parts(fit, par: np.ndarray):  # type: ignore[no-untyped-def]
    """Per judged pair: M (p, 2, 2), ∂M/∂d and ∂M/∂η (zero without ties)."""
    *_, c, s, nu, D = fit.pieces(par)
    M = np.empty((c.size, 2, 2))
    M[:, 0, 0] = (4.0 + c * nu) / D**2
    M[:, 0, 1] = M[:, 1, 0] = -s * nu / D**2
    M[:, 1, 1] = c * nu / D**2
    Md = np.empty_like(M)
    Md[:, 0, 0] = (s * nu * D - 2.0 * (4.0 + c * nu) * s) / D**3
    Md[:, 0, 1] = Md[:, 1, 0] = (-c * nu * D + 2.0 * s * s * nu) / D**3
    Md[:, 1, 1] = (s * nu * D - 2.0 * c * nu * s) / D**3
    Me = np.empty_like(M)
    Me[:, 0, 0] = (c * nu * D - 2.0 * (4.0 + c * nu) * nu) / D**3
    Me[:, 0, 1] = Me[:, 1, 0] = (-s * nu * D + 2.0 * s * nu * nu) / D**3
    Me[:, 1, 1] = (c * nu * D - 2.0 * c * nu * nu) / D**3
    return M, Md, Me


def penalty(fit, par: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    """½ log det I at ``par`` (the ridge included, as in the fit's information)."""
    sign, logdet = np.linalg.slogdet(fit.hess(par))
    return 0.5 * logdet if sign > 0 else -math.inf


def penalty_grad(fit, par: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """The gradient of :func:`penalty` (module docstring)."""
    inv = np.linalg.inv(fit.hess(par))
    _, Md, Me = _parts(fit, par)
    G = fit.G  # (p, k − 1)
    kb = G.shape[1]
    q_dd = np.einsum("pi,ij,pj->p", G, inv[:kb, :kb], G)
    if not fit.ties:
        # one column per pair: tr(Q ∂M/∂d) = q_dd ∂M_11/∂d
        return 0.5 * G.T @ (fit.N * q_dd * Md[:, 0, 0])
    q_de = G @ inv[:kb, kb]
    q_ee = inv[kb, kb]
    tr_d = q_dd * Md[:, 0, 0] + 2.0 * q_de * Md[:, 0, 1] + q_ee * Md[:, 1, 1]
    tr_e = q_dd * Me[:, 0, 0] + 2.0 * q_de * Me[:, 0, 1] + q_ee * Me[:, 1, 1]
    return 0.5 * np.concatenate([G.T @ (fit.N * tr_d), [float(np.sum(fit.N * tr_e))]])


def firth_fit(fit, start: np.ndarray) -> tuple[np.ndarray, bool]:  # type: ignore[no-untyped-def]
    """(the penalised estimate, whether Fisher scoring converged) from ``start``."""
    par = np.array(start, dtype=float)

    def objective(p: np.ndarray) -> float:
        return -fit.negll(p) + penalty(fit, p)

    value = objective(par)
    scale = max(1.0, float(np.sum(fit.N)))
    for _ in range(MAX_ITER):
        u = -fit.grad(par) + penalty_grad(fit, par)
        if float(np.max(np.abs(u), initial=0.0)) < TOL * scale:
            return par, True
        step = np.linalg.solve(fit.hess(par), u)
        for _ in range(40):
            trial = par + step
            new = objective(trial)
            if np.isfinite(new) and new >= value - 1e-12 * abs(value):
                break
            step = step / 2.0
        par, value = trial, new
    u = -fit.grad(par) + penalty_grad(fit, par)
    return par, float(np.max(np.abs(u), initial=0.0)) < 1e-6 * scale
