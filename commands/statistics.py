"""`cli.py statistics show|set`: a campaign's statistics settings in one command — the error
rate α, the family (holm / ebh), the equivalence margin ε, racing, the live design, the
estimand and the plan (the measurable difference and power, or a label budget); the
Statistics page's form."""

from __future__ import annotations

from typing import Annotated

import typer

from commands import base
from commands.base import CampaignName, app, campaign_id_of, fail

statistics_app = typer.Typer(
    help="A campaign's statistics settings: error rate α, family, equivalence margin, racing "
    "and the plan (the Statistics page's form; each change logged with the label count).",
    no_args_is_help=True,
)
app.add_typer(statistics_app, name="statistics")

Alpha = Annotated[
    float | None,
    typer.Option(
        help="The error rate α, in (0, 0.5]. Not the adequacy rate (a system's "
        "share of adequate outputs)."
    ),
]
Family = Annotated[
    str | None,
    typer.Option(
        help="holm (family-wise error rate) or ebh (false discovery rate, e-BH; the "
        "betting design)."
    ),
]
Margin = Annotated[
    float | None,
    typer.Option(
        "--margin",
        "--equivalence-margin",
        help="The equivalence margin ε, in (0, 1]: a pair whose interval lies within "
        "±ε settles as 'no difference larger than ε'.",
    ),
]
Racing = Annotated[str | None, typer.Option(help="on or off.")]
Difference = Annotated[
    float | None,
    typer.Option(
        "--plan-difference",
        "--measurable-difference",
        help="The measurable difference the plan should detect (in adequacy rate, in "
        "(0, 1)); sets the planned labels the planner forecasts.",
    ),
]
Power = Annotated[
    float | None, typer.Option(help="The power to detect the measurable difference, [0.5, 1).")
]
Design = Annotated[
    str | None,
    typer.Option(
        help="The live design (betting, asympcs, eb_strict, gsd_obf, …; `cli.py plan` "
        "lists them). Fix it before the first label."
    ),
]
Estimand = Annotated[
    str | None,
    typer.Option(
        help="test_set (this campaign's own items, as WMT reports) or superpopulation "
        "(the average annotator). Fix it before the first label."
    ),
]
Labels = Annotated[
    int | None,
    typer.Option("--plan-labels", help="A label budget per system instead (0: each pool)."),
]


@statistics_app.command("show")
def show(campaign: CampaignName) -> None:
    """The statistics settings in force, and what changed after labels existed."""
    from annotation.campaign.statistics_settings import read_statistics

    engine = base.open_engine()
    _print(read_statistics(engine, campaign_id_of(engine, campaign)))


@statistics_app.command("set")
def set_(
    campaign: CampaignName,
    alpha: Alpha = None,
    family: Family = None,
    margin: Margin = None,
    racing: Racing = None,
    plan_difference: Difference = None,
    power: Power = None,
    plan_labels: Labels = None,
    design: Design = None,
    estimand: Estimand = None,
) -> None:
    """Change any of them; every value is checked first (a bad one changes nothing)."""
    from annotation.campaign.statistics_settings import read_statistics, set_statistics

    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    racing_on = None if racing is None else base.on_off(racing, "--racing")
    if power is not None and plan_difference is None:
        plan_difference = read_statistics(engine, cid).measurable_difference
        if plan_difference is None:
            fail("--power needs a measurable difference (--plan-difference) to plan for.")
    try:
        now = set_statistics(
            engine, cid, alpha=alpha, family=family, equivalence_margin=margin,
            racing_on=racing_on, measurable_difference=plan_difference, power=power,
            planned_labels=plan_labels, design=design, estimand=estimand,
        )  # fmt: skip
    except ValueError as exc:
        fail(f"{campaign}: nothing changed: {exc}")
    _print(now)


def _print(now) -> None:  # type: ignore[no-untyped-def]
    from annotation.campaign.statistics_settings import LEVEL_WARNING

    for line in now.lines():
        typer.echo(line)
    if now.level_changes:
        typer.secho(f"Warning: {LEVEL_WARNING}", fg=typer.colors.YELLOW)
    for ch in now.late:
        typer.secho(
            f"Changed after {ch.labels_before:,} labels existed, recorded but NOT applied: "
            f"{ch.key} {ch.old_value!r} → {ch.new_value!r}.",
            fg=typer.colors.YELLOW,
        )
