"""`cli.py` commands: Metric scores: compute them, import and export them, and the ρ/η calibration
sets."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from commands import base
from commands.base import (
    CampaignName,
    ProgressBar,
    app,
    campaign_id_of,
    fail,
    metric_signatures,
)
from commands.import_options import MaxMbOption
from metrics.registry import DEFAULT_METRICS

if TYPE_CHECKING:
    from metrics.bertscore import BertScoreConfig


@app.command("import-scores")
def import_scores_cmd(
    file: Annotated[
        Path,
        typer.Argument(
            help="Scores file (CSV, TSV, JSONL, Parquet): item_id, system, metric, score "
            "[, higher_is_better, version]."
        ),
    ],
    campaign: CampaignName,
    max_mb: MaxMbOption = None,
) -> None:
    """Add metric scores you computed elsewhere (COMET, MetricX, an LLM judge) to a campaign."""
    from annotation.imports.scores_import import import_scores

    limit = base.import_limit(file, max_mb)
    with base.importing(file):
        report = import_scores(base.open_engine(), file, campaign, max_mb=limit)
    typer.echo(report.summary())


@app.command("export-scores")
def export_scores_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="Scores file; its suffix picks the format.")],
) -> None:
    """Export a campaign's imported metric scores as a scores file (import-scores reads it)."""
    from annotation.imports.score_columns import export_scores

    fmt = base.export_format(out)
    with base.exporting():
        data = export_scores(base.open_engine(), campaign, fmt)
    base.write_export(out, data)


@app.command("export-calibration")
def export_calibration_cmd(
    campaign: CampaignName,
    metric: Annotated[str, typer.Option(help="Metric signature, or a metric name (chrf).")],
    out: Annotated[Path, typer.Option(help="Calibration set JSON file.")],
    items_out: Annotated[
        Path | None, typer.Option(help="Also write the item-level CSV behind it here.")
    ] = None,
    threshold: Annotated[
        float | None, typer.Option(help="Threshold (default: stored, else Youden).")
    ] = None,
    label_kind: Annotated[
        str,
        typer.Option(
            help="The binary human judgment: label (1 = adequate) or error_free (ESA score "
            "≥ the campaign's threshold and no error span)."
        ),
    ] = "label",
) -> None:
    """Export a rho/eta calibration set (JSON) and the items behind it (CSV)."""
    from annotation.results.calibration import calibration_export
    from annotation.results.exports import UnknownCampaign
    from db.reads.campaign import read_campaign
    from formats.calibration_file import CalibrationSetError

    engine = base.open_engine()
    data = read_campaign(engine, campaign_id_of(engine, campaign))
    (signature,) = metric_signatures(engine, campaign, [metric])
    try:
        exported = calibration_export(
            engine, campaign, signature, threshold=threshold, data=data, kind=label_kind
        )
    except (UnknownCampaign, CalibrationSetError) as exc:
        fail(str(exc))
    out.write_bytes(exported.json)
    typer.echo(f"Wrote {out}.")
    if items_out is not None:
        items_out.write_bytes(exported.items_csv)
        typer.echo(f"Wrote {items_out}.")


@app.command("import-calibration")
def import_calibration_cmd(
    file: Annotated[Path, typer.Argument(help="Calibration set JSON file.")],
    campaign: Annotated[str, typer.Option(help="Campaign that uses it as its prior.")],
) -> None:
    """Use a calibration set as a campaign's "rho, eta provided" von Daeniken prior."""
    from annotation.results.calibration import import_calibration
    from annotation.results.exports import UnknownCampaign
    from formats.calibration_file import CalibrationSetError

    if not file.exists():
        fail(f"{file}: no such file.")
    try:
        set_id = import_calibration(base.open_engine(), campaign, file.read_bytes())
    except (UnknownCampaign, CalibrationSetError) as exc:
        fail(str(exc))
    typer.echo(f"Imported {file} into {campaign!r} as calibration set {set_id}.")


@app.command()
def score(
    campaign: CampaignName,
    metrics: Annotated[
        str,
        typer.Option(
            help="Comma-separated: bleu, chrf, chrf++, ter, bertscore, and imported metrics "
            "by name (their coverage is reported; they are not computed here). The default is "
            "the Campaigns page's."
        ),
    ] = ",".join(DEFAULT_METRICS),
    bertscore_model: Annotated[
        str | None,
        typer.Option(
            help="BERTScore model directory or cached hub name "
            "(default: TANDEM_BERTSCORE_MODEL, else the packaged all-MiniLM-L6-v2)."
        ),
    ] = None,
    bertscore_layers: Annotated[
        int | None, typer.Option(help="BERTScore layer (default: TANDEM_BERTSCORE_LAYERS).")
    ] = None,
    idf: Annotated[
        bool, typer.Option(help="BERTScore idf weights from the campaign's references.")
    ] = False,
    rescale: Annotated[
        bool, typer.Option(help="Rescale BERTScore with a baseline from mismatched pairs.")
    ] = False,
) -> None:
    """Score the outputs that have no score yet (a re-run scores only new outputs)."""
    from metrics.base import MetricConfigError
    from metrics.bertscore import BertScoreConfig
    from metrics.registry import split_metric_names

    engine = base.open_engine()
    config = BertScoreConfig(
        model=bertscore_model, num_layers=bertscore_layers, idf=idf, rescale=rescale
    )
    builtin, imported = split_metric_names(metrics)
    lines = []
    if imported:  # scores brought by the user: nothing to compute, say how much is there
        from annotation.imports.scores_import import imported_coverage

        try:
            lines = imported_coverage(engine, campaign, imported)
        except MetricConfigError as exc:
            fail(str(exc))
    if builtin or not imported:
        _score_builtin(engine, campaign, builtin, config)
    for line in lines:
        typer.echo(line)


def _score_builtin(engine: Any, campaign: str, builtin: list[str], config: BertScoreConfig) -> None:
    """Estimate, then compute and store the built-in metrics' missing scores, with a
    progress bar, the run's summary and its time against the estimate."""
    from metrics.base import MetricConfigError
    from metrics.scoring import score_campaign
    from metrics.scoring_estimate import estimate_error, estimate_scoring

    try:
        estimate = estimate_scoring(engine, campaign, builtin, in_process=True, bertscore=config)
        typer.echo(estimate.describe())
        with ProgressBar("score") as bar:
            report = score_campaign(engine, campaign, builtin, progress=bar, bertscore=config)
    except MetricConfigError as exc:
        fail(str(exc))
    typer.echo(report.summary())
    if estimate.n_todo:
        typer.echo(f"Time: {estimate_error(estimate.seconds, report.seconds)}.")


@app.command("scoring-worker")
def scoring_worker(
    poll: Annotated[float, typer.Option(help="Seconds between looks for new jobs.")] = 2.0,
) -> None:
    """Run the scoring jobs of every replica (deploy/): start the replicas with
    TANDEM_SCORING_WORKER=external so that they only queue them. Runs until stopped."""
    from metrics.scoring_job import serve_jobs

    if poll <= 0:
        base.fail("--poll must be a positive number of seconds.")
    engine = base.open_engine()
    typer.echo(f"Scoring worker: looking for jobs every {poll:g} s (Ctrl+C stops it).")
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C is how it stops
        serve_jobs(engine, poll_s=poll)
