"""`cli.py` commands: Campaigns in and out: import (campaign files, MQM TSV), export, list, span
settings, a campaign's life, the demo."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from annotation.campaign.quality import DEFAULT_ATTENTION_RATE, DEFAULT_OVERLAP
from commands import base
from commands.base import (
    CampaignName,
    ProgressBar,
    app,
    campaign_id_of,
    fail,
    max_mb_option,
)
from commands.import_options import (
    AppendOption,
    AttentionRateOption,
    ColumnMapOption,
    IgnoreOption,
    LikertKeysOption,
    LikertOption,
    LowerIsBetterOption,
    MaxMbOption,
    MetricColumnOption,
    MetricVersionOption,
    ModeOption,
    OverlapOption,
    PairPolicyOption,
    ShowMetricsOption,
    TargetLangOption,
)


@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="CSV, TSV, JSONL or Parquet campaign file.")],
    campaign: CampaignName,
    map_: ColumnMapOption = None,
    metric: MetricColumnOption = None,
    lower_is_better: LowerIsBetterOption = None,
    metric_version: MetricVersionOption = None,
    ignore: IgnoreOption = None,
    append: AppendOption = False,
    mode: ModeOption = None,
    target_lang: TargetLangOption = None,
    max_mb: MaxMbOption = None,
    show_metrics: ShowMetricsOption = False,
    overlap: OverlapOption = DEFAULT_OVERLAP,
    attention_rate: AttentionRateOption = DEFAULT_ATTENTION_RATE,
    pair_policy: PairPolicyOption = None,
    likert: LikertOption = None,
    likert_keys: LikertKeysOption = None,
) -> None:
    """Import a campaign file (validated completely first; nothing is written on error)."""
    from annotation.imports.importer import import_campaign
    from formats.campaign_file import parse_column_map
    from formats.scores_file import parse_metric_specs

    if not file.exists():
        fail(f"{file}: no such file.")
    try:
        column_map = parse_column_map(map_ or [])
        metrics = parse_metric_specs(metric or [], lower_is_better or [], metric_version or [])
    except ValueError as exc:
        fail(str(exc))
    if likert is not None:  # a DA campaign with labelled points; human_score is the point
        from formats.forms.likert import parse_scale

        if mode not in (None, "da") or append:
            fail("--likert: a new DA campaign's scale (leave out --mode or give --mode da).")
        try:
            scale = parse_scale(likert, likert_keys)
        except ValueError as exc:
            fail(f"--likert: {exc}.")
        mode = "da"
    settings = _import_settings(mode, append, target_lang, show_metrics, overlap, attention_rate)
    if pair_policy is not None:
        from annotation.queue.pair_policy import POLICIES

        if pair_policy not in POLICIES:
            fail(f"--pair-policy {pair_policy!r}: use {' or '.join(POLICIES)}.")
        if settings.get("mode") != "preference":
            fail("--pair-policy is for preference campaigns (--mode preference).")
        settings["pair_policy"] = pair_policy
    if likert is not None:
        settings["likert"] = scale
    limit = max_mb_option(max_mb)
    engine = base.open_engine()
    with base.importing(file), ProgressBar("import") as bar:
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
    typer.echo(report.summary())
    if not append:
        _echo_quality_settings(show_metrics, overlap, attention_rate)


def _import_settings(
    mode: str | None,
    append: bool,
    target_lang: str | None,
    show_metrics: bool,
    overlap: float,
    attention_rate: float,
) -> dict[str, object]:
    """The campaign settings of an import; fails on an unknown ``--mode``."""
    from annotation.imports.modes import IMPORT_MODES
    from db.schema.vocabulary import CampaignMode

    if mode is not None and mode not in IMPORT_MODES:
        fail(f"--mode {mode!r}: use {', '.join(IMPORT_MODES)}.")
    settings: dict[str, object] = {
        "target_lang": target_lang,
        "show_metrics": show_metrics,
        "overlap": overlap,
        "attention_rate": attention_rate,
    }
    if mode is not None or not append:  # appended rows take the campaign's mode
        settings["mode"] = mode or CampaignMode.BINARY.value
    return settings


def _echo_quality_settings(show_metrics: bool, overlap: float, attention_rate: float) -> None:
    """What a new campaign's annotators see, and its quality control."""
    from annotation.campaign.visibility import TRADE_OFF

    seen = (
        "see metric scores"
        if show_metrics
        else "do not see metric scores (--show-metrics to show them)"
    )
    typer.echo(
        f"Annotators {seen}. {TRADE_OFF} Quality control: {overlap:.0%} "
        f"overlap, {attention_rate:.0%} attention checks."
    )


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
    max_mb: MaxMbOption = None,
) -> None:
    """Import WMT-style MQM error annotations as a new error-span campaign."""
    from annotation.imports.mqm import import_mqm_tsv

    limit = base.import_limit(file, max_mb, regular=True)
    with base.importing(file):
        report = import_mqm_tsv(
            base.open_engine(), file, campaign, target_lang=target_lang, strict=strict, max_mb=limit
        )
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
    error_free_threshold: Annotated[
        float | None,
        typer.Option(
            help="ESA score from which an output with no error span is error-free (the "
            "error_free judgment kind; default 85)."
        ),
    ] = None,
) -> None:
    """Show or set an error-span campaign's categories, MQM weights, ESA score and
    error-free threshold (settable before the first label only)."""
    from dataclasses import replace

    from annotation.judging.span_judgments import (
        SettingsLocked,
        campaign_config,
        set_campaign_config,
    )
    from annotation.judging.spans import SpanConfig, SpanError, Weights

    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
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
        if error_free_threshold is not None:
            config = SpanConfig.from_meta(
                config.to_meta() | {"error_free_threshold": error_free_threshold}
            )
        set_campaign_config(engine, cid, config)
    except (SpanError, SettingsLocked) as exc:
        fail(str(exc))
    typer.echo(f"categories: {', '.join(config.categories)}")
    typer.echo(f"weights: {config.to_meta()['weights']}; ESA score asked: {config.ask_esa}")
    typer.echo(f"error-free: ESA score ≥ {config.error_free_threshold:g} and no error span")


@app.command("export-mqm")
def export_mqm_cmd(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="Output .tsv file.")],
) -> None:
    """Export an error-span campaign's current judgments in WMT's MQM TSV layout."""
    from annotation.imports.mqm import export_mqm_tsv
    from annotation.judging.span_judgments import span_agreement

    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    try:
        out.write_bytes(export_mqm_tsv(engine, cid))
    except ValueError as exc:
        fail(str(exc))
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
    from annotation.results.exports import export_campaign

    fmt = base.export_format(out)
    engine = base.open_engine()
    campaign_id_of(engine, campaign)
    with base.exporting(campaign_checked=True):
        data = export_campaign(engine, campaign, fmt)
    base.write_export(out, data)


@app.command()
def campaigns() -> None:
    """List campaigns with their counts."""
    from db.campaign.campaigns import list_campaigns

    rows = list_campaigns(base.open_engine())
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
    """Run a db.campaign.lifecycle change from the command line; its error exits 1, nothing
    changed."""
    from db.campaign.lifecycle import CampaignLifeError

    try:
        return action(base.open_engine(), *args, via="cli")
    except CampaignLifeError as exc:
        fail(f"{str(exc)[:1].upper()}{str(exc)[1:]}.")


@campaign_app.command("rename")
def campaign_rename(
    old: Annotated[str, typer.Argument(help="The campaign's name now.")],
    new: Annotated[str, typer.Argument(help="Its new name (unique, at most 200 characters).")],
) -> None:
    """Rename a campaign (invite links keep working)."""
    from db.campaign.lifecycle import rename_campaign

    typer.echo(f"Renamed {old!r} to {_life(rename_campaign, old, new)!r}.")


@campaign_app.command("archive")
def campaign_archive(name: Annotated[str, typer.Argument(help="Campaign name.")]) -> None:
    """Archive a campaign: hidden from the lists, read-only, restorable."""
    from db.campaign.lifecycle import archive_campaign

    _life(archive_campaign, name)
    typer.echo(
        f"Archived {name!r}: hidden from the lists and pickers; no imports, queue builds, "
        f"annotating or scoring. `cli.py campaign restore {name!r}` brings it back."
    )


@campaign_app.command("restore")
def campaign_restore(name: Annotated[str, typer.Argument(help="Campaign name.")]) -> None:
    """Restore an archived campaign."""
    from db.campaign.lifecycle import restore_campaign

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
    from annotation.results.campaign_life import final_exports
    from db.campaign.lifecycle import delete_campaign

    if export_dir is not None and confirm == name:
        engine = base.open_engine()
        campaign_id_of(engine, name)
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
    from db.campaign.campaigns import list_campaigns

    rows = list_campaigns(base.open_engine(), archived=archived)
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
    from db.campaign.lifecycle import campaign_events

    events = campaign_events(base.open_engine(), name)
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
    from annotation.imports.demo import seed_demo as seed
    from annotation.imports.demo import seed_demo_if_empty

    engine = base.open_engine()
    report = seed_demo_if_empty(engine) if if_empty else seed(engine)
    if report is None:
        typer.echo("Campaigns exist already; demo not added.")
        return
    typer.echo(report.summary() + " Scored with BLEU, chrF and TER.")
