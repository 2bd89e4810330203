"""The live monitor with documents as the sampling unit (documents judged in order).

:meth:`estimators.live.monitor.CampaignMonitor.report` hands over here when it is given each
item's document, with its settings, its pool and the label streams. Every system's and
pair's interval, anytime p-value, verdict (Holm across pairs) and forecast then count
**completed documents**: one increment per document
(:func:`estimators.documents.clustered.document_increments`), the asymptotic confidence
sequence on them, and the ratio estimate Σ D_j / Σ n_j. Partial documents wait (a prefix of
a document is not a random sample of it); the known bounds of the pool mean, which hold for
sure, use every label. No verdict below :data:`estimators.documents.clustered.MIN_DOCUMENTS`
completed documents. The statistics: docs/statistics-notes.md §9.

e-BH (false discovery rate) reads a betting e-process on the same document increments,
:func:`document_eprocess`: bounded because the pool's document sizes are known.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from estimators.base import verdicts
from estimators.base.multiple import bonferroni_alpha, holm, pairs, rank_sets
from estimators.base.result import EstimateResult
from estimators.base.verdicts import ErrorRate, Outcome
from estimators.documents import clustered as cl
from estimators.documents.clustered import DocumentUnit
from estimators.live.pools import CampaignPool, Known, Pool, Stream, known_bounds
from estimators.live.settings import MonitorSettings
from estimators.live.status import MonitorReport, PairStatus, SystemStatus
from estimators.sequences import confidence_sequences as csq
from estimators.sequences.designs import LiveDesign

#: A pair's analysis: its document sums, pool, result, p-value, σ̂, t*, sequence, known set
_Row = tuple[
    cl.DocumentSums,
    Pool,
    EstimateResult,
    float,
    float,
    int,
    csq.ConfidenceSequence | None,
    Known,
]


class DocumentRead(NamedTuple):
    """The report with documents as the unit, and each pair's confidence sequence (for the
    width chart)."""

    report: MonitorReport
    sequences: dict[tuple[int, int], csq.ConfidenceSequence]


def _planned_docs(sums: cl.DocumentSums) -> int:
    """t* in documents: the pool's documents, whatever the plan says.

    Tuned at a plan of 70–80 documents, the asymptotic sequence's boundary at the
    30-document floor rests on a normal approximation to 30 uneven document increments, and
    the family-wise error at ICC 0.125 over 2,000 all-null campaigns of 4 systems is 0.067
    [0.056, 0.078] (bench/document_route_bench.py); tuned at the pool, 0.040 [0.031, 0.049].
    The plan sets the queue's size and the labels shown as planned."""
    return max(sums.pool_docs, 1)


def _prior(settings: MonitorSettings, sums: cl.DocumentSums, pair: bool) -> float:
    """The document increments' variance prior (:func:`estimators.documents.clustered.
    document_var_prior`); none without a known label range."""
    if settings.label_range is None:
        return 0.0
    span = (settings.label_range[1] - settings.label_range[0]) * (2 if pair else 1)
    return cl.document_var_prior(sums, span)


def _result(
    settings: MonitorSettings, sums: cl.DocumentSums, alpha_cs: float, *, pair: bool,
    theta0: float | None, known: Known, method: str,
) -> tuple[EstimateResult, float, float, int, csq.ConfidenceSequence | None]:  # fmt: skip
    """(result, anytime p-value, σ̂ of the increments, t* in documents, sequence)."""
    j, t_star = sums.completed, _planned_docs(sums)
    n_labels = int(sums.size.sum())
    diag = {"unit": "document", "documents": j, "pool_documents": sums.pool_docs,
            "partial_documents": sums.partial, "t_star": t_star, "design": "asympcs"}  # fmt: skip
    if j == 0:
        ci = verdicts.intersect((-math.inf, math.inf), known)
        res = EstimateResult(float("nan"), ci, float("nan"), 0, 0, method, 1 - alpha_cs,
                             diagnostics=diag, valid_for_verdict=False)  # fmt: skip
        return res, 1.0, float("nan"), t_star, None
    inc = cl.document_increments(sums, finite_pool=settings.finite_pool)
    cs, p = cl.document_paths(
        inc, level=alpha_cs, alpha_tuning=alpha_cs, t_star=t_star, theta0=theta0,
        var_prior=_prior(settings, sums, pair),
    )  # fmt: skip
    cs = settings.clip(cs, pair)
    sigma = float(cs.sigma[-1])
    p_last = 1.0 if p is None else float(p[-1])
    ci = verdicts.intersect((float(cs.lower[-1]), float(cs.upper[-1])), known)
    if known is not None and theta0 is not None and not known[0] <= theta0 <= known[1]:
        p_last = 0.0  # the labelled part alone rules θ0 out
    elif known is not None and known[0] == known[1]:
        p_last = 1.0  # every document judged: the difference is θ0 exactly, whatever the path
    est, ci = verdicts.shown(ci, float(sums.total.sum() / sums.size.sum()))
    res = EstimateResult(
        estimate=est, ci=ci, se=sigma / math.sqrt(j), n_human=n_labels,
        n_metric=0, method=method, level=1 - alpha_cs,
        diagnostics={**diag, "sigma": sigma, "p_value": p_last,
                     "interval": (float(cs.lower[-1]), float(cs.upper[-1]))},
        valid_for_verdict=j >= cl.MIN_DOCUMENTS,
    )  # fmt: skip
    return res, p_last, sigma, t_star, cs


def _read_interval(
    settings: MonitorSettings, sums: cl.DocumentSums, known: Known, level: float, a_pair: float
) -> Known:
    """A pair's last interval at ``level``, tuned as its Bonferroni interval, cut by the
    known part of its pool: the interval its side is read from when it is rejected at
    ``level`` (:func:`estimators.base.verdicts.read_level`)."""
    inc = cl.document_increments(sums, finite_pool=settings.finite_pool)
    cs, _ = cl.document_paths(
        inc, level=level, alpha_tuning=a_pair, t_star=_planned_docs(sums), theta0=None,
        var_prior=_prior(settings, sums, True),
    )  # fmt: skip
    cs = settings.clip(cs, True)
    return verdicts.intersect((float(cs.lower[-1]), float(cs.upper[-1])), known)


def _sign(settings: MonitorSettings, row: _Row, rejected: bool, level: float, a_pair: float) -> int:
    """The side a rejected pair is read on (0: none, or not rejected): the side of its
    interval at the level it is rejected at (:func:`estimators.base.verdicts.side`) — the
    Bonferroni interval's when that already excludes 0, else the read-level interval's.
    Never the estimate's sign or the running mean's: at the census those can break a tie to
    "A better" beside an estimate below 0."""
    sums, res, p, known = row[0], row[2], row[3], row[-1]
    if not rejected:
        return 0
    sign = verdicts.side(verdicts.intersect(res.diagnostics.get("interval", res.ci), known))
    if sign or p == 0.0 or not level > a_pair:
        return sign
    return verdicts.side(_read_interval(settings, sums, known, level, a_pair))


def _pair_sums(
    pool_of: CampaignPool, documents: np.ndarray, streams: Sequence[Stream], a: int, b: int
) -> tuple[cl.DocumentSums, Pool]:
    """Document sums of the paired differences on the items both systems answered."""
    ia, ya, pa = streams[a]
    ib, yb, pb = streams[b]
    common, xa, xb = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
    pool = pool_of.pair_pool(a, b)
    sums = cl.document_sums(
        documents, pool.mask, common, ya[xa] - yb[xb], np.maximum(pa[xa], pb[xb])
    )
    return sums, pool


def _verdict(
    settings: MonitorSettings, res: EstimateResult, j: int, pool_docs: int, sign: int,
    exact: bool,
) -> tuple[str, Outcome]:  # fmt: skip
    """(the verdict in words, the outcome), in documents."""
    lo, hi = res.ci
    census = settings.finite_pool and lo == hi
    if j < cl.MIN_DOCUMENTS and not (exact or census):
        return "not yet", Outcome.UNDECIDED
    out = verdicts.read_outcome(
        sign, res.estimate, res.ci, settings.margin, settings.higher_is_better
    )
    if out in (Outcome.A_BETTER, Outcome.B_BETTER):
        return str(out), out
    if out == Outcome.EQUIVALENT:
        if census and abs(lo) <= 1e-12:
            return "exactly equal", out
        return f"no difference larger than {settings.margin:g}", out
    if j >= pool_docs:
        return (
            f"no significant difference at α = {settings.alpha:g} with all {pool_docs:,} documents",
            out,
        )
    return "not yet", out


def _needed(
    settings: MonitorSettings, res: EstimateResult, sigma: float, sums: cl.DocumentSums,
    t_star: int, read_at: float,
) -> tuple[int | None, str]:  # fmt: skip
    """(more documents, basis) until the verdict is forecast (see clustered.documents_needed)."""
    j = sums.completed
    if j < cl.MIN_DOCUMENTS:
        return cl.MIN_DOCUMENTS - j, "floor"
    if j >= sums.pool_docs:
        return None, "pool exhausted"
    need = cl.documents_needed(
        res.estimate, sigma, j, sums.pool_docs, level=read_at,
        alpha_tuning=bonferroni_alpha(settings.alpha, settings.pairs_adjusted), t_star=t_star,
        margin=settings.margin,
    )  # fmt: skip
    return need, "forecast"


#: The largest share of the capital one document may put at risk (Waudby-Smith & Ramdas
#: 2024 clip their predictable bets at 1/2 of the largest allowed bet for the same reason).
BET_CAP = 0.5


def document_eprocess(
    total: np.ndarray,
    size: np.ndarray,
    *,
    theta0: float,
    label_span: tuple[float, float],
    n_max: float,
    pool_docs: int | None = None,
) -> np.ndarray:
    """The capital path K_1..K_J of a hedged betting e-process for H0: θ = θ0, one bet per
    completed document (Waudby-Smith & Ramdas 2024, JRSS-B 86(1), §4–5: predictable bets,
    hedged over both signs; without replacement: Waudby-Smith & Ramdas 2020, "Confidence
    sequences for sampling without replacement", NeurIPS, §3).

    Document j gives x_j = D_j − θ0·n_j. Under H0 drawn documents have E[x_j | past] = m_j:
    0 for the superpopulation of documents (``pool_docs`` None: the ratio estimand
    θ = E D / E n), and for the pool's M documents drawn without replacement (the test-set
    estimand, Σ_pool D = θ0·N) m_j = −Σ_{i<j} x_i / (M − j + 1). One label (a paired
    difference for a pair) lies in ``label_span`` = [lo, hi] ∋ θ0 and no document is longer
    than ``n_max`` (known: the pool's sizes), so x_j ∈ [(lo − θ0)·n_max, (hi − θ0)·n_max].
    Bets λ_j = aGRAPA μ̂/(σ̂² + μ̂²) from documents 1..j−1 (a variance prior of one
    pseudo-document (span·n̄/2)²), clipped so that the factor 1 + λ_j (x_j − m_j) stays
    ≥ 1 − BET_CAP over the whole range; K⁺ takes the positive bets, K⁻ the negative, and
    K = (K⁺ + K⁻)/2. Under H0 both are nonnegative martingales, so K at any stopping time
    is an e-value and P(sup K ≥ 1/α) ≤ α (Ville). Returns K after each document.
    """
    total, size = np.asarray(total, float), np.asarray(size, float)
    j_all = total.size
    if j_all == 0:
        return np.ones(0)
    lo, hi = label_span[0] - theta0, label_span[1] - theta0
    x_min, x_max = lo * n_max, hi * n_max
    x = total - theta0 * size
    prior_var = ((hi - lo) * float(size.mean()) / 2) ** 2
    k_pos = k_neg = 1.0
    s_r = s_r2 = s_x = 0.0
    out = np.empty(j_all)
    for j in range(j_all):
        m = 0.0 if pool_docs is None else -s_x / max(pool_docs - j, 1)
        mu = s_r / (j + 1)
        var = (prior_var + max(s_r2 - 2 * mu * s_r + j * mu * mu, 0.0)) / (j + 1)
        bet = mu / (var + mu * mu) if var + mu * mu > 0 else 0.0
        up, down = m - x_min, x_max - m  # room below and above the null mean
        r = x[j] - m
        if up > 0 and down > 0:
            k_pos *= max(1.0 + min(max(bet, 0.0), BET_CAP / up) * r, 0.0)
            k_neg *= max(1.0 + max(min(bet, 0.0), -BET_CAP / down) * r, 0.0)
        else:  # the documents so far already rule H0 out (no pool total can meet it)
            k_pos = k_neg = math.inf
        s_r, s_r2, s_x = s_r + r, s_r2 + r * r, s_x + x[j]
        out[j] = (k_pos + k_neg) / 2
    return out


def _e_value(
    settings: MonitorSettings, sums: cl.DocumentSums, pool_sizes: np.ndarray, p: float
) -> float:
    """A pair's e-value for e-BH now: the document e-process's capital K_J(0); ∞ when its
    labels rule Δ = 0 out for sure; 0 below the document floor (a smaller e-value is still
    an e-value, and it keeps e-BH's rejection set self-consistent)."""
    if p == 0.0:
        return math.inf
    if sums.completed < cl.MIN_DOCUMENTS or settings.label_range is None:
        return 0.0
    lo, hi = settings.label_range
    path = document_eprocess(
        sums.total, sums.size, theta0=0.0, label_span=(lo - hi, hi - lo),
        n_max=float(pool_sizes.max()), pool_docs=sums.pool_docs if settings.finite_pool else None,
    )  # fmt: skip
    return float(path[-1])


def document_report(
    settings: MonitorSettings, pool: CampaignPool, streams: Sequence[Stream],
    documents: np.ndarray,
) -> DocumentRead:  # fmt: skip
    """The monitor's report with documents as the unit (module docstring): ``streams`` are
    the systems' labels in arrival order, ``documents`` the document index of every item."""
    plist = pairs(pool.k)
    a_sys = bonferroni_alpha(settings.alpha, pool.k)
    a_pair = bonferroni_alpha(settings.alpha, len(plist)) if plist else settings.alpha
    ebh = settings.error_rate == ErrorRate.FDR and settings.label_range is not None
    notes = _notes(settings, ebh)
    sys_results, sys_sums, pools = [], [], []
    for s in range(pool.k):
        items, y, pos = streams[s]
        system_pool = pool.system_pool(s)
        pools.append(system_pool)
        sums = cl.document_sums(documents, system_pool.mask, items, y, pos)
        sys_sums.append(sums)
        known = known_bounds(settings, ((items, y),), system_pool)
        sys_results.append(
            _result(settings, sums, a_sys, pair=False, theta0=None, known=known,
                    method="asympcs documents")[0]
        )  # fmt: skip
    rows = [_pair_row(settings, pool, documents, streams, ab, a_pair) for ab in plist]
    pair_status = _pair_statuses(settings, pool, documents, (plist, rows), a_pair, ebh)
    sig = np.array([p.decided for p in pair_status], dtype=bool).reshape(len(plist))
    est = np.array([p.result.estimate for p in pair_status], dtype=float).reshape(len(plist))
    ranks = rank_sets(pool.k, sig, np.nan_to_num(est if settings.higher_is_better else -est))
    counts = [p.result.diagnostics["documents"] for p in pair_status] or [
        s.completed for s in sys_sums
    ]
    unit = DocumentUnit(
        pool_docs=int(np.unique(documents[pool.present.any(axis=0)]).size),
        completed=int(min(counts)),
        partial=max(s.partial for s in sys_sums),
    )
    systems = [
        SystemStatus(pool.names[s], sys_results[s], ranks[s], pool.coverage(pools[s]))
        for s in range(pool.k)
    ]
    report = MonitorReport(
        systems=systems, pairs=pair_status, alpha=settings.alpha, mode=settings.mode,
        notes=notes, design=LiveDesign.ASYMPCS,
        planned_labels=None if settings.t_star is None else int(settings.t_star),
        finite_pool=settings.finite_pool, error_rate=ErrorRate.FDR if ebh else ErrorRate.FWER,
        margin=settings.margin,
        documents=unit,
    )  # fmt: skip
    sequences = {ab: row[6] for ab, row in zip(plist, rows, strict=True) if row[6] is not None}
    return DocumentRead(report, sequences)


def _notes(settings: MonitorSettings, ebh: bool) -> list[str]:
    """What the document unit changes about the design and the error rate, in words."""
    notes = []
    if settings.design != LiveDesign.ASYMPCS:
        notes.append(
            f"Documents are the unit: the {settings.design} design's increments are per "
            "label, so the asymptotic confidence sequence on document increments is used."
        )
    if settings.error_rate == ErrorRate.FDR:
        notes.append(
            "e-BH reads each pair's betting e-value on the document increments (bounded by "
            "the longest document of the pool)."
            if ebh
            else "e-BH needs the labels' known range for its betting e-values; document-unit "
            "verdicts are read with Holm."
        )
    return notes


def _pair_row(
    settings: MonitorSettings, pool: CampaignPool, documents: np.ndarray,
    streams: Sequence[Stream], ab: tuple[int, int], a_pair: float,
) -> _Row:  # fmt: skip
    """The pair's document sums, pool, analysis and known set."""
    a, b = ab
    sums, pair_pool = _pair_sums(pool, documents, streams, a, b)
    known = known_bounds(settings, (streams[a][:2], streams[b][:2]), pair_pool)
    out = _result(settings, sums, a_pair, pair=True, theta0=0.0, known=known,
                  method="asympcs documents paired")  # fmt: skip
    return (sums, pair_pool, *out, known)


def _pair_statuses(
    settings: MonitorSettings, pool: CampaignPool, documents: np.ndarray,
    analysed: tuple[list[tuple[int, int]], list[_Row]], a_pair: float, ebh: bool,
) -> list[PairStatus]:  # fmt: skip
    """Settle the ``analysed`` pairs (their list and rows) together (Holm or e-BH) and word
    their verdicts."""
    plist, rows = analysed
    pvals = np.array([r[3] for r in rows], dtype=float)
    evals = np.ones_like(pvals)
    if ebh:
        for i, row in enumerate(rows):
            sums, pair_pool = row[0], row[1]
            sizes = np.bincount(documents[pair_pool.mask])
            evals[i] = _e_value(settings, sums, sizes, row[3])
    rate = ErrorRate.FDR if ebh else ErrorRate.FWER
    reject, read_at = verdicts.settle(pvals, evals, settings.alpha, rate)
    adj = holm(pvals, settings.alpha).adjusted if plist else np.array([])
    level = verdicts.read_level(reject, settings.alpha, rate)
    status = []
    for i, (a, b) in enumerate(plist):
        sums, pair_pool, res, p, sigma, t_star, _, _ = rows[i]
        j = sums.completed
        rejected = bool(reject[i]) and (j >= cl.MIN_DOCUMENTS or p == 0.0)
        sign = _sign(settings, rows[i], rejected, level, a_pair)
        res = res.with_(ci=verdicts.compatible_interval(res.ci, sign, res.estimate))
        verdict, outcome = _verdict(settings, res, j, sums.pool_docs, sign, p == 0.0)
        docs, basis = (
            (0, "decided") if outcome != Outcome.UNDECIDED
            else _needed(settings, res, sigma, sums, t_star, float(read_at[i]))
        )  # fmt: skip
        labels = None if docs is None else math.ceil(docs * sums.mean_size)
        status.append(PairStatus(
            a=pool.names[a], b=pool.names[b], result=res, p_value=p, p_holm=float(adj[i]),
            verdict=verdict, labels_needed=labels, forecast_method="asympcs documents",
            coverage=pool.coverage(pair_pool), needed_basis=basis, outcome=outcome,
            margin=settings.margin, read_level=float(read_at[i]), documents_needed=docs,
            e_value=float(evals[i]),
        ))  # fmt: skip
    return status
