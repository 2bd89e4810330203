"""`cli.py` commands: What the labels say, exported: annotations and the results table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from commands import base
from commands.base import CampaignName, app, fail, metric_signatures

#: export-ranking's tables: Tandem's own, WMT25's and WMT24's.
PROCEDURES = ("tandem", "wmt25", "wmt24")
Procedure = Annotated[
    str,
    typer.Option(
        help="tandem (anytime-valid clusters), wmt25 (WMT25's neighbour walk, "
        "one-sided Wilcoxon at α/2) or wmt24 (per-domain Wilcoxon combined by "
        "Stouffer's Z; domains from the campaign file's domain column). The WMT "
        "tables are fixed-n, with no multiplicity correction."
    ),
]
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
    tutorial: Annotated[
        bool,
        typer.Option("--tutorial", help="The tutorial and check answers instead (.csv or .jsonl)."),
    ] = False,
) -> None:
    """Export annotations with annotator, time and assignment position (or, with
    --tutorial, every tutorial and check answer)."""
    from annotation.results.exports import (
        ANNOTATION_FORMATS,
        export_annotations,
        export_tutorial_answers,
    )

    fmt = out.suffix.lstrip(".").lower()
    if fmt not in (("csv", "jsonl") if tutorial else ANNOTATION_FORMATS):
        fail(f"{out}: use a .csv, .jsonl{'' if tutorial else ' or .parquet'} file name.")
    with base.exporting():
        if tutorial:
            data = export_tutorial_answers(base.open_engine(), campaign, fmt)
        else:
            data = export_annotations(base.open_engine(), campaign, fmt, current_only=not all_rows)
    base.write_export(out, data)


@app.command("export-preferences")
def export_preferences_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="Output file: .csv, .jsonl or .parquet.")],
) -> None:
    """Export a preference campaign's judgments: model_a, model_b, winner (Chatbot Arena's
    columns), with the source, both outputs, strength and reason."""
    from annotation.results.preference_export import PREFERENCE_FORMATS, export_preferences

    fmt = out.suffix.lstrip(".").lower()
    if fmt not in PREFERENCE_FORMATS:
        fail(f"{out}: use a .csv, .jsonl or .parquet file name.")
    with base.exporting():
        data = export_preferences(base.open_engine(), campaign, fmt)
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
    out: Annotated[Path, typer.Option(help=".csv, .tex (LaTeX, booktabs) or .typ (Typst).")],
    metric: Annotated[
        list[str] | None,
        typer.Option(help="Metric used as control (as in export-results; repeatable)."),
    ] = None,
    alpha: ReadAlpha = None,
    label_kind: Annotated[
        str | None,
        typer.Option(
            help="Rank by: label, one_minus_hter, score, esa or da (default: the "
            "dashboard's, by campaign mode)."
        ),
    ] = None,
    procedure: Procedure = "tandem",
    disagreements_out: Annotated[
        Path | None,
        typer.Option(
            help="With a WMT procedure: also write the pairs where it and Tandem's "
            "clusters disagree (CSV) here."
        ),
    ] = None,
) -> None:
    """Export the ranking with significance clusters (the dashboard's ranking table), or
    WMT's table (fixed-n, no multiplicity correction) with Tandem's cluster beside it."""
    from estimators.live.ranking import ranking_csv, ranking_latex, ranking_rows, ranking_typst

    kind = _ranking_file(out)
    if procedure not in PROCEDURES:
        fail(f"Unknown procedure {procedure!r}; use one of {', '.join(PROCEDURES)}.")
    if disagreements_out is not None and procedure == "tandem":
        fail("--disagreements-out needs a WMT procedure (--procedure wmt25 or wmt24).")
    if procedure != "tandem":
        cmp = _wmt(campaign, out, metric, alpha, label_kind, procedure)
        _write_wmt(out, kind, cmp.rows)
        if disagreements_out is not None:
            from estimators.fixed_n.wmt_tables import disagreements_csv

            base.write_export(disagreements_out, disagreements_csv(cmp.disagreements))
        return
    engine, report = _report(campaign, out.with_suffix(".csv"), metric, alpha, label_kind)
    if report.monitor is None:
        fail("No anytime-valid verdicts yet (no labels with a recorded random order).")
    columns = _statistics(engine, campaign).export_columns()
    rows = ranking_rows(report.monitor, report.higher_is_better, columns)
    writers = {"csv": ranking_csv, "tex": lambda r: ranking_latex(r).encode(),
               "typ": lambda r: ranking_typst(r).encode()}  # fmt: skip
    base.write_export(out, writers[kind](rows))


@app.command("wmt-ranking")
def wmt_ranking_cmd(
    campaign: CampaignName,
    procedure: Procedure = "wmt25",
    metric: Annotated[
        list[str] | None,
        typer.Option(help="Metric used as control by Tandem's verdicts (repeatable)."),
    ] = None,
    alpha: ReadAlpha = None,
    label_kind: Annotated[
        str | None, typer.Option(help="Rank by: label, one_minus_hter, score, esa or da.")
    ] = None,
) -> None:
    """Print WMT's ranking (fixed-n, no multiplicity correction) beside Tandem's valid
    clusters, and the pairs where the two disagree."""
    from estimators.fixed_n.wmt_ranking import NO_CORRECTION
    from estimators.fixed_n.wmt_ranking import PROCEDURES as TEXT

    if procedure not in ("wmt25", "wmt24"):
        fail(f"Unknown procedure {procedure!r}; use wmt25 or wmt24.")
    cmp = _wmt(campaign, Path("x.csv"), metric, alpha, label_kind, procedure)
    w = cmp.ranking
    typer.echo(f"{TEXT[procedure]}, alpha = {w.alpha:g} ({NO_CORRECTION}); "
               f"{w.waves} wave(s), {len(w.domains) or 1} domain(s).")  # fmt: skip
    typer.echo(f"{'rank':>7}  {'system':<24} {'mean':>9} {'scores':>7} {'WMT':>4} {'Tandem':>7}")
    for r in cmp.rows:
        typer.echo(f"{r['rank_range']:>7}  {r['system'][:24]:<24} {r['mean']:9.3f} "
                   f"{r['scores']:7d} {r['cluster']:4d} {r['tandem_cluster']!s:>7}")  # fmt: skip
    typer.echo(f"{len(cmp.disagreements)} pair(s) where WMT's table and Tandem's disagree:")
    for d in cmp.disagreements:
        typer.echo(f"  {d['a']} vs {d['b']}: WMT {d['wmt_test']} (p = {d['wmt_p']:.4g}), "
                   f"Tandem {d['tandem_verdict']}; clusters WMT {d['wmt_clusters']}, "
                   f"Tandem {d['tandem_clusters']}")  # fmt: skip
    for u in w.unranked:
        typer.echo(f"Not ranked (no scores): {u}", err=True)


def _ranking_file(out: Path) -> str:
    kind = out.suffix.lower().lstrip(".")
    if kind not in ("csv", "tex", "typ"):
        fail(f"{out}: use a .csv, .tex or .typ file name.")
    return kind


def _write_wmt(out: Path, kind: str, rows: list[dict]) -> None:
    from estimators.fixed_n.wmt_tables import wmt_csv, wmt_latex, wmt_typst

    writers = {"csv": wmt_csv, "tex": lambda r: wmt_latex(r).encode(),
               "typ": lambda r: wmt_typst(r).encode()}  # fmt: skip
    base.write_export(out, writers[kind](rows))


def _wmt(campaign: str, out: Path, metric, alpha, label_kind, procedure: str):  # type: ignore[no-untyped-def]
    """WMT's table beside Tandem's for ``campaign`` (checked as the exports check it)."""
    from annotation.results.wmt_ranking import campaign_comparison
    from estimators.data.campaign import LABEL_KINDS

    if label_kind is not None and label_kind not in LABEL_KINDS:
        fail(f"Unknown label kind {label_kind!r}; use one of {', '.join(LABEL_KINDS)}.")
    engine = base.open_engine()
    signatures = metric_signatures(engine, campaign, metric) if metric else None
    settings = _statistics(engine, campaign).export_columns()
    with base.exporting():
        _, cmp = campaign_comparison(
            engine,
            campaign,
            procedure,
            label_kind=label_kind,
            signatures=signatures,
            alpha=alpha,
            settings=settings,
        )
    if cmp is None:
        fail("No anytime-valid verdicts yet (no labels with a recorded random order).")
    return cmp


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
