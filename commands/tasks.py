"""`cli.py` commands: tasks: cut the queue into batches of N items, quotas, completion codes,
and the actions on a task (pause, resume, reassign, expire)."""

from __future__ import annotations

from typing import Annotated

import typer

from commands import base
from commands.base import CampaignName, app, campaign_id_of, fail

tasks_app = typer.Typer(
    help="Tasks: cut the queue into batches of N items with quotas and completion codes.",
    no_args_is_help=True,
)


app.add_typer(tasks_app, name="tasks")


TaskId = Annotated[int, typer.Argument(help="Task id (`cli.py tasks list` shows them).")]


def _task_call(call):  # type: ignore[no-untyped-def]
    """Run a task action; its refusal (nothing changed) as a clear error."""
    from annotation.tasks.batches import TaskError
    from db.campaign.lifecycle import CampaignLifeError

    try:
        return call()
    except (TaskError, CampaignLifeError) as exc:
        fail(str(exc))


@tasks_app.command("cut")
def tasks_cut(
    campaign: CampaignName,
    size: Annotated[int, typer.Option(help="Items (judgments) per task, e.g. 100.")],
    per_annotator: Annotated[
        int | None, typer.Option(help="Tasks one annotator may take (0: no limit).")
    ] = None,
    per_item: Annotated[
        int | None, typer.Option(help="Annotators one item may have (0: no limit).")
    ] = None,
    timeout_min: Annotated[
        int | None, typer.Option(help="Expire a task idle this many minutes (0: never).")
    ] = None,
) -> None:
    """Cut the campaign's uncut open slots into tasks (whole item groups and documents)."""
    from annotation.tasks import batches as tasks

    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    quotas = {
        k: v or None
        for k, v in (("per_annotator", per_annotator), ("per_item", per_item))
        if v is not None
    }
    if timeout_min is not None:  # 0 is kept: never, chosen (unset: a study link's default)
        quotas["timeout_min"] = timeout_min
    if quotas:
        _task_call(lambda: tasks.set_settings(engine, cid, **quotas))
    typer.echo(_task_call(lambda: tasks.cut(engine, cid, size)).summary)


@tasks_app.command("respread")
def tasks_respread(campaign: CampaignName) -> None:
    """Re-build a queue nobody has started on with its attention checks spread evenly (and
    cut its tasks again at the last size): mends a queue built before checks were spread."""
    from annotation.tasks.respread import respread_checks

    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    done = _task_call(lambda: respread_checks(engine, cid))
    typer.echo(
        f"Re-spread: {done.dropped_slots:,} unanswered slot(s) replaced, "
        f"{done.attention_slots:,} attention check(s) spread evenly."
    )
    if done.cut is not None:
        typer.echo(done.cut.summary)


@tasks_app.command("list")
def tasks_list(campaign: CampaignName) -> None:
    """Every task: state, annotator, progress, outcome (idle ones expire first)."""
    from annotation.tasks import admin as task_admin

    engine = base.open_engine()
    rows = _task_call(lambda: task_admin.list_tasks(engine, campaign_id_of(engine, campaign)))
    if not rows:
        typer.echo("No tasks: annotators share one queue (`cli.py tasks cut`).")
    for r in rows:
        typer.echo(
            f"task {r.id:>5}  {r.state:<8} {r.annotator or '-':<20} "
            f"{r.slots - r.left:>4}/{r.slots:<4} {r.outcome or ''}"
        )


def _task_action(campaign: str, action: str, task: int, *args: str) -> None:
    from annotation.tasks import admin as task_admin

    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    result = _task_call(lambda: getattr(task_admin, action)(engine, cid, task, *args))
    if action == "expire":
        rest = f"; its unfinished items are task {result}." if result else "."
        typer.echo(f"Task {task} expired{rest}")
    else:
        typer.echo(f"Task {task}: {result.state} ({result.annotator or 'nobody'}); logged.")


@tasks_app.command("pause")
def tasks_pause(campaign: CampaignName, task: TaskId) -> None:
    """Stop serving an open or active task (logged)."""
    _task_action(campaign, "pause", task)


@tasks_app.command("resume")
def tasks_resume(campaign: CampaignName, task: TaskId) -> None:
    """Serve a paused task again (logged)."""
    _task_action(campaign, "resume", task)


@tasks_app.command("reassign")
def tasks_reassign(
    campaign: CampaignName,
    task: TaskId,
    annotator: Annotated[str, typer.Argument(help="The annotator's name.")],
) -> None:
    """Give a task to another annotator; what the old one holds goes back (logged)."""
    _task_action(campaign, "reassign", task, annotator)


@tasks_app.command("expire")
def tasks_expire(campaign: CampaignName, task: TaskId) -> None:
    """Expire an abandoned task: its unfinished items become a new open task (logged)."""
    _task_action(campaign, "expire", task)


@tasks_app.command("codes")
def tasks_codes(
    campaign: CampaignName,
    pass_code: Annotated[str | None, typer.Option(help="The platform's pass code.")] = None,
    fail_code: Annotated[str | None, typer.Option(help="The platform's fail code.")] = None,
    generated: Annotated[
        bool, typer.Option(help="Drop the set codes: a generated code per task.")
    ] = False,
    handoff_url: Annotated[
        str | None, typer.Option(help="Hand-off URL; {code} is replaced ('' removes it).")
    ] = None,
    pass_share: Annotated[
        float | None, typer.Option(help="Share of attention checks right to pass, e.g. 0.8.")
    ] = None,
    platform: Annotated[
        str | None,
        typer.Option(help="prolific: its completion URL and fixed codes (both needed); '' none."),
    ] = None,
    screen_out_code: Annotated[
        str | None, typer.Option(help="The platform's code for a failed tutorial or a full study.")
    ] = None,
    screen_out_url: Annotated[
        str | None, typer.Option(help="Where a failed tutorial or a full study sends ('' none).")
    ] = None,
) -> None:
    """Set the completion codes (pass and fail, distinct), hand-off URL, the platform, the
    screen-out URL and the pass rule; list the codes given."""
    from annotation.tasks import admin as task_admin
    from annotation.tasks import batches as tasks

    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    changes: dict[str, object] = {}
    if generated:
        changes |= {"pass_code": None, "fail_code": None}
    elif pass_code is not None or fail_code is not None:
        changes |= {"pass_code": pass_code, "fail_code": fail_code}
    if handoff_url is not None:
        changes["handoff_url"] = handoff_url or None
    if pass_share is not None:
        changes["pass_share"] = pass_share
    for key, value in (("platform", platform), ("screen_out_code", screen_out_code),
                       ("screen_out_url", screen_out_url)):  # fmt: skip
        if value is not None:
            changes[key] = value or None
    conf = _task_call(lambda: tasks.set_settings(engine, cid, **changes))
    typer.echo(f"{conf.rule_text} Codes: {conf.codes_text}.")
    typer.echo(f"Hand-off URL: {conf.handoff_url or 'none'}")
    typer.echo(f"Screen-out URL (a failed tutorial, a full study): {conf.screen_out or 'none'}")
    for r in task_admin.list_tasks(engine, cid):
        if r.completion_code:
            who = r.annotator or "-"
            typer.echo(f"task {r.id:>5}  {who:<20} {r.outcome:<5} {r.completion_code}")
