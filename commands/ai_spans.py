"""`cli.py import-ai-spans`: error spans of a quality-estimation model, pre-filled for the
annotators of an error-span campaign (ESA^AI; annotation.imports.ai_spans)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from commands import base
from commands.base import app
from commands.import_options import MaxMbOption


@app.command("import-ai-spans")
def import_ai_spans_cmd(
    campaign: Annotated[str, typer.Argument(help="The error-span campaign (its name).")],
    file: Annotated[
        Path,
        typer.Argument(
            help="AI spans: CSV/TSV/JSONL with item_id, system, start, end, severity "
            "[, category, confidence, model] (offsets in code points of the output), or an "
            "MQM TSV whose <v>…</v> marks are the spans."
        ),
    ],
    source: Annotated[
        str, typer.Option(help="Name of the model or run the spans come from (e.g. xcomet-xl).")
    ],
    prefill: Annotated[
        bool,
        typer.Option(help="Show them pre-filled on the annotate page (ESA^AI)."),
    ] = True,
    max_mb: MaxMbOption = None,
) -> None:
    """Import AI error spans into an error-span campaign (all or nothing; before any label)."""
    from annotation.imports.ai_spans import import_ai_spans

    limit = base.import_limit(file, max_mb)
    with base.importing(file):
        report = import_ai_spans(
            base.open_engine(), file, campaign, source=source, prefill=prefill, max_mb=limit
        )
    typer.echo(report.summary())
