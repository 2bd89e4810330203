"""Tandem's command line, for headless work: migrate, import, export, score, serve.

Run ``.venv/bin/python cli.py --help``. The database is the one DATABASE_URL names
(default: the SQLite file data/tandem.db).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated, NoReturn

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may reach a model hub at run time

import typer
from tqdm import tqdm

app = typer.Typer(
    help="Tandem: human evaluation campaigns with valid live significance.",
    no_args_is_help=True,
    add_completion=False,
)


def _engine():  # type: ignore[no-untyped-def]
    from db.engine import get_engine
    from db.migrate import DatabaseNotMigrated, ensure_migrated

    engine = get_engine()
    try:
        ensure_migrated(engine)
    except DatabaseNotMigrated as exc:
        typer.secho(str(exc), fg=typer.colors.RED, err=True)
        raise typer.Exit(2) from None
    return engine


def _fail(message: str, code: int = 1) -> NoReturn:
    typer.secho(message, fg=typer.colors.RED, err=True)
    raise typer.Exit(code)


def _campaign_id(engine, name: str) -> int:  # type: ignore[no-untyped-def]
    """The id of campaign ``name``, or fail pointing at `cli.py campaigns`."""
    from db.reads import campaign_id

    cid = campaign_id(engine, name)
    if cid is None:
        _fail(f"No campaign named {name!r}; `cli.py campaigns` lists them.")
    return cid


#: The ``--campaign NAME`` option of most commands.
CampaignName = Annotated[str, typer.Option(help="Campaign name.")]


# No tqdm monitor thread: our bars are driven by callbacks, and tqdm's monitor (a thread that
# outlives the bar) alive at interpreter exit with pyarrow loaded made the process abort
# ("terminate called without an active exception", exit 134).
tqdm.monitor_interval = 0


class _Bar:
    """A tqdm bar driven by the (done, total) progress callbacks the packages take."""

    def __init__(self, desc: str) -> None:
        self.bar = tqdm(desc=desc, unit="step", leave=False, file=sys.stderr)

    def __call__(self, done: int, total: int) -> None:
        self.bar.total = total
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@app.command()
def migrate(
    revision: Annotated[
        str,
        typer.Argument(help="Target revision: head (default), an older id to downgrade, or base."),
    ] = "head",
) -> None:
    """Apply database migrations (idempotent); all or nothing, data kept."""
    from db.engine import get_engine
    from db.migrate import MigrationFailed, migrate_to

    engine = get_engine()
    where = engine.url.render_as_string(hide_password=True)
    try:
        before, after = migrate_to(engine, revision)
    except MigrationFailed as exc:
        _fail(str(exc))
    if before == after:
        typer.echo(f"Database {where} is already at revision {after or 'base'}; nothing to do.")
    else:
        typer.echo(
            f"Database {where} migrated from revision {before or 'base'} to {after or 'base'}."
        )


@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="CSV, TSV, JSONL or Parquet campaign file.")],
    campaign: CampaignName,
    map_: Annotated[
        list[str] | None,
        typer.Option(
            "--map",
            help="Map a file column to a Tandem column: TANDEM=FILE, "
            "e.g. --map human_label=human_label_binary (repeatable).",
        ),
    ] = None,
    append: Annotated[bool, typer.Option(help="Add the rows to an existing campaign.")] = False,
    mode: Annotated[
        str, typer.Option(help="binary, post_edit or both (new campaigns).")
    ] = "binary",
    target_lang: Annotated[
        str | None, typer.Option(help="Target language code (chooses metric tokenizers).")
    ] = None,
    max_mb: Annotated[float | None, typer.Option(help="Import size limit in MB.")] = None,
) -> None:
    """Import a campaign file (validated completely first; nothing is written on error)."""
    from annotation.campaign_file import DEFAULT_MAX_MB, CampaignFileError, parse_column_map
    from annotation.importer import import_campaign
    from db.vocabulary import CampaignMode

    if not file.exists():
        _fail(f"{file}: no such file.")
    try:
        column_map = parse_column_map(map_ or [])
    except ValueError as exc:
        _fail(str(exc))
    if mode not in tuple(CampaignMode):
        _fail(f"--mode {mode!r}: use binary, post_edit or both.")
    engine = _engine()
    try:
        with _Bar("import") as bar:
            report = import_campaign(
                engine,
                file,
                campaign,
                column_map=column_map,
                append=append,
                settings={"mode": mode, "target_lang": target_lang},
                max_mb=max_mb or DEFAULT_MAX_MB,
                progress=bar,
            )
    except CampaignFileError as exc:
        _fail(f"Nothing was imported.\n{exc}")
    typer.echo(report.summary())


@app.command()
def export(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="Output file; its suffix picks the format.")],
) -> None:
    """Export a campaign in the import format (csv, tsv, jsonl, parquet)."""
    from annotation.campaign_file import file_type
    from annotation.exports import export_campaign

    fmt = file_type(out.name)
    if fmt is None:
        _fail(f"{out}: use a .csv, .tsv, .jsonl or .parquet file name.")
    engine = _engine()
    _campaign_id(engine, campaign)
    out.write_bytes(export_campaign(engine, campaign, fmt))
    typer.echo(f"Wrote {out}.")


@app.command()
def campaigns() -> None:
    """List campaigns with their counts."""
    from db.campaigns import list_campaigns

    rows = list_campaigns(_engine())
    if not rows:
        typer.echo("No campaigns yet. Import one with `cli.py import FILE --campaign NAME`.")
    for c in rows:
        typer.echo(
            f"{c.name}: {c.n_items:,} items, {c.n_systems} systems, {c.n_outputs:,} outputs, "
            f"{c.n_judgments:,} judgments ({c.mode})"
        )


@app.command("seed-demo")
def seed_demo(
    if_empty: Annotated[bool, typer.Option(help="Only when the database has no campaign.")] = True,
) -> None:
    """Create the generated demo campaign."""
    from annotation.demo import seed_demo as seed
    from annotation.demo import seed_demo_if_empty

    engine = _engine()
    report = seed_demo_if_empty(engine) if if_empty else seed(engine)
    if report is None:
        typer.echo("Campaigns exist already; demo not added.")
        return
    typer.echo(report.summary() + " Scored with BLEU, chrF and TER.")


@app.command("admin-password")
def admin_password(
    if_unset: Annotated[
        bool, typer.Option(help="Only generate one when none is configured yet.")
    ] = False,
) -> None:
    """Generate (and print once) the admin password, or set a new random one."""
    import secrets

    from annotation.auth import ensure_admin_password, set_admin_password

    engine = _engine()
    if if_unset:
        password = ensure_admin_password(engine)
        if password is None:
            return
    else:
        if os.environ.get("TANDEM_ADMIN_PASSWORD"):
            _fail("TANDEM_ADMIN_PASSWORD is set in the environment; it wins over a stored one.")
        password = secrets.token_urlsafe(12)
        set_admin_password(engine, password)
    typer.secho(
        f"Admin password (shown once; only its hash is stored): {password}",
        fg=typer.colors.YELLOW,
    )


@app.command("export-annotations")
def export_annotations_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="Output file: .csv, .jsonl or .parquet.")],
    all_rows: Annotated[
        bool, typer.Option("--all", help="Every row of the append-only log, not only current.")
    ] = False,
) -> None:
    """Export annotations with annotator, time and assignment position."""
    from annotation.exports import ANNOTATION_FORMATS, UnknownCampaign, export_annotations

    fmt = out.suffix.lstrip(".").lower()
    if fmt not in ANNOTATION_FORMATS:
        _fail(f"{out}: use a .csv, .jsonl or .parquet file name.")
    try:
        data = export_annotations(_engine(), campaign, fmt, current_only=not all_rows)
    except UnknownCampaign as exc:
        _fail(f"{exc}; `cli.py campaigns` lists them.")
    out.write_bytes(data)
    typer.echo(f"Wrote {out}.")


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
            help="Metric signature used as control (repeatable; default: the dashboard's default)."
        ),
    ] = None,
    alpha: Annotated[float, typer.Option(help="Family-wise error level.")] = 0.05,
) -> None:
    """Export the dashboard's results table (all estimators, rank sets, verdicts)."""
    from annotation.exports import (
        UnknownCampaign,
        campaign_results,
        pairs_csv,
        results_csv,
        results_latex,
    )

    if out.suffix.lower() not in (".csv", ".tex"):
        _fail(f"{out}: use a .csv or .tex file name.")
    try:
        report = campaign_results(_engine(), campaign, signatures=metric, alpha=alpha)
    except UnknownCampaign as exc:
        _fail(f"{exc}; `cli.py campaigns` lists them.")
    if out.suffix.lower() == ".csv":
        out.write_bytes(results_csv(report))
    else:
        out.write_text(results_latex(report), encoding="utf-8")
    typer.echo(f"Wrote {out}.")
    if pairs_out is not None:
        pairs_out.write_bytes(pairs_csv(report))
        typer.echo(f"Wrote {pairs_out}.")
    for note in report.notes:
        typer.echo(f"Note: {note}", err=True)


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
) -> None:
    """Export a rho/eta calibration set (JSON) and the items behind it (CSV)."""
    from annotation.calibration import calibration_export
    from annotation.exports import UnknownCampaign
    from db.reads import read_campaign
    from metrics.calibration_sets import CalibrationSetError

    engine = _engine()
    data = read_campaign(engine, _campaign_id(engine, campaign))
    matches = [m.signature for m in data.metrics if metric in (m.signature, m.metric)]
    if len(matches) != 1:
        known = ", ".join(f"{m.metric} ({m.signature})" for m in data.metrics) or "none"
        _fail(f"--metric {metric!r} matches {len(matches)} stored signatures; known: {known}.")
    try:
        exported = calibration_export(engine, campaign, matches[0], threshold=threshold, data=data)
    except (UnknownCampaign, CalibrationSetError) as exc:
        _fail(str(exc))
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
    from annotation.calibration import import_calibration
    from annotation.exports import UnknownCampaign
    from metrics.calibration_sets import CalibrationSetError

    if not file.exists():
        _fail(f"{file}: no such file.")
    try:
        set_id = import_calibration(_engine(), campaign, file.read_bytes())
    except (UnknownCampaign, CalibrationSetError) as exc:
        _fail(str(exc))
    typer.echo(f"Imported {file} into {campaign!r} as calibration set {set_id}.")


@app.command()
def score(
    campaign: CampaignName,
    metrics: Annotated[
        str, typer.Option(help="Comma-separated: bleu, chrf, chrf++, ter, bertscore.")
    ] = "bleu,chrf,ter,bertscore",
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
    from metrics.scoring import score_campaign

    engine = _engine()
    config = BertScoreConfig(
        model=bertscore_model, num_layers=bertscore_layers, idf=idf, rescale=rescale
    )
    try:
        with _Bar("score") as bar:
            report = score_campaign(engine, campaign, metrics, progress=bar, bertscore=config)
    except MetricConfigError as exc:
        _fail(str(exc))
    typer.echo(report.summary())


@app.command()
def serve(host: str = "localhost", port: int = 8501) -> None:
    """Start the app (same as `make run` without the set-up)."""
    _engine()
    raise typer.Exit(
        subprocess.call(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                str(Path(__file__).with_name("app.py")),
                "--server.address",
                host,
                "--server.port",
                str(port),
                "--server.headless",
                "true",
                "--browser.gatherUsageStats",
                "false",
            ]
        )
    )


if __name__ == "__main__":
    app()
