"""`cli.py import-pearmut` and `cli.py export-pearmut`: Pearmut's campaign file and
annotation log in and out (annotation.imports.pearmut, annotation.results.pearmut_export)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from commands import base
from commands.base import app
from commands.import_options import MaxMbOption


@app.command("import-pearmut")
def import_pearmut_cmd(
    file: Annotated[Path, typer.Argument(help="A Pearmut campaign file (JSON).")],
    campaign: Annotated[
        str | None, typer.Option(help="Name of the new campaign (default: its campaign_id).")
    ] = None,
    log: Annotated[
        Path | None,
        typer.Option(help="Pearmut's annotation log (JSONL) to import as existing judgments."),
    ] = None,
    max_mb: MaxMbOption = None,
    slider: Annotated[
        str | None,
        typer.Option(help="Which of info.sliders to ask (its name; default the first)."),
    ] = None,
) -> None:
    """Import a Pearmut campaign (ESA, cESA, DA, MQM) as a new campaign, all or nothing;
    what Tandem cannot hold is listed."""
    from annotation.imports.pearmut import import_pearmut

    limit = base.import_limit(file, max_mb, regular=True)
    if log is not None:
        base.import_limit(log, max_mb, regular=True)
    with base.importing(file):
        report = import_pearmut(
            base.open_engine(), file, campaign, log=log, max_mb=limit, slider=slider
        )
    typer.echo(report.summary())


@app.command("export-pearmut")
def export_pearmut_cmd(
    campaign: Annotated[str, typer.Option(help="The campaign (its name).")],
    out: Annotated[
        Path,
        typer.Option(help="Folder to write <campaign_id>.json and <campaign_id>.jsonl into."),
    ],
) -> None:
    """Write a campaign as Pearmut's campaign file and annotation log."""
    from annotation.results.pearmut_export import NotPearmutShaped, export_pearmut

    try:
        result = export_pearmut(base.open_engine(), campaign)
    except KeyError:
        base.fail(f"no campaign named {campaign!r}; `cli.py campaigns` lists them.")
    except NotPearmutShaped as exc:
        base.fail(f"Nothing was written: {exc}.")
    out.mkdir(parents=True, exist_ok=True)
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in result.campaign_id)
    base.write_export(out / f"{stem}.json", result.campaign)
    base.write_export(out / f"{stem}.jsonl", result.log)
    typer.echo(f"{result.lines:,} log line(s).")
    for note in result.notes:
        typer.echo(f"Note: {note}.")
