"""`cli.py` commands: invite annotators in bulk (a CSV of links) and a campaign's study link
for a crowd platform (Prolific, MTurk, or named parameters)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Annotated

import typer

from commands import base
from commands.base import CampaignName, app, campaign_id_of, fail

BaseUrl = Annotated[
    str,
    typer.Option(
        help="The app's public address, e.g. https://tandem.example.org (links are this + ?…)."
    ),
]


def _names_from_csv(path: Path) -> list[str]:
    """The names of a CSV: its `name` column, or else its first column (a header row named
    `name` is skipped; blank lines are ignored)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")
    rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
    if not rows:
        fail(f"{path} has no names")
    header = [c.strip().lower() for c in rows[0]]
    column = header.index("name") if "name" in header else 0
    body = rows[1:] if "name" in header else rows
    return [r[column] if column < len(r) else "" for r in body]


@app.command()
def invite(
    campaign: CampaignName,
    out: Annotated[Path, typer.Option(help="CSV to write: name,link (one row per annotator).")],
    base_url: BaseUrl,
    names: Annotated[str | None, typer.Option(help="Comma-separated annotator names.")] = None,
    from_csv: Annotated[
        Path | None, typer.Option(help="CSV of names (its `name` column, or its first).")
    ] = None,
    count: Annotated[
        int | None, typer.Option(help="Invite N annotators named PREFIX-01 … PREFIX-N.")
    ] = None,
    prefix: Annotated[str, typer.Option(help="Name prefix with --count.")] = "annotator",
) -> None:
    """Invite annotators in bulk and write their links to a CSV (each link is shown only
    there: the database keeps a hash of its token). Every name is checked before any is
    created; an existing --out file is not overwritten."""
    from accounts.invites import create_annotators

    given = [x is not None for x in (names, from_csv, count)]
    if sum(given) != 1:
        fail("give exactly one of --names, --from-csv or --count")
    if out.exists():
        fail(f"{out} exists: choose another file (links are shown once, never overwritten)")
    if names is not None:
        wanted = [n for n in names.split(",")]
    elif from_csv is not None:
        wanted = _names_from_csv(from_csv)
    else:
        assert count is not None
        if count < 1 or count > 10_000:
            fail(f"--count must be from 1 to 10,000, not {count}")
        width = len(str(count))
        wanted = [f"{prefix}-{k:0{width}d}" for k in range(1, count + 1)]
    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    try:
        invites = create_annotators(engine, cid, wanted)
    except ValueError as exc:
        fail(f"{campaign}: {exc}")
    root = base_url.rstrip("/")
    with out.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["name", "link"])
        for inv in invites:
            writer.writerow([inv.name, f"{root}/{inv.query}"])
    typer.echo(f"{campaign}: {len(invites):,} annotator(s) invited; links written to {out}")


@app.command("study-link")
def study_link(
    campaign: CampaignName,
    base_url: BaseUrl,
    platform: Annotated[
        str, typer.Option(help="prolific, mturk, or custom (then --id-param ...).")
    ] = "prolific",
    id_param: Annotated[
        str | None, typer.Option(help="custom: the parameter naming the participant.")
    ] = None,
    session_param: Annotated[
        str | None, typer.Option(help="custom: the parameter of one attempt (optional).")
    ] = None,
    params: Annotated[
        str | None, typer.Option(help="custom: comma-separated parameters to record.")
    ] = None,
    cap: Annotated[int | None, typer.Option(help="At most this many participants.")] = None,
    revoke: Annotated[bool, typer.Option(help="Stop the campaign's study link.")] = False,
) -> None:
    """Create the campaign's study link (the previous one stops working) and print it with
    the platform's parameters appended, or --revoke it. Logged in the setting log."""
    from accounts import study

    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    try:
        if revoke:
            live = study.revoke_study_link(engine, cid)
            typer.echo(f"{campaign}: study link " + ("revoked" if live else "was not live"))
            return
        extra = tuple(p.strip() for p in params.split(",")) if params else None
        link = study.create_study_link(
            engine, cid, platform, id_param=id_param, session_param=session_param,
            params=extra, cap=cap,
        )  # fmt: skip
    except ValueError as exc:
        fail(f"{campaign}: {exc}")
    shown = "&".join(f"{p}={{{{%{p}%}}}}" if platform == "prolific" else f"{p}=…"
                     for p in link.params)  # fmt: skip
    typer.echo(f"{base_url.rstrip('/')}/{link.query}")
    typer.echo(
        f"The platform appends {', '.join(link.params)} (e.g. &{shown}); "
        f"participants are named by {link.id_param}"
        + (f"; at most {link.cap:,}." if link.cap else ".")
    )
    from annotation.tasks.batches import study_idle_note

    warn, note = study_idle_note(engine, cid)
    typer.echo(("Warning: " if warn else "") + note, err=warn)


@app.command("tutorial")
def tutorial_command(
    campaign: CampaignName,
    file: Annotated[
        Path | None,
        typer.Option(
            help="CSV (source, output, expected_label / expected_score / expected_spans, "
            "explanation, ...), JSONL, or Pearmut's JSON with validation blocks "
            "(docs/annotation.md, Tutorials)."
        ),
    ] = None,
    pass_needed: Annotated[
        int | None, typer.Option(help="Items right to pass (default: 80 %, rounded up).")
    ] = None,
    remove: Annotated[bool, typer.Option(help="Remove the campaign's tutorial.")] = False,
) -> None:
    """Set the tutorial and checks annotators answer before their first item (feedback
    after each, or recorded only for silent checks; two attempts at the comprehension
    check), or --remove it. Logged."""
    from annotation.judging import tutorial

    if (file is None) == (not remove):
        fail("give --file FILE, or --remove")
    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    try:
        items = [] if remove else tutorial.parse_file(file.read_bytes(), str(file))  # type: ignore[union-attr]
        tut = tutorial.set_tutorial(engine, cid, items, pass_needed)
    except (OSError, ValueError) as exc:
        fail(f"{campaign}: {exc}")
    typer.echo(f"{campaign}: " + (tut.rule_text if tut else "no tutorial"))
