"""What every `cli.py` command shares: the Typer app, the database, failing with a message,
the common options, and a progress bar."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
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


def open_engine():  # type: ignore[no-untyped-def]
    from db.engine import get_engine
    from db.migrate import DatabaseNotMigrated, ensure_migrated

    engine = get_engine()
    try:
        ensure_migrated(engine)
    except DatabaseNotMigrated as exc:
        typer.secho(str(exc), fg=typer.colors.RED, err=True)
        raise typer.Exit(2) from None
    return engine


def fail(message: str, code: int = 1) -> NoReturn:
    typer.secho(message, fg=typer.colors.RED, err=True)
    raise typer.Exit(code)


def import_limit(file: Path, max_mb: float | None, regular: bool = False) -> float:
    """``--max-mb`` for importing ``file``, once ``file`` exists (a regular file if asked)."""
    if not (file.is_file() if regular else file.exists()):
        fail(f"{file}: no such file.")
    return max_mb_option(max_mb)


@contextmanager
def importing(file: Path) -> Iterator[None]:
    """Fail saying why when the import in the block refuses ``file`` or cannot read it."""
    from formats.problems import CampaignFileError

    try:
        yield
    except CampaignFileError as exc:
        fail(f"Nothing was imported.\n{exc}")
    except OSError as exc:
        fail(f"Nothing was imported: {file} cannot be read ({exc.strerror or exc}).")


@contextmanager
def exporting(campaign_checked: bool = False) -> Iterator[None]:
    """Fail saying why when the export in the block cannot be written, or names no campaign
    (unless the caller has looked the campaign up already: then that error propagates)."""
    from annotation.results.exports import UnknownCampaign
    from formats.writers import ExportError

    try:
        yield
    except UnknownCampaign as exc:
        if campaign_checked:
            raise
        fail(f"{exc}; `cli.py campaigns` lists them.")
    except ExportError as exc:
        fail(f"Nothing was written: {exc}.")


def write_export(out: Path, data: bytes) -> None:
    out.write_bytes(data)
    typer.echo(f"Wrote {out}.")


def max_mb_option(value: float | None) -> float:
    """``--max-mb``: a positive finite number of MB (the default limit when not given)."""
    from formats.problems import DEFAULT_MAX_MB, max_mb_problem

    if value is None:
        return DEFAULT_MAX_MB
    if max_mb_problem(value):
        fail(f"--max-mb {value:g}: give a positive number of megabytes, e.g. --max-mb 500.")
    return value


def campaign_id_of(engine, name: str) -> int:  # type: ignore[no-untyped-def]
    """The id of campaign ``name``, or fail pointing at `cli.py campaigns`."""
    from db.reads.campaign import campaign_id

    cid = campaign_id(engine, name)
    if cid is None:
        fail(f"No campaign named {name!r}; `cli.py campaigns` lists them.")
    return cid


def metric_signatures(engine, campaign: str, names: list[str]) -> list[str]:  # type: ignore[no-untyped-def]
    """``--metric`` values (names such as chrf or comet22, or signatures) → stored signatures."""
    from db.scores.metric_scores import campaign_signatures
    from metrics.base import MetricConfigError
    from metrics.registry import resolve_signatures

    stored = [
        (m, sig) for m, sig, _ in campaign_signatures(engine, campaign_id_of(engine, campaign))
    ]
    try:
        return resolve_signatures(stored, names)
    except MetricConfigError as exc:
        fail(f"--metric: {exc}.")


#: The ``--campaign NAME`` option of most commands.
CampaignName = Annotated[str, typer.Option(help="Campaign name.")]


# No tqdm monitor thread: our bars are driven by callbacks, and tqdm's monitor (a thread that
# outlives the bar) alive at interpreter exit with pyarrow loaded made the process abort
# ("terminate called without an active exception", exit 134).
tqdm.monitor_interval = 0


class ProgressBar:
    """A tqdm bar driven by the (done, total) progress callbacks the packages take."""

    def __init__(self, desc: str) -> None:
        self.bar = tqdm(desc=desc, unit="step", leave=False, file=sys.stderr)

    def __call__(self, done: int, total: int) -> None:
        self.bar.total = total
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def on_off(switch: str, command: str) -> bool:
    """An on|off argument of a switch command (racing, document-context, document-order)."""
    if switch not in ("on", "off"):
        fail(f"{command} takes on or off, not {switch!r}")
    return switch == "on"


def changed_note(engine, cid: int, key: str) -> str:  # type: ignore[no-untyped-def]
    """' (changed after N labels)' for the last logged change of setting ``key``."""
    from annotation.queue.admin import setting_changes

    last = [c for c in setting_changes(engine, cid) if c.key == key][-1]
    return f" (changed after {last.labels_before:,} labels)" if last.labels_before else ""


def switch_setting(campaign: str, name: str, switch: str, setter, key: str | None) -> None:  # type: ignore[no-untyped-def]
    """The flow every on|off setting command shares: check the argument, call
    ``setter(engine, campaign_id, on)`` (its ValueError is the refusal, nothing changed), and
    say what happened with the labels-so-far note of the setting log's ``key``."""
    on = on_off(switch, name.replace(" ", "-"))
    engine = open_engine()
    cid = campaign_id_of(engine, campaign)
    try:
        changed = setter(engine, cid, on)
    except ValueError as exc:
        fail(f"{campaign}: {exc}")
    if not changed:
        typer.echo(f"{campaign}: {name} already {switch}")
        return
    note = changed_note(engine, cid, key) if key else ""
    typer.echo(f"{campaign}: {name} {switch}{note}")


def export_format(out: Path) -> str:
    """The format an export's file name asks for (its suffix), or fail naming the choices."""
    from formats.readers import file_type

    fmt = file_type(out.name)
    if fmt is None:
        fail(f"{out}: use a .csv, .tsv, .jsonl or .parquet file name.")
    return fmt
