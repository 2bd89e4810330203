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


def _max_mb(value: float | None) -> float:
    """``--max-mb``: a positive finite number of MB (the default limit when not given)."""
    from annotation.campaign_file import DEFAULT_MAX_MB, max_mb_problem

    if value is None:
        return DEFAULT_MAX_MB
    if max_mb_problem(value):
        _fail(f"--max-mb {value:g}: give a positive number of megabytes, e.g. --max-mb 500.")
    return value


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
        str | None,
        typer.Option(
            help="binary, post_edit, both or spans (new campaigns; default binary). With "
            "--append it must be the campaign's mode."
        ),
    ] = None,
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
    from annotation.campaign_file import CampaignFileError, parse_column_map
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
    if mode is not None and mode not in tuple(CampaignMode):
        _fail(f"--mode {mode!r}: use {', '.join(CampaignMode)}.")
    limit = _max_mb(max_mb)
    settings = {
        "target_lang": target_lang,
        "show_metrics": show_metrics,
        "overlap": overlap,
        "attention_rate": attention_rate,
    }
    if mode is not None or not append:  # appended rows take the campaign's mode
        settings["mode"] = mode or CampaignMode.BINARY.value
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
                settings=settings,
                max_mb=limit,
                progress=bar,
            )
    except CampaignFileError as exc:
        _fail(f"Nothing was imported.\n{exc}")
    except OSError as exc:
        _fail(f"Nothing was imported: {file} cannot be read ({exc.strerror or exc}).")
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
    from annotation.campaign_file import CampaignFileError
    from annotation.importer import import_scores

    if not file.exists():
        _fail(f"{file}: no such file.")
    limit = _max_mb(max_mb)
    try:
        report = import_scores(_engine(), file, campaign, max_mb=limit)
    except CampaignFileError as exc:
        _fail(f"Nothing was imported.\n{exc}")
    except OSError as exc:
        _fail(f"Nothing was imported: {file} cannot be read ({exc.strerror or exc}).")
    typer.echo(report.summary())


@app.command("export-scores")
def export_scores_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="Scores file; its suffix picks the format.")],
) -> None:
    """Export a campaign's imported metric scores as a scores file (import-scores reads it)."""
    from annotation.campaign_file import file_type
    from annotation.exports import ExportError, UnknownCampaign
    from annotation.scores_file import export_scores

    fmt = file_type(out.name)
    if fmt is None:
        _fail(f"{out}: use a .csv, .tsv, .jsonl or .parquet file name.")
    try:
        data = export_scores(_engine(), campaign, fmt)
    except UnknownCampaign as exc:
        _fail(f"{exc}; `cli.py campaigns` lists them.")
    except ExportError as exc:
        _fail(f"Nothing was written: {exc}.")
    out.write_bytes(data)
    typer.echo(f"Wrote {out}.")


@app.command("import-mqm")
def import_mqm_cmd(
    file: Annotated[Path, typer.Argument(help="MQM TSV in WMT's layout (one row per error).")],
    campaign: CampaignName,
    target_lang: Annotated[
        str | None, typer.Option(help="Target language code (chooses metric tokenizers).")
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(
            help="Refuse the file for a malformed <v> mark (by default such a row is kept as "
            "an error of its severity without a position, and reported)."
        ),
    ] = False,
    max_mb: Annotated[float | None, typer.Option(help="Import size limit in MB.")] = None,
) -> None:
    """Import WMT-style MQM error annotations as a new error-span campaign."""
    from annotation.campaign_file import CampaignFileError
    from annotation.mqm_tsv import import_mqm_tsv

    if not file.is_file():
        _fail(f"{file}: no such file.")
    limit = _max_mb(max_mb)
    try:
        report = import_mqm_tsv(
            _engine(), file, campaign, target_lang=target_lang, strict=strict, max_mb=limit
        )
    except CampaignFileError as exc:
        _fail(f"Nothing was imported.\n{exc}")
    except OSError as exc:
        _fail(f"Nothing was imported: {file} cannot be read ({exc.strerror or exc}).")
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
    from annotation.exports import ExportError, export_campaign

    fmt = file_type(out.name)
    if fmt is None:
        _fail(f"{out}: use a .csv, .tsv, .jsonl or .parquet file name.")
    engine = _engine()
    _campaign_id(engine, campaign)
    try:
        data = export_campaign(engine, campaign, fmt)
    except ExportError as exc:
        _fail(f"Nothing was written: {exc}.")
    out.write_bytes(data)
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


campaign_app = typer.Typer(
    help="A campaign's life: rename, archive, restore, delete (each logged).",
    no_args_is_help=True,
)
app.add_typer(campaign_app, name="campaign")


def _life(action, *args) -> None:  # type: ignore[no-untyped-def]
    """Run a db.lifecycle change from the command line; its error exits 1, nothing changed."""
    from db.lifecycle import CampaignLifeError

    try:
        return action(_engine(), *args, via="cli")
    except CampaignLifeError as exc:
        _fail(f"{str(exc)[:1].upper()}{str(exc)[1:]}.")


@campaign_app.command("rename")
def campaign_rename(
    old: Annotated[str, typer.Argument(help="The campaign's name now.")],
    new: Annotated[str, typer.Argument(help="Its new name (unique, at most 200 characters).")],
) -> None:
    """Rename a campaign (invite links keep working)."""
    from db.lifecycle import rename_campaign

    typer.echo(f"Renamed {old!r} to {_life(rename_campaign, old, new)!r}.")


@campaign_app.command("archive")
def campaign_archive(name: Annotated[str, typer.Argument(help="Campaign name.")]) -> None:
    """Archive a campaign: hidden from the lists, read-only, restorable."""
    from db.lifecycle import archive_campaign

    _life(archive_campaign, name)
    typer.echo(
        f"Archived {name!r}: hidden from the lists and pickers; no imports, queue builds, "
        f"annotating or scoring. `cli.py campaign restore {name!r}` brings it back."
    )


@campaign_app.command("restore")
def campaign_restore(name: Annotated[str, typer.Argument(help="Campaign name.")]) -> None:
    """Restore an archived campaign."""
    from db.lifecycle import restore_campaign

    _life(restore_campaign, name)
    typer.echo(f"Restored {name!r}: listed and writable again.")


@campaign_app.command("delete")
def campaign_delete(
    name: Annotated[str, typer.Argument(help="Campaign name.")],
    confirm: Annotated[str, typer.Option(help="The campaign's name again, typed out.")],
    export_dir: Annotated[
        Path | None,
        typer.Option(help="First write its annotations, campaign file and results here."),
    ] = None,
) -> None:
    """Delete a campaign and every row of it, in one transaction (cannot be undone)."""
    from annotation.campaign_life import final_exports
    from db.lifecycle import delete_campaign

    if export_dir is not None and confirm == name:
        engine = _engine()
        _campaign_id(engine, name)
        export_dir.mkdir(parents=True, exist_ok=True)
        for file_name, data in final_exports(engine, name):
            (export_dir / file_name).write_bytes(data)
            typer.echo(f"Wrote {export_dir / file_name}.")
    counts = _life(delete_campaign, name, confirm)
    rows = ", ".join(f"{n:,} {table}" for table, n in counts.items() if n)
    typer.echo(f"Deleted {name!r}: {rows}.")


@campaign_app.command("list")
def campaign_list(
    archived: Annotated[bool, typer.Option(help="List the archived campaigns.")] = False,
) -> None:
    """List the active campaigns, or the archived ones."""
    from db.campaigns import list_campaigns

    rows = list_campaigns(_engine(), archived=archived)
    if not rows:
        typer.echo("No archived campaigns." if archived else "No active campaigns.")
    for c in rows:
        when = f", archived {c.archived_at:%Y-%m-%d %H:%M}" if c.archived_at else ""
        typer.echo(f"{c.name}: {c.n_outputs:,} outputs, {c.n_judgments:,} judgments{when}")


@campaign_app.command("log")
def campaign_log_cmd(
    name: Annotated[str | None, typer.Argument(help="Only events under this name.")] = None,
) -> None:
    """The log of renames, archives, restores and deletions (kept after a deletion)."""
    from db.lifecycle import campaign_events

    events = campaign_events(_engine(), name)
    if not events:
        typer.echo("No campaign was renamed, archived, restored or deleted yet.")
    for e in events:
        extra = f" (was {e.detail['old_name']!r})" if e.action == "rename" else ""
        if e.action == "delete":
            extra = f" ({sum(e.detail.get('rows', {}).values()):,} rows)"
        typer.echo(f"{e.at:%Y-%m-%d %H:%M:%S} {e.action} {e.name!r}{extra} via {e.via}")


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
    from annotation.exports import (
        ANNOTATION_FORMATS,
        ExportError,
        UnknownCampaign,
        export_annotations,
    )

    fmt = out.suffix.lstrip(".").lower()
    if fmt not in ANNOTATION_FORMATS:
        _fail(f"{out}: use a .csv, .jsonl or .parquet file name.")
    try:
        data = export_annotations(_engine(), campaign, fmt, current_only=not all_rows)
    except UnknownCampaign as exc:
        _fail(f"{exc}; `cli.py campaigns` lists them.")
    except ExportError as exc:
        _fail(f"Nothing was written: {exc}.")
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
        from metrics.scoring_job import estimate_error, estimate_scoring

        try:
            estimate = estimate_scoring(
                engine, campaign, builtin, in_process=True, bertscore=config
            )
            typer.echo(estimate.describe())
            with _Bar("score") as bar:
                report = score_campaign(engine, campaign, builtin, progress=bar, bertscore=config)
        except MetricConfigError as exc:
            _fail(str(exc))
        typer.echo(report.summary())
        if estimate.n_todo:
            typer.echo(f"Time: {estimate_error(estimate.seconds, report.seconds)}.")
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
    margin: Annotated[
        float | None,
        typer.Option(
            "--margin", "--epsilon",
            help="ε, the smallest difference that matters: a pair whose interval lies within "
            "±ε settles as 'no difference larger than ε' (default 0.05).",
        ),
    ] = None,
    error_rate: Annotated[
        str | None,
        typer.Option(
            help="holm (family-wise error rate, default) or ebh (false discovery rate, e-BH; "
            "betting design)."
        ),
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
        if margin is not None:
            values["equivalence_margin"] = margin
        if error_rate is not None:
            values["error_rate"] = error_rate
        before = current_plan(engine, cid)
        now = set_plan(engine, cid, **values) if values else before
    except ValueError as exc:
        _fail(str(exc))
    size = "each pool's size" if now.planned_labels is None else f"{now.planned_labels:,}"
    typer.echo(f"Planned labels per system: {size}")
    typer.echo(f"Design: {now.design} — {DESIGN_TEXT[now.design]}")
    typer.echo(f"Estimand: {now.estimand}")
    typer.echo(f"Smallest difference that matters (ε): {now.margin:g} — a pair settles as "
               f"'no difference larger than {now.margin:g}' when its interval lies within ±ε")
    typer.echo(f"Error rate: {now.error_rate} — {_error_rate_text(now.error_rate)}")
    for line in _plan_fit_lines(engine, cid, now):
        typer.secho(line, fg=typer.colors.YELLOW)
    for ch in now.late:
        typer.secho(
            f"Changed after {ch.labels_before:,} labels existed, recorded but NOT applied: "
            f"{ch.key} {ch.old_value!r} → {ch.new_value!r} (a plan chosen after seeing data "
            "could turn past verdicts significant).",
            fg=typer.colors.YELLOW,
        )


def _error_rate_text(rate: str) -> str:
    from estimators.verdicts import ERROR_RATE_TEXT, ErrorRate

    return ERROR_RATE_TEXT[ErrorRate(rate)] if rate in tuple(ErrorRate) else rate


def _plan_fit_lines(engine, cid: int, plan) -> list[str]:  # type: ignore[no-untyped-def]
    """Whether the planned labels fit the pool, and what the pool can settle."""
    from db.campaigns import list_campaigns
    from estimators.planning import pool_fit

    camp = next(c for c in list_campaigns(engine) if c.id == cid)
    n_items = getattr(camp, "n_items", None)
    if not n_items or camp.n_systems < 2:
        return []
    fit = pool_fit(camp.n_systems, n_items, plan.planned_labels)
    return fit.sentences(plan.margin)


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


def _on_off(switch: str, command: str) -> bool:
    """An on|off argument of a switch command (racing, document-context)."""
    if switch not in ("on", "off"):
        _fail(f"{command} takes on or off, not {switch!r}")
    return switch == "on"


def _changed_note(engine, cid: int, key: str) -> str:  # type: ignore[no-untyped-def]
    """' (changed after N labels)' for the last logged change of setting ``key``."""
    from annotation.queue import setting_changes

    last = [c for c in setting_changes(engine, cid) if c.key == key][-1]
    return f" (changed after {last.labels_before:,} labels)" if last.labels_before else ""


@app.command("racing")
def racing_switch(
    campaign: CampaignName,
    switch: Annotated[
        str,
        typer.Argument(
            help="on: stop drawing systems whose pairs are all settled; off: the uniform design."
        ),
    ],
) -> None:
    """Switch racing on or off (logged with the number of labels so far). On: each newly
    drawn item is queued only for the systems with a pair not yet settled."""
    from annotation import racing

    on = _on_off(switch, "racing")
    engine = _engine()
    cid = _campaign_id(engine, campaign)
    try:
        changed = racing.set_racing(engine, cid, on)
    except ValueError as exc:
        _fail(f"{campaign}: {exc}")
    if not changed:
        typer.echo(f"{campaign}: racing already {switch}")
        return
    typer.echo(f"{campaign}: racing {switch}{_changed_note(engine, cid, racing.KEY)}")


@app.command("document-context")
def document_context_switch(
    campaign: CampaignName,
    switch: Annotated[
        str,
        typer.Argument(
            help="on: annotators see the document's earlier segments above the output; off."
        ),
    ],
    window: Annotated[
        int, typer.Option(help="Earlier segments shown open; the rest are collapsed.")
    ] = 3,
) -> None:
    """Switch document context on or off (logged with the number of labels so far). On:
    the annotator's page shows the document's earlier segments (source and the same
    system's output), the last WINDOW open. Needs a doc_id column in the campaign file. It
    is only shown: items are still drawn one segment at a time at random, so every estimate
    is unchanged."""
    from annotation import context

    on = _on_off(switch, "document-context")
    engine = _engine()
    cid = _campaign_id(engine, campaign)
    try:
        changed = context.set_document_context(engine, cid, on, window)
    except ValueError as exc:
        _fail(f"{campaign}: {exc}")
    if not changed:
        typer.echo(f"{campaign}: document context already {switch} (window {window})")
        return
    note = _changed_note(engine, cid, context.KEY)
    typer.echo(f"{campaign}: document context {switch}, window {window}{note}")


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
    try:
        result = evaluate(data, kind, chosen, learned=learned, alpha=alpha)
    except ValueError as exc:
        _fail(str(exc))
    label = " + ".join(result.control_labels) or "none (human only)"
    typer.echo(f"Campaign {campaign!r}, judgment: {LABEL_KINDS[kind]}; controls: {label}.")
    for note in result.notes:
        typer.echo(f"Note: {note}")
    if learned is not None and LEARNED in result.controls:
        typer.echo(f"Learned control ŷ: {learned.model}, {learned.folds}-fold cross-fitted on "
                   f"{learned.n_labels} labels from {len(learned.features)} metric(s).")
    typer.echo("Fixed-n intervals (valid when the number of labels was fixed in advance).\n")
    _evaluate_systems(result)
    _evaluate_pairs(result, data, alpha)
    _evaluate_efficiency(control_efficiency(data, kind, learned), data, kind)


def _evaluate_interval(r, width: int) -> str:  # type: ignore[no-untyped-def]
    """'estimate [low, high]' or, when the method gives no number, why (evaluate)."""
    from estimators.result import reason_text

    if not r.available:
        return f"{'—':>{width}} {reason_text(r)}"
    return f"{r.estimate:>{width}.4f} [{r.low:>8.4f}, {r.high:>8.4f}]"


def _evaluate_systems(result) -> None:  # type: ignore[no-untyped-def]
    typer.echo(f"{'system':<24} {'method':<8} {'n':>6} {'estimate':>9} {'95% interval':>19}"
               f" {'DE':>6}")
    if not result.systems:
        typer.echo("(no rows: no system has a label of this kind yet)")
    for name, method, r in result.systems:
        de = r.diagnostics.get("de") if r.available else None
        typer.echo(f"{name[:24]:<24} {method:<8} {r.n_human:>6} {_evaluate_interval(r, 9)}"
                   f" {'' if de is None else f'{de:6.2f}'}")


def _evaluate_pairs(result, data, alpha: float) -> None:  # type: ignore[no-untyped-def]
    """The pairs in the live verdicts' three words: a winner (Holm), no difference larger than
    the plan's ε (Bonferroni-level interval within ±ε), or not significant; a pair without
    an interval says why."""
    from estimators.multiple import pairs as all_pairs
    from estimators.result import MIN_LABELS_FOR_VERDICT
    from estimators.verdicts import fixed_n_words

    eps = data.live_plan.margin
    m = max(len(all_pairs(len(data.systems))), 1)
    typer.echo(f"\n{'pair':<36} {'method':<8} {'n':>6} {'Δ':>8} {'95% interval':>19} "
               f"{'p (Holm)':>9}  verdict (ε = {eps:g}, the plan's smallest difference)")
    if not result.pairs:
        typer.echo("(no rows: pairs need two systems with labels on shared items)")
    for p in result.pairs:
        r = p["result"]
        pair = f"{p['a']} – {p['b']}"
        if not r.available:
            typer.echo(f"{pair[:36]:<36} {p['method']:<8} {r.n_human:>6} {p['verdict']}")
            continue
        words = fixed_n_words(
            p["a"], p["b"], r.estimate, r.se, p["p_holm"], alpha=alpha, m=m, margin=eps,
            n=r.n_human, min_labels=MIN_LABELS_FOR_VERDICT,
        )  # fmt: skip
        typer.echo(f"{pair[:36]:<36} {p['method']:<8} {r.n_human:>6} "
                   f"{_evaluate_interval(r, 8)} {p['p_holm']:>9.4f}  {words}")


def _evaluate_efficiency(eff, data, kind: str) -> None:  # type: ignore[no-untyped-def]
    from estimators.controls import label_grid

    if not eff:
        typer.echo("\nNo control efficiency: the campaign has no metric scores "
                   "(`cli.py score`, or `cli.py import-scores`).")
        return
    typer.echo(f"\n{'control':<24} {'ρ (judgment)':>13} {'ρ (pairs)':>10} {'DE':>6} "
               f"{'DE pairs':>9}")
    for e in eff:
        cells = [e.rho, e.rho_pairs, e.de, e.de_pairs]
        txt = ["–" if v is None else f"{v:.3f}" for v in cells]
        typer.echo(f"{e.label[:24]:<24} {txt[0]:>13} {txt[1]:>10} {txt[2]:>6} {txt[3]:>9}")
    if not any(e.measured for e in eff):
        _, labelled = label_grid(data, kind)
        unlabelled = int(((data.output_ids >= 0) & ~labelled).sum())
        typer.echo("No data efficiency was measured: " + (
            "every output is labelled (a census), so there are no unlabelled outputs for a "
            "control to use." if unlabelled <= 0 else
            "it needs at least 10 labels and 3 unlabelled outputs per system or pair."))
    elif not any(e.helps for e in eff):
        typer.echo("No control helps here: every measured DE is below 1.02, so PPI++ "
                   "saves no labels; human-only results are as good.")


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
