"""The live designs a campaign can choose, and one call that runs any of them on a stream.

docs/statistics-notes.md §19 and §25. Every design turns predictable increments z_1, z_2, …
(conditional mean = the estimand) into a confidence-sequence path and an anytime p-value path that
stay valid however often and whenever the dashboard is read, and is tuned to the campaign's planned
size t* (a planned number of labels per system, fixed before the first label):

- ``asympcs`` — asymptotic confidence sequence (Waudby-Smith et al. 2024) with t* = the
  plan: tightest around the planned size, valid at every t
  (:func:`estimators.sequences.confidence_sequences.asymptotic_cs`).
- ``asympcs_mix`` — the asymptotic confidence sequence averaged over planned sizes that double
  from 30 labels to the pool size (:mod:`estimators.sequences.mixture`): needs no plan, valid
  as the number of labels grows (asymptotic, like the t-test); the default for graded scores
  (ESA, DA, 1 − HTER: :func:`default_design`). With imported metric scores the pairs'
  increments take the metric difference as a control variate whose slope is pooled over all
  pairs, learned predictably (:mod:`estimators.sequences.mixture_control`, docs §34).
- ``gsd_obf`` — group-sequential design: 20 looks at fixed label counts up to the planned
  maximum, Lan–DeMets O'Brien–Fleming-type α-spending, repeated confidence intervals and
  repeated p-values (:mod:`estimators.sequences.group_sequential`). Verdicts change only at a look;
  past the planned maximum no α is left.
- ``betting`` — hedged-capital betting confidence sequence for bounded increments
  (Waudby-Smith & Ramdas 2024; :mod:`estimators.sequences.betting`), bets sized for t* mixed with
  two Kelly bets for the observed effect; exact (not asymptotic) for bounded labels; the
  default for binary labels.
- ``betting_cv`` — the betting design with the campaign's first imported metric as a
  control in half the capital (:mod:`estimators.sequences.betting_control`; an option, not the
  default: on the shipped pools it saved no labels, docs/statistics-notes.md §14).
- ``eb_strict`` — predictable-plug-in empirical Bernstein (the strict mode; exact, wider).

``naive`` (re-testing a fixed-n z-interval after every label) is not a design: it is the
negative control the validity tests run through the same checks, and it fails them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
from scipy import special

from estimators.sequences import betting, mixture
from estimators.sequences import confidence_sequences as csq
from estimators.sequences import group_sequential as gsd
from estimators.sequences import sequential as seq


class LiveDesign(StrEnum):
    """How the live verdicts are made (campaigns.live_design; NULL = :data:`DEFAULT_DESIGN`)."""

    ASYMPCS = "asympcs"
    GSD_OBF = "gsd_obf"
    BETTING = "betting"
    EB_STRICT = "eb_strict"
    BETTING_CV = "betting_cv"
    ASYMPCS_MIX = "asympcs_mix"

    @property
    def bounded(self) -> bool:
        """Needs increments with known bounds (labels with a known range)."""
        return self in (LiveDesign.BETTING, LiveDesign.EB_STRICT, LiveDesign.BETTING_CV)

    @property
    def bets(self) -> bool:
        """A betting capital (e-values, e-BH): ``betting`` or ``betting_cv``."""
        return self in (LiveDesign.BETTING, LiveDesign.BETTING_CV)


#: The default for binary labels (and any kind not in :data:`SCORE_KINDS`). Single pairs
#: tested alone at α = 0.05 with an oracle plan (the 20 real pairs of
#: bench/labels_to_significance.py): a median 0.87 × the labels of a fixed-n paired test
#: planned in advance (group-sequential 0.86,
#: AsympCS 1.08), still 0.87 when the plan is half the truth (group-sequential: most pairs
#: never decide) and 1.16 at 4× (group-sequential 1.48) — README, "Live verdicts". On the
#: app's route (all pairs, Holm, a user's plan; bench/ranking_route_bench.py): 0.65× the
#: fixed-n test planned at α/m on WMT21 en-de (13 systems), 0.80× / 0.99× on Chaganty
#: (binary / 1 − HTER).
DEFAULT_DESIGN = LiveDesign.BETTING
#: The graded scores (analysed on [0, 1]) whose default is :data:`SCORE_DESIGN`.
SCORE_KINDS = ("esa", "da", "one_minus_hter")
#: The default for graded scores. On the shipped score pools (bench/side_shown_bench.py:
#: every pair, Holm, the planner's plan, labels until a side is shown ÷ the fixed-n paired
#: t-test's n80 at α/m, median / p80 over pairs, 60 orders) the betting bets are capped by
#: the scores' full range while real scores crowd its top: betting 2.15 / 3.49 (newstest2020
#: MQM), 0.84 / 0.95 (WMT21 TED MQM), 1.01 / 1.03 (Chaganty 1 − HTER); this design 0.92 /
#: 0.97, 0.71 / 0.78, 0.86 / 1.00, family-wise false claims at true nulls 1–3 %
#: (docs/performance.md). On binary labels betting stays ahead (WMT21 binary 0.65 / 0.72
#: against 0.71 / 0.74). With imported metric scores it takes them as control variates, the
#: slope pooled over every pair (:mod:`estimators.sequences.mixture_control`): at a paired
#: ρ of 0.3 / 0.5 the pairs a control can move need 0.93 / 0.80 (newstest2020 MQM) and
#: 0.96 / 0.84 (WMT21 TED MQM) of the labels without it, ≤ 1 − ρ²/2, valid at true nulls
#: (2.05–3.3 %; bench/side_shown_bench.py --controls).
SCORE_DESIGN = LiveDesign.ASYMPCS_MIX
#: Used instead of a bounded design when the judgments have no known range (imported
#: scores): valid for any increments with a finite variance, and robust to a mis-plan.
FALLBACK_DESIGN = LiveDesign.ASYMPCS


def default_design(label_kind: str | None) -> LiveDesign:
    """The design a campaign gets when its plan sets none: :data:`SCORE_DESIGN` for the graded
    scores (:data:`SCORE_KINDS`), :data:`DEFAULT_DESIGN` otherwise. The judgment kind is fixed
    before the first label, so the choice is not a data-driven switch."""
    return SCORE_DESIGN if label_kind in SCORE_KINDS else DEFAULT_DESIGN


#: What each design promises: finite-sample (exact for labels with known bounds at any
#: number of labels) or asymptotic (valid as the number of labels grows, like the t-test).
GUARANTEE: dict[LiveDesign, str] = {
    LiveDesign.ASYMPCS: "asymptotic",
    LiveDesign.ASYMPCS_MIX: "asymptotic",
    LiveDesign.GSD_OBF: "asymptotic",
    LiveDesign.BETTING: "finite-sample",
    LiveDesign.EB_STRICT: "finite-sample",
    LiveDesign.BETTING_CV: "finite-sample",
}

#: One sentence per design, for the dashboard and the CLI.
DESIGN_TEXT: dict[LiveDesign, str] = {
    LiveDesign.ASYMPCS: "asymptotic confidence sequence tuned to the planned size (verdicts "
    "may come after any label)",
    LiveDesign.ASYMPCS_MIX: "asymptotic confidence sequence mixed over planned sizes from 30 "
    "labels to the pool (needs no plan; verdicts may come after any label); imported metric "
    "scores enter as control variates, one slope learned from every pair's labels",
    LiveDesign.GSD_OBF: f"group-sequential test with {gsd.LOOKS} looks up to the planned "
    "size (O'Brien–Fleming-type α-spending; verdicts change only at a look, and none "
    "after the planned size)",
    LiveDesign.BETTING: "betting confidence sequence for bounded labels, bets sized for the "
    "planned size (exact, no large-sample approximation; no metric control)",
    LiveDesign.EB_STRICT: "empirical-Bernstein confidence sequence (exact, wider)",
    LiveDesign.BETTING_CV: "betting confidence sequence for bounded labels with the first "
    "imported metric as a control in half the capital (exact; no metric: as betting)",
}


def design_paths(
    design: str,
    z: np.ndarray,
    *,
    level: float,
    alpha: float,
    m: int = 1,
    theta0: float | None = None,
    t_star: float,
    bounds: tuple[float, float] | None = None,
    var_prior: float = 0.0,
    running: bool = True,
    pool_size: int | None = None,
    t_max: float | None = None,
) -> tuple[csq.ConfidenceSequence | None, np.ndarray | None]:
    """(confidence sequence at ``level``, anytime p-value path vs ``theta0`` or ``None``);
    the betting design's sequence is computed for a single stream only (``None`` on batches).

    ``alpha`` is the level the p-values (and, for ``asympcs`` and ``betting``, the
    sequences) are tuned for — the level at which the verdict is first read (α/m for a pair
    among m under Holm); with one tuning, the sequence at ``level`` excludes θ0 exactly when
    the p-value reaches ``level`` (``asympcs``, ``betting``). ``m`` is the number of
    tests Holm will adjust over (the group-sequential level grid holds α/j, j ≤ m, exactly);
    ``t_star`` the planned size (the maximum for ``gsd_obf``); ``bounds`` the known range of
    the increments (bounded designs); ``var_prior`` the variance prior of the asymptotic
    designs (see :func:`estimators.sequences.confidence_sequences.asymptotic_cs`).
    ``running=False``: the
    betting sequence from the current capital (dual to the e-value e-BH reads).
    ``pool_size`` (betting only): ``z`` are the labels themselves, a finite pool's values in
    random order, and the null is the pool mean
    (:func:`estimators.sequences.betting.wor_log_capital`). ``t_max`` (``asympcs_mix``): the
    largest planned size of its mixture, the pool size (default t*); it takes no variance
    prior (measured at true nulls without one, docs/statistics-notes.md §19).
    """
    if design == LiveDesign.ASYMPCS_MIX:
        top = float(t_star if t_max is None else t_max)
        cs = mixture.mixture_cs(z, level, t_max=top, alpha_tuning=alpha)
        p = None
        if theta0 is not None:
            p = mixture.mixture_pvalue(z, theta0, t_max=top, alpha_tuning=alpha)
        return cs, p
    if design == LiveDesign.ASYMPCS:
        return _asympcs_paths(z, level, alpha, theta0, t_star, var_prior)
    if design == LiveDesign.GSD_OBF:
        return gsd.gsd_paths(
            z, level=level, alpha=alpha, m=m, n_max=int(t_star), theta0=theta0,
            var_prior=var_prior,
        )  # fmt: skip
    if design in (LiveDesign.BETTING, LiveDesign.EB_STRICT, LiveDesign.BETTING_CV):
        if bounds is None:
            raise ValueError(f"the {design} design needs increments with known bounds")
        if design != LiveDesign.EB_STRICT:  # betting_cv without its control: the labels' bets
            return _betting_paths(z, level, alpha, theta0, t_star, bounds, running, pool_size)
        cs = csq.empirical_bernstein_cs(z, level, bounds=bounds)
        p = None
        if theta0 is not None:
            p = csq.empirical_bernstein_pvalue(z, theta0, bounds=bounds, alpha_tuning=alpha)
        return cs, p
    if design == "naive":
        return _naive_paths(z, level, theta0)
    raise ValueError(f"unknown live design {design!r}; use one of {', '.join(LiveDesign)}")


def _asympcs_paths(z, level, alpha, theta0, t_star, var_prior):  # type: ignore[no-untyped-def]
    """AsympCS (Waudby-Smith et al. 2024) at ``level`` tuned at ``alpha``, and its dual
    p-value path."""
    cs = csq.asymptotic_cs(
        z, level, t_star=t_star, running_intersection=True, var_prior=var_prior,
        alpha_tuning=alpha,
    )  # fmt: skip
    p = None
    if theta0 is not None:
        # the p-value dual to the sequences tuned at α: p ≤ a ⟺ θ0 outside C_t(a)
        p = csq.asymptotic_cs_pvalue(
            z, theta0, t_star=t_star, alpha_tuning=alpha, var_prior=var_prior
        )
    return cs, p


def _betting_paths(z, level, alpha, theta0, t_star, bounds, running, pool_size):  # type: ignore[no-untyped-def]
    """The betting confidence sequence (one stream) and p-value path (Waudby-Smith &
    Ramdas 2024), bets sized at ``alpha``."""
    # the interval is a grid search, run for one stream (batches: p-values only)
    one = np.ndim(z) == 1
    cs = (
        betting.betting_cs(
            z, level, bounds=bounds, t_star=t_star, alpha_tuning=alpha, running=running,
            pool_size=pool_size,
        )
        if one else None
    )  # fmt: skip
    p = None
    if theta0 is not None:
        p = betting.betting_pvalue(
            z,
            theta0,
            bounds=bounds,
            alpha_tuning=alpha,
            t_star=t_star,
            pool_size=pool_size,
        )
    return cs, p


def _naive_paths(z, level, theta0):  # type: ignore[no-untyped-def]
    """The invalid "peeking" running z interval and its running-minimum p-value (a negative
    control)."""
    cs = csq.naive_running_z(z, level)
    p = None
    if theta0 is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            zs = np.abs(cs.center - theta0) / (cs.sigma / np.sqrt(cs.t))
        p_t = np.where(cs.t >= seq.BURN_IN, 2 * special.ndtr(-np.nan_to_num(zs)), 1.0)
        p = np.minimum.accumulate(p_t, axis=-1)
    return cs, p


def ever_rejects(
    design: str,
    z: np.ndarray,
    theta: float | np.ndarray,
    *,
    level: float,
    t_star: float,
    bounds: tuple[float, float] | None = None,
    var_prior: float = 0.0,
) -> np.ndarray:
    """Per stream: the design's interval at ``level`` excluded ``theta`` at some t (≥ the
    burn-in), computed on batches (..., T) — its p-value path against θ reaching ``level``,
    which is the same event (for ``gsd_obf`` at its looks)."""
    _, p = design_paths(
        design, z, level=level, alpha=level, m=1, theta0=theta, t_star=t_star,
        bounds=bounds, var_prior=var_prior,
    )  # fmt: skip
    return p[..., -1] <= level


# --------------------------------------------------------------------------------------------
# The plan in force
# --------------------------------------------------------------------------------------------

#: Campaign settings that tune the live verdicts (campaigns columns of the same names).
PLAN_KEYS = ("planned_labels", "live_design", "estimand")
#: Plan settings kept in campaigns.meta (logged like the columns): ε, the equivalence
#: margin, the error rate the pair verdicts control (the family), and its level α.
META_PLAN_KEYS = ("equivalence_margin", "error_rate", "alpha")
#: The level settings: a change after labels existed IS applied (logged, with a warning).
#: Every verdict is recomputed from the start at the new level, so it holds when the choice
#: did not depend on the data seen (docs/statistics-notes.md, "Changing α mid-campaign");
#: t*, the design, the estimand and ε shape the boundaries themselves and stay frozen.
LEVEL_KEYS = ("error_rate", "alpha")
#: α when the plan sets none.
DEFAULT_ALPHA = 0.05
#: ε when the plan sets none.
DEFAULT_MARGIN = 0.05
#: Error-rate values (estimators.base.verdicts.ErrorRate).
ERROR_RATES = ("holm", "ebh")
#: Estimand values (db.schema.vocabulary.Estimand): the campaign's own items, or μ over annotators.
TEST_SET, SUPERPOPULATION = "test_set", "superpopulation"
ESTIMAND_TEXT = {
    TEST_SET: "this campaign's own items (test set, as WMT reports)",
    SUPERPOPULATION: "the average annotator (super-population)",
}


@dataclass(frozen=True)
class LateChange:
    """A plan setting changed after labels existed: recorded, shown, not applied."""

    key: str
    old_value: Any
    new_value: Any
    labels_before: int


@dataclass(frozen=True)
class LivePlan:
    """What the live verdicts are tuned to: fixed before the first label.

    ``planned_labels`` is the planned number of labels per system (items per pair in the
    paired design; ``None``: each pool's size), ``design`` a :class:`LiveDesign` and
    ``estimand`` :data:`TEST_SET` (default) or :data:`SUPERPOPULATION`. ``late`` lists the
    changes made after labels existed; they are not applied, because a t*, design or
    estimand chosen after seeing data could turn past "not yet" verdicts into "significant".
    """

    planned_labels: int | None = None
    design: LiveDesign = DEFAULT_DESIGN
    #: False when the campaign left the design unset: the judgment kind's default is used
    #: (:meth:`design_for`); a plan built with a design keeps it
    design_set: bool = True
    estimand: str = TEST_SET
    late: tuple[LateChange, ...] = ()
    #: ε: a pair whose simultaneous interval lies within ±ε settles as "no difference
    #: larger than ε"
    margin: float = DEFAULT_MARGIN
    #: "holm" (family-wise error rate, default) or "ebh" (false discovery rate)
    error_rate: str = "holm"
    #: α, the level of that error rate (the chance of any false "better" claim under Holm)
    alpha: float = DEFAULT_ALPHA

    @property
    def finite_pool(self) -> bool:
        return self.estimand != SUPERPOPULATION

    def design_for(self, label_kind: str | None) -> LiveDesign:
        """The design in force for judgments of ``label_kind``: the plan's, or when the plan
        sets none the kind's default (:func:`default_design`)."""
        return self.design if self.design_set else default_design(label_kind)

    def estimand_sentence(self, label_kind: str, n_items: int) -> str:
        """One sentence: what the live estimates are, over which pool."""
        what = {
            "label": "the share of a system's outputs judged adequate",
            "one_minus_hter": "a system's mean post-edit quality (1 − HTER)",
            "esa": "a system's mean ESA score (÷ 100: 0.734 is 73.4 on the 0–100 scale)",
            "da": "a system's mean DA / SQM score (÷ 100: 0.734 is 73.4 on the 0–100 scale)",
        }.get(label_kind, "a system's mean human score")
        if self.finite_pool:
            return (
                f"Estimates and verdicts are about {what} on this campaign's own "
                f"{n_items:,} items, each output judged once (the test-set estimand, as WMT "
                "reports); differences are between systems on the same items."
            )
        return (
            f"Estimates and verdicts are about {what} as the population of annotators would "
            f"judge it on average, over this campaign's {n_items:,} items (the "
            "super-population estimand)."
        )


def plan_in_force(current: dict[str, Any], changes: Sequence[Any]) -> LivePlan:
    """The plan the monitor uses: the current settings with every change made after labels
    existed (``labels_before`` > 0) taken back, newest first, except the level settings
    (:data:`LEVEL_KEYS`, applied); those taken back become :attr:`LivePlan.late`.
    ``changes`` are the campaign's logged setting changes, oldest first (objects with key,
    old_value, new_value, labels_before)."""
    values = {k: current.get(k) for k in (*PLAN_KEYS, *META_PLAN_KEYS)}
    late = []
    for ch in reversed(list(changes)):
        frozen = ch.key in (*PLAN_KEYS, *META_PLAN_KEYS) and ch.key not in LEVEL_KEYS
        if frozen and ch.labels_before > 0:
            values[ch.key] = ch.old_value
            late.append(LateChange(ch.key, ch.old_value, ch.new_value, ch.labels_before))
    design = values["live_design"]
    return LivePlan(
        planned_labels=None if values["planned_labels"] is None else int(values["planned_labels"]),
        design=LiveDesign(design) if design in tuple(LiveDesign) else DEFAULT_DESIGN,
        design_set=design in tuple(LiveDesign),
        estimand=SUPERPOPULATION if values["estimand"] == SUPERPOPULATION else TEST_SET,
        late=tuple(reversed(late)),
        margin=_margin(values["equivalence_margin"]),
        error_rate=values["error_rate"] if values["error_rate"] in ERROR_RATES else "holm",
        alpha=_alpha(values["alpha"]),
    )


def _alpha(value: Any) -> float:
    """A stored α, or the default when unset or not in (0, 0.5]."""
    try:
        a = float(value)
    except (TypeError, ValueError):
        return DEFAULT_ALPHA
    return a if 0 < a <= 0.5 else DEFAULT_ALPHA


def _margin(value: Any) -> float:
    """A stored ε, or the default when unset or not a positive number."""
    try:
        eps = float(value)
    except (TypeError, ValueError):
        return DEFAULT_MARGIN
    return eps if eps > 0 else DEFAULT_MARGIN
