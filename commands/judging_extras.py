"""`cli.py` commands: the optional comment box, a DA campaign's Likert scale, and the
pre-task form with its answers (the annotators CSV)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from commands import base
from commands.base import CampaignName, app, fail


@app.command("comment-box")
def comment_box_cmd(
    campaign: CampaignName,
    on: Annotated[bool | None, typer.Option("--on/--off", help="Offer the box, or stop.")] = None,
) -> None:
    """Offer (or stop offering) annotators an optional free-text comment on every judgment;
    without --on/--off, say whether it is offered."""
    from annotation.campaign.guidelines import comment_box, set_comment_box

    engine = base.open_engine()
    cid = base.campaign_id_of(engine, campaign)
    if on is not None:
        set_comment_box(engine, cid, on)
    typer.echo(f"comment box: {'on' if comment_box(engine, cid) else 'off'}")


@app.command("likert-scale")
def likert_scale_cmd(
    campaign: CampaignName,
    scale: Annotated[
        str | None,
        typer.Argument(help="N (points 1 … N) or N:label,label,… (2–11 points); omit to show."),
    ] = None,
    keys: Annotated[
        str | None, typer.Option(help="One key per point (default 1 2 … 9 0 -).")
    ] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Back to the 0–100 slider.")] = False,
) -> None:
    """Set a DA campaign's Likert scale (before its first judgment): labelled buttons, one
    key each; a point p of n is analysed as (p − 1)/(n − 1)."""
    from annotation.campaign.likert_scale import likert_scale, set_likert_scale
    from formats.forms.likert import parse_scale, scale_text

    engine = base.open_engine()
    cid = base.campaign_id_of(engine, campaign)
    try:
        if remove:
            set_likert_scale(engine, cid, None)
        elif scale is not None:
            set_likert_scale(engine, cid, parse_scale(scale, keys))
    except ValueError as exc:
        fail(f"Nothing was changed: {exc}.")
    now = likert_scale(engine, cid)
    typer.echo("scale: the 0–100 slider" if now is None
               else f"scale: {scale_text(now)}  keys: {' '.join(now['keys'])}")  # fmt: skip


@app.command("pretask-form")
def pretask_form_cmd(
    campaign: CampaignName,
    file: Annotated[Path | None, typer.Argument(help="The form as JSON; omit to show it.")] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Ask no form.")] = False,
) -> None:
    """Set the form every annotator answers once before their first task and tutorial."""
    from annotation.campaign import pretask

    engine = base.open_engine()
    cid = base.campaign_id_of(engine, campaign)
    try:
        if remove:
            pretask.set_form(engine, cid, "")
        elif file is not None:
            if not file.exists():
                fail(f"{file}: no such file.")
            pretask.set_form(engine, cid, file.read_bytes())
    except ValueError as exc:
        fail(f"{file}: nothing was changed: {exc}.")
    now = pretask.form(engine, cid)
    typer.echo("no pre-task form" if now is None else json.dumps(now, indent=1, ensure_ascii=False))


@app.command("export-annotators")
def export_annotators_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="CSV file: one row per annotator with their answers.")],
) -> None:
    """Write each annotator's answers to the pre-task form (``form_<field>`` columns)."""
    from annotation.campaign import pretask
    from formats.writers import to_csv

    engine = base.open_engine()
    columns, records = pretask.answers_table(engine, base.campaign_id_of(engine, campaign))
    out.write_bytes(to_csv(columns, records))
    typer.echo(f"{len(records):,} annotator(s) → {out}")
