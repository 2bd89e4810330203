"""`cli.py` commands: What the labels say, exported: annotations and the results table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from commands import base
from commands.base import CampaignName, app, fail, metric_signatures

ReadAlpha = Annotated[
    float | None,
    typer.Option(
        help="Error rate α to read the verdicts at (default: the campaign's, set with "
        "cli.py statistics set); the exports' alpha column says which."
    ),
]


@app.command("export-annotations")
def export_annotations_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="Output file: .csv, .jsonl or .parquet.")],
    all_rows: Annotated[
        bool, typer.Option("--all", help="Every row of the append-only log, not only current.")
    ] = False,
) -> None:
    """Export annotations with annotator, time and assignment position."""
    from annotation.results.exports import ANNOTATION_FORMATS, export_annotations

    fmt = out.suffix.lstrip(".").lower()
    if fmt not in ANNOTATION_FORMATS:
        fail(f"{out}: use a .csv, .jsonl or .parquet file name.")
    with base.exporting():
        data = export_annotations(base.open_engine(), campaign, fmt, current_only=not all_rows)
    base.write_export(out, data)


@app.command("export-results")
def export_results_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help=".csv (per-system estimates) or .tex (LaTeX).")],
    pairs_out: Annotated[
        Path | None, typer.Option(help="Also write the pairwise verdicts as CSV here.")
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            help="Metric used as control: a name (chrf, or an imported one such as comet22) "
            "or a signature (repeatable; default: the dashboard's default)."
        ),
    ] = None,
    alpha: ReadAlpha = None,
    label_kind: Annotated[
        str | None,
        typer.Option(
            help="label, one_minus_hter, score, esa (the ESA score ÷ 100) or da (the DA / "
            "SQM score ÷ 100); default: the dashboard's (by mode: esa in an ESA campaign, "
            "da in a DA or SQM campaign)."
        ),
    ] = None,
) -> None:
    """Export the dashboard's results table (all estimators, rank sets, verdicts)."""
    from annotation.results.result_exports import pairs_csv, results_csv, results_latex

    engine, report = _report(campaign, out, metric, alpha, label_kind)
    settings = _statistics(engine, campaign)
    tex = out.suffix.lower() == ".tex"
    table = results_latex(report, settings=settings).encode() if tex else None
    base.write_export(out, table or results_csv(report, settings))
    if pairs_out is not None:
        base.write_export(pairs_out, pairs_csv(report, settings))
    for note in report.notes:
        typer.echo(f"Note: {note}", err=True)


@app.command("export-ranking")
def export_ranking_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help=".csv or .tex (LaTeX, booktabs).")],
    metric: Annotated[
        list[str] | None,
        typer.Option(help="Metric used as control (as in export-results; repeatable)."),
    ] = None,
    alpha: ReadAlpha = None,
    label_kind: Annotated[
        str | None,
        typer.Option(help="Rank by: label, one_minus_hter, score, esa or da (default: the "
                     "dashboard's, by campaign mode)."),
    ] = None,
) -> None:
    """Export the ranking with significance clusters (the dashboard's ranking table)."""
    from estimators.live.ranking import ranking_csv, ranking_latex, ranking_rows

    engine, report = _report(campaign, out, metric, alpha, label_kind)
    if report.monitor is None:
        fail("No anytime-valid verdicts yet (no labels with a recorded random order).")
    columns = _statistics(engine, campaign).export_columns()
    rows = ranking_rows(report.monitor, report.higher_is_better, columns)
    tex = out.suffix.lower() == ".tex"
    base.write_export(out, ranking_latex(rows).encode() if tex else ranking_csv(rows))


def _statistics(engine, campaign: str):  # type: ignore[no-untyped-def]
    """The campaign's statistics settings, carried in every results export."""
    from annotation.campaign.statistics_settings import read_statistics

    return read_statistics(engine, base.campaign_id_of(engine, campaign))


def _report(campaign: str, out: Path, metric, alpha, label_kind):  # type: ignore[no-untyped-def]
    """(engine, report) for an export to ``out`` (.csv or .tex), checked as both exports
    check it: the file type, the label kind, the metrics named."""
    from annotation.results.result_exports import campaign_results
    from estimators.data.campaign import LABEL_KINDS

    if out.suffix.lower() not in (".csv", ".tex"):
        fail(f"{out}: use a .csv or .tex file name.")
    if label_kind is not None and label_kind not in LABEL_KINDS:
        fail(f"Unknown label kind {label_kind!r}; use one of {', '.join(LABEL_KINDS)}.")
    engine = base.open_engine()
    signatures = metric_signatures(engine, campaign, metric) if metric else None
    with base.exporting():
        report = campaign_results(
            engine, campaign, label_kind=label_kind, signatures=signatures, alpha=alpha
        )
    return engine, report
