"""`cli.py` commands: Set-up and access: the database's schema, the admin password, accounts,
serving the app."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from commands import base
from commands.base import (
    app,
    fail,
)


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
        fail(str(exc))
    if before == after:
        typer.echo(f"Database {where} is already at revision {after or 'base'}; nothing to do.")
    elif before is None:
        typer.echo(f"Created a new, empty database {where} (schema revision {after}).")
    else:
        typer.echo(
            f"Database {where} migrated from revision {before or 'base'} to {after or 'base'}."
        )


@app.command("admin-password")
def admin_password(
    if_unset: Annotated[
        bool, typer.Option(help="Only create the owner account when nobody can sign in yet.")
    ] = False,
) -> None:
    """Create the owner account (password printed once), or give it a new random password."""
    from accounts.passwords import WeakPassword
    from accounts.registry import ensure_owner, new_password
    from accounts.signin import set_owner_password

    engine = base.open_engine()
    try:
        if if_unset:
            password = ensure_owner(engine)
            if password is None:
                return
        else:
            if os.environ.get("TANDEM_ADMIN_PASSWORD"):
                fail("TANDEM_ADMIN_PASSWORD is set in the environment; it wins over a stored one.")
            password = new_password()
            set_owner_password(engine, password)
    except WeakPassword as exc:
        fail(f"{exc}.")
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
        fail(f"Nothing was changed: {exc}.")


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
    from accounts.registry import create_account

    engine = base.open_engine()
    account, generated = _account_action(
        lambda: create_account(engine, name, role, _password_option(prompt))
    )
    typer.echo(f"Created '{account.name}' ({account.role}).")
    _show_password(account.name, generated)


@accounts_app.command("list")
def accounts_list() -> None:
    """Every account, its role and status, and the campaigns given to it."""
    from accounts.grants import grants
    from accounts.registry import list_accounts

    engine = base.open_engine()
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
    from accounts.registry import set_account_disabled

    engine = base.open_engine()
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
    from accounts.signin import reset_password

    engine = base.open_engine()
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
    from accounts.grants import grant_campaign

    engine = base.open_engine()
    changed = _account_action(lambda: grant_campaign(engine, name, campaign, revoke=revoke))
    verb = "no longer sees" if revoke else "may now open"
    typer.echo(f"'{name}' {verb} '{campaign}'." + ("" if changed else " (It already was so.)"))


#: How every served mode starts Streamlit (`make run`, `cli.py serve`, deploy/replicas.sh):
#: no file watcher and no run-on-save (an idle page then costs nothing), no browser
#: opened, no usage statistics, no full garbage collection after every run (60 % of a
#: judgment's CPU), no "magic" (no page draws a bare expression, and Streamlit
#: rewrites every page's syntax tree for it again in each new browser session: 26 ms per
#: dashboard reload). Given on the command line, not only in .streamlit/config.toml, which
#: Streamlit reads from the current folder only.
SERVE_FLAGS = (
    "--server.headless=true",
    "--server.fileWatcherType=none",
    "--server.runOnSave=false",
    "--runner.postScriptGC=false",
    "--runner.magicEnabled=false",
    "--browser.gatherUsageStats=false",
)


def serve_command(host: str, port: int) -> list[str]:
    """The command line that serves the app on ``host``:``port``."""
    app_py = Path(__file__).resolve().parent.parent / "app.py"
    return [sys.executable, "-m", "streamlit", "run", str(app_py),
            f"--server.address={host}", f"--server.port={port}", *SERVE_FLAGS]  # fmt: skip


@app.command()
def serve(host: str = "localhost", port: int = 8501) -> None:
    """Start the app (same as `make run` without the set-up)."""
    base.open_engine()
    root = Path(__file__).resolve().parent.parent
    os.chdir(root)
    # Become the Streamlit process rather than its parent: a signal (a supervisor's stop, a
    # kill) then reaches the server itself instead of leaving it running without its parent.
    command = serve_command(host, port)
    os.execv(command[0], command)
