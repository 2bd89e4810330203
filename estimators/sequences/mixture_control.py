"""The control-variate slope of the asymptotic sequences, learned across all pairs at once.

docs/statistics-notes.md §34 ("A metric control in the asymptotic sequence"). The
asymptotic designs run on the predictable control-variate increments of
:func:`estimators.sequences.sequential.cv_increments` (Chaganty, Mussmann & Liang 2018; the
PPI++ power-tuned increment of Angelopoulos, Duchi & Zrnic 2023, made predictable): for a
pair's i-th labelled item,

    z_i = a_i − λ_iᵀ h_i,   a_i = S_{i−1}/N + (N − i + 1)/N · D_i,
    h_i = S^g_{i−1}/N + (N − i + 1)/N · g_i − ḡ_pool,

the Des Raj (1956) terms of the human difference D_i and of the metric difference g_i on a
finite pool of N (with replacement a_i = D_i, h_i = g_i − ḡ_pool), ḡ_pool the metric mean
over ALL the pool's items, labelled or not (the metric gives it for free). Whatever λ_i,
E[z_i | G_{i−1}] = Δ as long as λ_i is fixed by G_{i−1}: the first i − 1 items, all their
labels, and the queue's schedule (item i is then uniform over the pair's remaining pool).

One pair learns its own slope from its own labels slowly, and λ = 0 for its first
labels (:data:`estimators.sequences.sequential.LAMBDA_MIN_LABELS`). Every pair of a
campaign measures one relation, between a human-score difference and a metric difference,
on the same items; so here λ_i is the ridge slope pooled over all m pairs,

    λ(J) = (Σ_p C^p_gg(J) + κ Σ_p V^p)⁻¹ Σ_p C^p_gy(J),

C^p the centred cross-products of pair p's (g, D) over the first J items labelled for every
system (complete items, in the order they were completed), V^p the diagonal of pair p's
metric-difference variance over its pool (known before any label) and κ = :data:`RIDGE`
pseudo-items per pair at λ = 0, at least :data:`RIDGE_TOTAL` in all (κ Σ_p V^p is then
max(κ m, RIDGE_TOTAL) × the mean of V^p; a useless metric keeps λ near 0). Pair p's i-th item,
whose first label has queue position π_i, takes λ(J_i) with J_i the number of complete
items completed before π_i: those are among the pair's first i − 1 items (an item completes
for the pair no later than for every system), so λ_i is G_{i−1}-measurable and the
increments keep their conditional mean. A label that arrives later has a later position,
so it never changes an earlier λ_i: the path of a read extends the last read's.

The variance the mixture uses is the running variance of the realised z's
(:func:`estimators.sequences.confidence_sequences._running_mean_var`): the sum S_t's
variance is Σ_i Var(z_i | G_{i−1}), the early increments' (λ still being learned)
included, and the running variance estimates its average consistently; a plug-in of the
current λ's residual variance would understate the early terms. With λ_i → λ* the
increments' conditional variances settle, and the asymptotic argument of Waudby-Smith,
Arbour, Sinha, Kennedy & Ramdas (2024, Ann. Statist., the martingale form of Thm 2.2)
carries over: the sequence is valid as the number of labels grows, as without the control.
"""

from __future__ import annotations

import numpy as np

from estimators.sequences import sequential as seq

#: Pseudo-items per pair at λ = 0, in units of the pairs' mean pool variance of the metric
#: difference, and at least :data:`RIDGE_TOTAL` in all (bench/side_shown_bench.py --controls:
#: with a useless metric 2 per pair costs nothing on 45 and 78 pairs; on Chaganty's 6 pairs
#: 2 per pair cost 0.6–2.9 % and 60 in all nothing, and saved more at ρ 0.3 and 0.5).
RIDGE = 2.0
#: The fewest pseudo-items in all (campaigns with few pairs pool little).
RIDGE_TOTAL = 60.0
#: Complete items before the pooled slope leaves 0.
MIN_ITEMS = 2


def pooled_slopes(
    d: np.ndarray, g: np.ndarray, mask: np.ndarray, pool_var: np.ndarray,
    *, ridge: float = RIDGE, ridge_total: float = RIDGE_TOTAL, min_items: int = MIN_ITEMS,
) -> np.ndarray:  # fmt: skip
    """λ(J) for J = 0..n (shape (n + 1, c)): the pooled ridge slope after the first J
    complete items (module docstring). ``d`` (n, m) the pairs' human differences on the
    complete items in completion order, ``g`` (n, m, c) their metric differences, ``mask``
    (n, m) True where the pair has the item, ``pool_var`` (m, c) each pair's pool variance
    of its controls. λ(J) = 0 for J < ``min_items``."""
    d = np.asarray(d, dtype=float)
    g = np.asarray(g, dtype=float)
    n, _ = d.shape
    c = g.shape[-1]
    w = np.asarray(mask, dtype=float)
    d0, g0 = np.where(w > 0, d, 0.0), np.where(w[..., None] > 0, g, 0.0)
    cnt = np.cumsum(w, axis=0)  # (n, m)
    s_d = np.cumsum(d0, axis=0)
    s_g = np.cumsum(g0, axis=0)  # (n, m, c)
    inv = np.where(cnt > 0, 1.0 / np.maximum(cnt, 1.0), 0.0)
    # Σ_p C_gy = Σ_p Σ_j g d − Σ_p S_g S_d / n_p; Σ_p C_gg likewise (centred per pair)
    cgy = np.cumsum(np.einsum("jpc,jp->jc", g0, d0), axis=0) - np.einsum(
        "jpc,jp,jp->jc", s_g, s_d, inv
    )
    cgg = np.cumsum(np.einsum("jpc,jpe->jce", g0, g0), axis=0) - np.einsum(
        "jpc,jpe,jp->jce", s_g, s_g, inv
    )
    var = np.asarray(pool_var, dtype=float).reshape(-1, c)
    prior = max(ridge * var.shape[0], ridge_total) * var.mean(axis=0)
    a = cgg + np.diag(np.maximum(prior, 1e-12))[None]
    lam = np.linalg.solve(a, cgy[..., None])[..., 0]
    lam = np.where((np.arange(1, n + 1) >= min_items)[:, None], lam, 0.0)
    lam = np.nan_to_num(lam, nan=0.0, posinf=0.0, neginf=0.0)
    return np.concatenate([np.zeros((1, c)), lam], axis=0)


def slopes_at(completed: np.ndarray, lam_path: np.ndarray, first: np.ndarray) -> np.ndarray:
    """λ_i for items whose first labels have positions ``first`` (t,): λ(J_i), J_i the
    number of complete items with completion position < first_i (``completed`` sorted)."""
    j = np.searchsorted(np.asarray(completed, dtype=float), np.asarray(first, dtype=float),
                        side="left")  # fmt: skip
    return lam_path[j]


def increments(
    d: np.ndarray, g: np.ndarray, g_pool_mean: np.ndarray, lam: np.ndarray,
    pool_size: int | None,
) -> seq.Increments:  # fmt: skip
    """z_i = a_i − λ_iᵀh_i (module docstring) with the given predictable slopes ``lam``
    (t, c); ``g`` (t,) or (t, c) the labelled items' controls, ``g_pool_mean`` (c,) their
    mean over the whole pool; ``pool_size`` N (Des Raj terms) or None (with replacement)."""
    d = np.asarray(d, dtype=float)
    gk = seq._as_controls(g, d.shape[-1])
    gbar = np.atleast_1d(np.asarray(g_pool_mean, dtype=float))
    a, h = seq._pool_terms(d, gk, gbar, pool_size)
    lam = np.asarray(lam, dtype=float).reshape(h.shape)
    return seq.Increments(z=a - np.sum(lam * h, axis=-1), lam=lam)
