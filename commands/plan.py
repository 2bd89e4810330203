"""`cli.py plan`: the plan the live verdicts are tuned to (labels or documents per system,
design, estimand, the equivalence margin ε, the family and the error rate α) and whether it
fits the pool. `cli.py statistics` sets α, the family, ε, racing and the plan in one place."""

from __future__ import annotations

import math
from typing import Annotated

import typer

from commands import base
from commands.base import CampaignName, app, campaign_id_of, fail

# `cli.py plan`'s options (named here so the command reads as what it does)
PlanLabels = Annotated[
    int | None, typer.Option(help="Planned labels per system (your label budget / systems).")
]
PlanSmallest = Annotated[
    float | None,
    typer.Option(
        "--measurable-difference",
        help="Accept the planner's forecast for the measurable difference: the difference "
        "in adequacy rates the plan should detect (e.g. 0.05), at the campaign's α.",
    ),
]
PlanDesign = Annotated[
    str | None,
    typer.Option(
        help="Live design: asympcs_mix, gsd_obf, asympcs, betting, betting_cv or "
        "eb_strict (unset: asympcs_mix for graded scores, betting for binary labels)."
    ),
]
PlanEstimand = Annotated[
    str | None, typer.Option(help="test_set (the campaign's own items) or superpopulation.")
]
PlanMargin = Annotated[
    float | None,
    typer.Option(
        "--margin",
        "--equivalence-margin",
        help="The equivalence margin ε: a pair whose interval lies within ±ε settles as "
        "'no difference larger than ε' (default 0.05). Not the measurable difference.",
    ),
]
PlanErrorRate = Annotated[
    str | None,
    typer.Option(
        "--family",
        help="The family: holm (family-wise error rate, default) or ebh (false discovery "
        "rate, e-BH; betting design).",
    ),
]
PlanAlpha = Annotated[
    float | None,
    typer.Option(
        "--alpha",
        help="The error rate α (family-wise under Holm, FDR under e-BH; default 0.05). Not "
        "the adequacy rate: the share of adequate outputs is a system's estimate.",
    ),
]
# the flags' old names, kept working (hidden): they named two things alike
OldSmallest = Annotated[float | None, typer.Option("--smallest-difference", hidden=True)]
OldEpsilon = Annotated[float | None, typer.Option("--epsilon", hidden=True)]
OldErrorRate = Annotated[str | None, typer.Option("--error-rate", hidden=True)]
PlanDocuments = Annotated[
    int | None,
    typer.Option(
        help="Documents judged in order: planned complete documents per system (stored "
        "as the labels they hold)."
    ),
]
PlanScoreSd = Annotated[
    float | None,
    typer.Option(
        help="With --measurable-difference, for a graded score (ESA, DA / SQM): its expected "
        "standard deviation on the analysed 0–1 scale (0.2 = 20 points of 0–100; from a "
        "pilot or a past campaign). The forecast then uses the score's variance instead of "
        "the binary worst case p(1−p) = 0.25.",
    ),
]


@app.command()
def plan(
    campaign: CampaignName,
    labels: PlanLabels = None,
    smallest_difference: PlanSmallest = None,
    design: PlanDesign = None,
    estimand: PlanEstimand = None,
    margin: PlanMargin = None,
    error_rate: PlanErrorRate = None,
    alpha: PlanAlpha = None,
    documents: PlanDocuments = None,
    score_sd: PlanScoreSd = None,
    old_smallest: OldSmallest = None,
    old_epsilon: OldEpsilon = None,
    old_error_rate: OldErrorRate = None,
) -> None:
    """Show or set the plan the live verdicts are tuned to (fix it before the first label).
    Documents judged in order: the plan and its fit to the pool count complete documents."""
    from annotation.campaign.live_plan import current_plan, set_plan
    from estimators.sequences.designs import (
        DEFAULT_DESIGN,
        DESIGN_TEXT,
        GUARANTEE,
        SCORE_DESIGN,
    )

    smallest_difference = old_smallest if smallest_difference is None else smallest_difference
    margin = old_epsilon if margin is None else margin
    error_rate = old_error_rate if error_rate is None else error_rate
    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    if sum(v is not None for v in (labels, smallest_difference, documents)) > 1:
        fail("Give one of --labels, --documents or --measurable-difference, not several.")
    docs = _document_plan(engine, cid)  # None: segments are the unit
    if documents is not None and docs is None:
        fail(f"{campaign!r} does not judge documents in order: plan in --labels.")
    settings = {"live_design": design, "estimand": estimand, "equivalence_margin": margin,
                "error_rate": error_rate, "alpha": alpha}  # fmt: skip
    values = {k: v for k, v in settings.items() if v is not None}
    try:
        if smallest_difference is not None:
            level = values.get("alpha") or current_plan(engine, cid).alpha
            values["planned_labels"] = _forecast(engine, cid, smallest_difference, docs, level,
                                                 score_sd)  # fmt: skip
        elif documents is not None and docs is not None:
            values["planned_labels"] = docs.labels_in(documents)
        elif labels is not None:
            values["planned_labels"] = labels
        before = current_plan(engine, cid)
        now = set_plan(engine, cid, **values) if values else before
    except ValueError as exc:
        fail(str(exc))
    typer.echo(_planned_size(now.planned_labels, docs))
    if now.design_set:
        typer.echo(f"Design: {now.design} — {DESIGN_TEXT[now.design]}")
    else:  # unset: the judgment kind decides (estimators.sequences.designs.default_design)
        typer.echo(
            f"Design: not set — {SCORE_DESIGN} for ESA, DA and 1 − HTER scores "
            f"({GUARANTEE[SCORE_DESIGN]}), {DEFAULT_DESIGN} for binary labels "
            f"({GUARANTEE[DEFAULT_DESIGN]})"
        )
    typer.echo(f"Estimand: {now.estimand}")
    typer.echo(
        f"Equivalence margin (ε): {now.margin:g} — a pair settles as "
        f"'no difference larger than {now.margin:g}' when its interval lies within ±ε"
    )
    typer.echo(f"Family: {now.error_rate} — {_error_rate_text(now.error_rate)}")
    typer.echo(f"Error rate α: {now.alpha:g}")
    for line in _plan_fit_lines(engine, cid, now, docs):
        typer.secho(line, fg=typer.colors.YELLOW)
    for ch in now.late:
        typer.secho(
            f"Changed after {ch.labels_before:,} labels existed, recorded but NOT applied: "
            f"{ch.key} {ch.old_value!r} → {ch.new_value!r} (a plan chosen after seeing data "
            "could turn past verdicts significant).",
            fg=typer.colors.YELLOW,
        )


def _document_plan(engine, cid: int):  # type: ignore[no-untyped-def]
    """The campaign's DocumentPlan when it judges documents in order, else None."""
    from db.reads.campaign import read_campaign
    from estimators.planning.documents import document_plan

    return document_plan(read_campaign(engine, cid))


def _forecast(engine, cid: int, smallest: float, docs, alpha: float = 0.05, score_sd=None) -> int:  # type: ignore[no-untyped-def]
    """The planner's labels per system for ``smallest`` (said aloud); in documents, the
    labels of the complete documents that give the same precision."""
    from annotation.campaign.live_plan import forecast_planned_labels
    from db.campaign.campaigns import list_campaigns

    n_systems = next(c.n_systems for c in list_campaigns(engine) if c.id == cid)
    if score_sd is not None and not 0 < score_sd <= 0.5:
        raise ValueError(f"--score-sd must lie in (0, 0.5] on the 0–1 scale, not {score_sd:g}")
    labels = forecast_planned_labels(n_systems, smallest, alpha, score_sd=score_sd)
    spread = "worst-case variance" if score_sd is None else f"score sd {score_sd:g}"
    basis = (
        f"detect a measurable difference of {smallest:g} with 80% power (fixed-n paired "
        f"test, {n_systems} systems, Holm's first level α/m at α = {alpha:g}, {spread})"
    )
    if docs is None:
        typer.echo(f"Planner: {labels:,} labels per system {basis}.")
        return labels
    n_docs = docs.documents_for(labels)
    icc = "measured" if docs.icc is not None else "assumed: no labels yet"
    typer.echo(
        f"Planner: {n_docs:,} complete documents per system ({docs.labels_in(n_docs):,} "
        f"labels) {basis}: {labels:,} independent labels × design effect {docs.deff():.2f} "
        f"(intra-document correlation {docs.planning_icc:.3f}, {icc}; "
        f"{docs.mean_size:.1f} outputs per document)."
    )
    return docs.labels_in(n_docs)


def _planned_size(planned: int | None, docs) -> str:  # type: ignore[no-untyped-def]
    if docs is None:
        size = "each pool's size" if planned is None else f"{planned:,}"
        return f"Planned labels per system: {size}"
    if planned is None:
        return f"Planned documents per system: every document of the pool ({docs.pool_docs:,})"
    n_docs = math.ceil(planned / docs.mean_size)
    return f"Planned documents per system: {n_docs:,} complete documents ({planned:,} labels)"


def _error_rate_text(rate: str) -> str:
    from estimators.base.verdicts import ERROR_RATE_TEXT, ErrorRate

    return ERROR_RATE_TEXT[ErrorRate(rate)] if rate in tuple(ErrorRate) else rate


def _plan_fit_lines(engine, cid: int, plan, docs=None) -> list[str]:  # type: ignore[no-untyped-def]
    """Whether the planned labels (documents, when judged in order) fit the pool, and what
    the pool can settle."""
    from db.campaign.campaigns import list_campaigns
    from estimators.planning.documents import document_pool_fit
    from estimators.planning.pool_fit import pool_fit

    camp = next(c for c in list_campaigns(engine) if c.id == cid)
    n_items = getattr(camp, "n_items", None)
    if not n_items or camp.n_systems < 2:
        return []
    if docs is not None:
        planned = plan.planned_labels
        n_docs = None if planned is None else math.ceil(planned / docs.mean_size)
        return document_pool_fit(docs, camp.n_systems, n_docs).sentences(plan.margin)
    fit = pool_fit(camp.n_systems, n_items, plan.planned_labels)
    return fit.sentences(plan.margin)
