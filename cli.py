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

from annotation.quality import DEFAULT_ATTENTION_RATE, DEFAULT_OVERLAP

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


def _signatures(engine, campaign: str, names: list[str]) -> list[str]:  # type: ignore[no-untyped-def]
    """``--metric`` values (names such as chrf or comet22, or signatures) → stored signatures."""
    from db.scores import campaign_signatures
    from metrics.base import MetricConfigError
    from metrics.registry import resolve_signatures

    stored = [(m, sig) for m, sig, _ in campaign_signatures(engine, _campaign_id(engine, campaign))]
    try:
        return resolve_signatures(stored, names)
    except MetricConfigError as exc:
        _fail(f"--metric: {exc}.")


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
    elif before is None:
        typer.echo(f"Created a new, empty database {where} (schema revision {after}).")
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
    metric: Annotated[
        list[str] | None,
        typer.Option(
            help="Import a column as metric scores: NAME=COLUMN, e.g. "
            "--metric comet22=comet_score (repeatable; metric:NAME columns always are)."
        ),
    ] = None,
    lower_is_better: Annotated[
        list[str] | None,
        typer.Option(help="An imported metric where smaller is better, e.g. metricx (repeatable)."),
    ] = None,
    metric_version: Annotated[
        list[str] | None,
        typer.Option(help="Version of an imported metric: NAME=VERSION (repeatable)."),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            help="Leave a column of the file out, e.g. --ignore human_label to judge the "
            "file again (repeatable)."
        ),
    ] = None,
    append: Annotated[bool, typer.Option(help="Add the rows to an existing campaign.")] = False,
    mode: Annotated[
        str, typer.Option(help="binary, post_edit, both or spans (new campaigns).")
    ] = "binary",
    target_lang: Annotated[
        str | None, typer.Option(help="Target language code (chooses metric tokenizers).")
    ] = None,
    max_mb: Annotated[float | None, typer.Option(help="Import size limit in MB.")] = None,
    show_metrics: Annotated[
        bool,
        typer.Option(
            "--show-metrics/--hide-metrics",
            help="Whether annotators see metric scores beside each item (new campaigns; "
            "hidden by default: scores can anchor labels on the metrics used as controls).",
        ),
    ] = False,
    overlap: Annotated[
        float, typer.Option(help="Share of items judged by a second annotator (new campaigns).")
    ] = DEFAULT_OVERLAP,
    attention_rate: Annotated[
        float, typer.Option(help="Share of queue positions that are attention checks.")
    ] = DEFAULT_ATTENTION_RATE,
) -> None:
    """Import a campaign file (validated completely first; nothing is written on error)."""
    from annotation.campaign_file import DEFAULT_MAX_MB, CampaignFileError, parse_column_map
    from annotation.importer import import_campaign
    from annotation.scores_file import parse_metric_specs
    from db.vocabulary import CampaignMode

    if not file.exists():
        _fail(f"{file}: no such file.")
    try:
        column_map = parse_column_map(map_ or [])
        metrics = parse_metric_specs(metric or [], lower_is_better or [], metric_version or [])
    except ValueError as exc:
        _fail(str(exc))
    if mode not in tuple(CampaignMode):
        _fail(f"--mode {mode!r}: use binary, post_edit, both or spans.")
    engine = _engine()
    try:
        with _Bar("import") as bar:
            report = import_campaign(
                engine,
                file,
                campaign,
                column_map=column_map,
                metrics=metrics,
                ignore=ignore or [],
                append=append,
                settings={
                    "mode": mode,
                    "target_lang": target_lang,
                    "show_metrics": show_metrics,
                    "overlap": overlap,
                    "attention_rate": attention_rate,
                },
                max_mb=max_mb or DEFAULT_MAX_MB,
                progress=bar,
            )
    except CampaignFileError as exc:
        _fail(f"Nothing was imported.\n{exc}")
    typer.echo(report.summary())
    if not append:
        from annotation.visibility import TRADE_OFF

        seen = (
            "see metric scores"
            if show_metrics
            else "do not see metric scores (--show-metrics to show them)"
        )
        typer.echo(
            f"Annotators {seen}. {TRADE_OFF} Quality control: {overlap:.0%} "
            f"overlap, {attention_rate:.0%} attention checks."
        )


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
    max_mb: Annotated[float | None, typer.Option(help="Import size limit in MB.")] = None,
) -> None:
    """Add metric scores you computed elsewhere (COMET, MetricX, an LLM judge) to a campaign."""
    from annotation.campaign_file import DEFAULT_MAX_MB, CampaignFileError
    from annotation.importer import import_scores

    if not file.exists():
        _fail(f"{file}: no such file.")
    try:
        report = import_scores(_engine(), file, campaign, max_mb=max_mb or DEFAULT_MAX_MB)
    except CampaignFileError as exc:
        _fail(f"Nothing was imported.\n{exc}")
    typer.echo(report.summary())


@app.command("export-scores")
def export_scores_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="Scores file; its suffix picks the format.")],
) -> None:
    """Export a campaign's imported metric scores as a scores file (import-scores reads it)."""
    from annotation.campaign_file import file_type
    from annotation.exports import UnknownCampaign
    from annotation.scores_file import export_scores

    fmt = file_type(out.name)
    if fmt is None:
        _fail(f"{out}: use a .csv, .tsv, .jsonl or .parquet file name.")
    try:
        out.write_bytes(export_scores(_engine(), campaign, fmt))
    except UnknownCampaign as exc:
        _fail(f"{exc}; `cli.py campaigns` lists them.")
    typer.echo(f"Wrote {out}.")


@app.command("import-mqm")
def import_mqm_cmd(
    file: Annotated[Path, typer.Argument(help="MQM TSV in WMT's layout (one row per error).")],
    campaign: CampaignName,
    target_lang: Annotated[
        str | None, typer.Option(help="Target language code (chooses metric tokenizers).")
    ] = None,
) -> None:
    """Import WMT-style MQM error annotations as a new error-span campaign."""
    from annotation.campaign_file import CampaignFileError
    from annotation.mqm_tsv import import_mqm_tsv

    if not file.is_file():
        _fail(f"{file}: no such file.")
    try:
        report = import_mqm_tsv(_engine(), file, campaign, target_lang=target_lang)
    except CampaignFileError as exc:
        _fail(f"Nothing was imported.\n{exc}")
    typer.echo(report.summary())


@app.command("span-settings")
def span_settings_cmd(
    campaign: CampaignName,
    categories: Annotated[
        str | None, typer.Option(help="Comma-separated error categories (default: MQM core).")
    ] = None,
    esa: Annotated[
        bool | None, typer.Option("--esa/--no-esa", help="Ask for a 0–100 overall score.")
    ] = None,
    weight: Annotated[
        list[str] | None,
        typer.Option(
            help="MQM weight NAME=VALUE: minor, minor_punctuation, major, non_translation "
            "(repeatable)."
        ),
    ] = None,
) -> None:
    """Show or set an error-span campaign's categories, MQM weights and ESA score (settable
    before the first label only)."""
    from dataclasses import replace

    from annotation.span_judgments import SettingsLocked, campaign_config, set_campaign_config
    from annotation.spans import SpanConfig, SpanError, Weights

    engine = _engine()
    cid = _campaign_id(engine, campaign)
    config = campaign_config(engine, cid)
    try:
        if categories is not None:
            config = SpanConfig.from_meta(
                config.to_meta() | {"categories": [c for c in categories.split(",") if c]}
            )
        if esa is not None:
            config = replace(config, ask_esa=esa)
        if weight:
            pairs = dict(w.partition("=")[::2] for w in weight)
            weights = Weights.from_mapping(config.to_meta()["weights"] | pairs)
            config = replace(config, weights=weights)
        set_campaign_config(engine, cid, config)
    except (SpanError, SettingsLocked) as exc:
        _fail(str(exc))
    typer.echo(f"categories: {', '.join(config.categories)}")
    typer.echo(f"weights: {config.to_meta()['weights']}; ESA score asked: {config.ask_esa}")


@app.command("export-mqm")
def export_mqm_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="Output .tsv file.")],
) -> None:
    """Export an error-span campaign's current judgments in WMT's MQM TSV layout."""
    from annotation.mqm_tsv import export_mqm_tsv
    from annotation.span_judgments import span_agreement

    engine = _engine()
    cid = _campaign_id(engine, campaign)
    try:
        out.write_bytes(export_mqm_tsv(engine, cid))
    except ValueError as exc:
        _fail(str(exc))
    plain, aware = span_agreement(engine, cid)
    typer.echo(f"Wrote {out}.")
    if plain.f1 is not None:
        typer.echo(
            f"Span F1 between annotators on {plain.n_units:,} outputs judged more than once: "
            f"{plain.f1:.3f} (severity-aware {aware.f1:.3f})."
        )


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
        bool, typer.Option(help="Only create the owner account when nobody can sign in yet.")
    ] = False,
) -> None:
    """Create the owner account (password printed once), or give it a new random password."""
    from annotation.accounts import ensure_owner, new_password, set_owner_password
    from annotation.passwords import WeakPassword

    engine = _engine()
    try:
        if if_unset:
            password = ensure_owner(engine)
            if password is None:
                return
        else:
            if os.environ.get("TANDEM_ADMIN_PASSWORD"):
                _fail("TANDEM_ADMIN_PASSWORD is set in the environment; it wins over a stored one.")
            password = new_password()
            set_owner_password(engine, password)
    except WeakPassword as exc:
        _fail(f"{exc}.")
    typer.secho(
        f"Account 'owner', password (shown once; only its hash is stored): {password}",
        fg=typer.colors.YELLOW,
    )


accounts_app = typer.Typer(
    help="Administrator accounts: owner, admin, viewer.", no_args_is_help=True
)
app.add_typer(accounts_app, name="accounts")


def _account_action(action):  # type: ignore[no-untyped-def]
    """Run ``action`` and turn a refusal (bad name, short password, …) into a red line."""
    try:
        return action()
    except ValueError as exc:
        _fail(f"Nothing was changed: {exc}.")


def _show_password(name: str, password: str | None) -> None:
    if password:
        typer.secho(
            f"Password of '{name}' (shown once; only its argon2 hash is stored): {password}",
            fg=typer.colors.YELLOW,
        )


def _password_option(prompt: bool) -> str | None:
    if not prompt:
        return None
    return typer.prompt("Password (at least 12 characters)", hide_input=True,
                        confirmation_prompt=True)  # fmt: skip


@accounts_app.command("create")
def accounts_create(
    name: str,
    role: Annotated[str, typer.Option(help="owner, admin or viewer.")] = "viewer",
    prompt: Annotated[
        bool, typer.Option("--prompt", help="Type the password instead of generating one.")
    ] = False,
) -> None:
    """Create an account; a generated password is printed once."""
    from annotation.accounts import create_account

    engine = _engine()
    account, generated = _account_action(
        lambda: create_account(engine, name, role, _password_option(prompt))
    )
    typer.echo(f"Created '{account.name}' ({account.role}).")
    _show_password(account.name, generated)


@accounts_app.command("list")
def accounts_list() -> None:
    """Every account, its role and status, and the campaigns given to it."""
    from annotation.accounts import grants, list_accounts

    engine = _engine()
    given: dict[str, list[str]] = {}
    for who, campaign, kind in grants(engine):
        given.setdefault(who, []).append(campaign + (" (creator)" if kind == "creator" else ""))
    accounts = list_accounts(engine)
    if not accounts:
        typer.echo("No accounts yet: `cli.py admin-password --if-unset` creates the owner.")
    for a in accounts:
        status = "disabled" if a.disabled else "active"
        campaigns = "every campaign" if a.is_owner else (", ".join(given.get(a.name, [])) or "none")
        typer.echo(f"{a.name}\t{a.role}\t{status}\tcampaigns: {campaigns}")


@accounts_app.command("disable")
def accounts_disable(
    name: str,
    enable: Annotated[bool, typer.Option("--enable", help="Enable it again.")] = False,
) -> None:
    """Disable an account (it cannot sign in; its sessions end), or --enable it again."""
    from annotation.accounts import set_account_disabled

    engine = _engine()
    account = _account_action(lambda: set_account_disabled(engine, name, not enable))
    typer.echo(f"'{account.name}' {'enabled' if enable else 'disabled'}.")


@accounts_app.command("reset")
def accounts_reset(
    name: str,
    prompt: Annotated[
        bool, typer.Option("--prompt", help="Type the password instead of generating one.")
    ] = False,
) -> None:
    """A new password for an account (printed once, or typed with --prompt); its sessions end."""
    from annotation.accounts import reset_password

    engine = _engine()
    generated = _account_action(lambda: reset_password(engine, name, _password_option(prompt)))
    typer.echo(f"New password set for '{name}'.")
    _show_password(name, generated)


@accounts_app.command("grant")
def accounts_grant(
    name: str,
    campaign: str,
    revoke: Annotated[bool, typer.Option("--revoke", help="Take the campaign back.")] = False,
) -> None:
    """Give an admin or viewer a campaign (or take it back with --revoke)."""
    from annotation.accounts import grant_campaign

    engine = _engine()
    changed = _account_action(lambda: grant_campaign(engine, name, campaign, revoke=revoke))
    verb = "no longer sees" if revoke else "may now open"
    typer.echo(f"'{name}' {verb} '{campaign}'." + ("" if changed else " (It already was so.)"))


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
            help="Metric used as control: a name (chrf, or an imported one such as comet22) "
            "or a signature (repeatable; default: the dashboard's default)."
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
    engine = _engine()
    signatures = _signatures(engine, campaign, metric) if metric else None
    try:
        report = campaign_results(engine, campaign, signatures=signatures, alpha=alpha)
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
    (signature,) = _signatures(engine, campaign, [metric])
    try:
        exported = calibration_export(engine, campaign, signature, threshold=threshold, data=data)
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
        str,
        typer.Option(
            help="Comma-separated: bleu, chrf, chrf++, ter, bertscore, and imported metrics "
            "by name (their coverage is reported; they are not computed here)."
        ),
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
    from metrics.registry import split_metric_names
    from metrics.scoring import score_campaign

    engine = _engine()
    config = BertScoreConfig(
        model=bertscore_model, num_layers=bertscore_layers, idf=idf, rescale=rescale
    )
    builtin, imported = split_metric_names(metrics)
    lines = []
    if imported:  # scores brought by the user: nothing to compute, say how much is there
        from annotation.importer import imported_coverage

        try:
            lines = imported_coverage(engine, campaign, imported)
        except MetricConfigError as exc:
            _fail(str(exc))
    if builtin or not imported:
        try:
            with _Bar("score") as bar:
                report = score_campaign(engine, campaign, builtin, progress=bar, bertscore=config)
        except MetricConfigError as exc:
            _fail(str(exc))
        typer.echo(report.summary())
    for line in lines:
        typer.echo(line)


@app.command()
def plan(
    campaign: CampaignName,
    labels: Annotated[
        int | None, typer.Option(help="Planned labels per system (your label budget / systems).")
    ] = None,
    smallest_difference: Annotated[
        float | None,
        typer.Option(
            help="Accept the planner's forecast for the smallest difference you care about "
            "(a share of adequate outputs, e.g. 0.05)."
        ),
    ] = None,
    design: Annotated[
        str | None, typer.Option(help="Live design: gsd_obf, asympcs, betting or eb_strict.")
    ] = None,
    estimand: Annotated[
        str | None, typer.Option(help="test_set (the campaign's own items) or superpopulation.")
    ] = None,
) -> None:
    """Show or set the plan the live verdicts are tuned to (fix it before the first label)."""
    from annotation.live_plan import current_plan, forecast_planned_labels, set_plan
    from db.campaigns import list_campaigns
    from estimators.live_designs import DESIGN_TEXT

    engine = _engine()
    cid = _campaign_id(engine, campaign)
    if labels is not None and smallest_difference is not None:
        _fail("Give either --labels or --smallest-difference, not both.")
    values: dict[str, object] = {}
    try:
        if smallest_difference is not None:
            n_systems = next(c.n_systems for c in list_campaigns(engine) if c.id == cid)
            values["planned_labels"] = forecast_planned_labels(n_systems, smallest_difference)
            typer.echo(
                f"Planner: {values['planned_labels']:,} labels per system detect a difference of "
                f"{smallest_difference:g} with 80% power (fixed-n paired test, {n_systems} "
                "systems, Holm's first level, worst-case variance)."
            )
        elif labels is not None:
            values["planned_labels"] = labels
        if design is not None:
            values["live_design"] = design
        if estimand is not None:
            values["estimand"] = estimand
        before = current_plan(engine, cid)
        now = set_plan(engine, cid, **values) if values else before
    except ValueError as exc:
        _fail(str(exc))
    size = "each pool's size" if now.planned_labels is None else f"{now.planned_labels:,}"
    typer.echo(f"Planned labels per system: {size}")
    typer.echo(f"Design: {now.design} — {DESIGN_TEXT[now.design]}")
    typer.echo(f"Estimand: {now.estimand}")
    for ch in now.late:
        typer.secho(
            f"Changed after {ch.labels_before:,} labels existed, recorded but NOT applied: "
            f"{ch.key} {ch.old_value!r} → {ch.new_value!r} (a plan chosen after seeing data "
            "could turn past verdicts significant).",
            fg=typer.colors.YELLOW,
        )


@app.command()
def sampling(
    campaign: CampaignName,
    active: Annotated[bool, typer.Option("--active/--uniform", help="Sampling design.")],
    tau: Annotated[
        float | None, typer.Option(help="Active: share of uniform mixed in, π ≥ τ·rate.")
    ] = None,
) -> None:
    """Switch a campaign's queue between uniform and active sampling (logged with the number
    of labels so far; the untouched tail of the queue is drawn in rounds from now on)."""
    from annotation.queue import setting_changes, update_queue_settings

    engine = _engine()
    cid = _campaign_id(engine, campaign)
    values: dict = {"sampling": "active" if active else "uniform"}
    if tau is not None:
        values["active_tau"] = tau
    try:
        update_queue_settings(engine, cid, **values)
    except ValueError as exc:
        _fail(f"{campaign}: {exc}")
    changes = [c for c in setting_changes(engine, cid) if c.key in values]
    after = changes[-1].labels_before if changes else 0
    note = f" (changed after {after:,} labels; the dashboard shows it)" if after else ""
    shown_tau = f", τ = {tau:g}" if tau is not None else ""
    typer.echo(f"{campaign}: sampling {values['sampling']}{shown_tau}{note}")


@app.command()
def evaluate(
    campaign: CampaignName,
    controls: Annotated[
        str,
        typer.Option(
            help="Comma-separated controls: stored metric names or signatures (e.g. chrf, "
            "bertscore_f, an imported comet22) and/or `learned` (the cross-fitted ŷ from "
            "every stored metric). Empty: human only."
        ),
    ] = "learned",
    label_kind: Annotated[
        str | None,
        typer.Option(help="label (binary), one_minus_hter or score (default: by campaign mode)."),
    ] = None,
    alpha: Annotated[float, typer.Option(help="Family-wise error level (Holm).")] = 0.05,
) -> None:
    """Print per-system and pairwise fixed-n results with the chosen controls (headless)."""
    from db.reads import read_campaign
    from estimators.campaign import LABEL_KINDS, available_label_kinds, default_label_kind
    from estimators.controls import LEARNED, control_efficiency, evaluate, learned_control

    engine = _engine()
    data = read_campaign(engine, _campaign_id(engine, campaign))
    kinds = available_label_kinds(data.judgments)
    kind = label_kind or default_label_kind(data.mode, data.judgments)
    if kind is None:
        _fail(f"Campaign {campaign!r} has no human judgments yet.")
    if kind not in kinds:
        _fail(f"No {kind!r} judgments in {campaign!r}; available: "
              f"{', '.join(kinds) or 'none'} ({', '.join(LABEL_KINDS)} are the kinds).")
    chosen = []
    for name in (c.strip() for c in controls.split(",")):
        if not name:
            continue
        if name == LEARNED or name in data.scores:
            chosen.append(name)
            continue
        matches = sorted(data.metrics, key=lambda m: -m.n_scores)
        match = next((m.signature for m in matches if m.metric == name), None)
        if match is None:
            known = [*sorted({m.metric for m in data.metrics}), LEARNED]
            _fail(f"Unknown control {name!r} for {campaign!r}; known: {', '.join(known)} "
                  "(score metrics first: `cli.py score`).")
        chosen.append(match)
    learned = learned_control(data, kind) if data.scores else None
    if LEARNED in chosen and learned is None:
        _fail("The learned control needs stored metric scores (`cli.py score`), at least "
              "10 labels and some unlabelled outputs.")
    try:
        result = evaluate(data, kind, chosen, learned=learned, alpha=alpha)
    except ValueError as exc:
        _fail(str(exc))
    label = " + ".join(result.control_labels) or "none"
    typer.echo(f"Campaign {campaign!r}, judgment: {LABEL_KINDS[kind]}; controls: {label}.")
    if learned is not None:
        typer.echo(f"Learned control ŷ: {learned.model}, {learned.folds}-fold cross-fitted on "
                   f"{learned.n_labels} labels from {len(learned.features)} metric(s).")
    typer.echo("Fixed-n intervals (valid when the number of labels was fixed in advance).\n")
    typer.echo(f"{'system':<24} {'method':<8} {'n':>6} {'estimate':>9} {'95% interval':>19}"
               f" {'DE':>6}")
    for name, method, r in result.systems:
        de = r.diagnostics.get("de")
        typer.echo(f"{name[:24]:<24} {method:<8} {r.n_human:>6} {r.estimate:>9.4f} "
                   f"[{r.low:>8.4f}, {r.high:>8.4f}] {'' if de is None else f'{de:6.2f}'}")
    typer.echo(f"\n{'pair':<36} {'method':<8} {'n':>6} {'Δ':>8} {'95% interval':>19} "
               f"{'p (Holm)':>9}  verdict")
    for p in result.pairs:
        r = p["result"]
        pair = f"{p['a']} – {p['b']}"
        typer.echo(f"{pair[:36]:<36} {p['method']:<8} {r.n_human:>6} {r.estimate:>8.4f} "
                   f"[{r.low:>8.4f}, {r.high:>8.4f}] {p['p_holm']:>9.4f}  {p['verdict']}")
    eff = control_efficiency(data, kind, learned)
    if eff:
        typer.echo(f"\n{'control':<24} {'ρ (judgment)':>13} {'ρ (pairs)':>10} {'DE':>6} "
                   f"{'DE pairs':>9}")
        for e in eff:
            cells = [e.rho, e.rho_pairs, e.de, e.de_pairs]
            txt = ["–" if v is None else f"{v:.3f}" for v in cells]
            typer.echo(f"{e.label[:24]:<24} {txt[0]:>13} {txt[1]:>10} {txt[2]:>6} {txt[3]:>9}")
        if not any(e.helps for e in eff):
            typer.echo("No control helps here: every measured DE is below 1.02, so PPI++ "
                       "saves no labels; human-only results are as good.")
    for note in result.notes:
        typer.echo(f"Note: {note}", err=True)


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
