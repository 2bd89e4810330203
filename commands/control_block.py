"""`cli.py` commands: the shared control block: set (mark or sample) it, choose whether it
counts in the estimates (logged), remove it, and show its statistics."""

from __future__ import annotations

import math
from typing import Annotated

import typer

from commands import base
from commands.base import CampaignName, app, fail


def _fmt(x: float, digits: int = 3) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


@app.command("control-block")
def control_block_cmd(
    campaign: CampaignName,
    items: Annotated[
        str | None, typer.Option(help="Mark the block: item ids, comma-separated.")
    ] = None,
    sample: Annotated[
        int | None, typer.Option(help="Sample the block: this many items, uniformly.")
    ] = None,
    seed: Annotated[int, typer.Option(help="The sample's seed.")] = 0,
    placement: Annotated[
        str,
        typer.Option(
            help="start (before each annotator's regular work) or spread "
            "(evenly through the queue)."
        ),
    ] = "start",
    counted: Annotated[
        bool | None,
        typer.Option(
            "--counted/--not-counted",
            help="Whether the block's judgments count in "
            "the estimates (logged; default when setting: not counted).",
        ),
    ] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Remove the block.")] = False,
    kind: Annotated[
        str | None, typer.Option(help="Judgment the statistics read: esa, da, score or label.")
    ] = None,
) -> None:
    """Set, change or remove the shared control block every annotator judges once, and show
    its per-annotator means and sds (z-score parameters), Krippendorff's α and drift."""
    from annotation.queue import control_block as cb

    engine = base.open_engine()
    try:
        if remove:
            cb.clear_block(engine, campaign)
            typer.echo(f"Removed the control block of {campaign} (its answers stay, not counted).")
            return
        if items is not None or sample is not None:
            chosen = None if items is None else [i for i in items.split(",") if i.strip()]
            block = cb.set_block(engine, campaign, items=chosen, sample=sample, seed=seed,
                                 placement=placement, counted=bool(counted))  # fmt: skip
            typer.echo(f"Control block of {campaign}: {len(block.items)} item(s), placed at "
                       f"the {block.placement}, {'counted' if block.counted else 'not counted'} "
                       "in the estimates.")  # fmt: skip
        elif counted is not None:
            block = cb.set_counted(engine, campaign, counted)
            typer.echo(f"The control block is now {'counted' if counted else 'not counted'} in "
                       f"the estimates (logged at {block.log[-1]['labels']} labels).")  # fmt: skip
        report = cb.block_report(engine, campaign, kind)
    except cb.ControlBlockError as exc:
        fail(str(exc))
    if report is None:
        typer.echo(f"{campaign} has no control block.")
        return
    _show(report)


def _show(report: dict) -> None:
    block, st = report["block"], report["stats"]
    typer.echo(f"Block: {len(block.items)} item(s), {report['outputs']} output(s); placement "
               f"{block.placement}; {'counted' if block.counted else 'not counted'} in the "
               f"estimates; judgment {report['kind']}.")  # fmt: skip
    alpha = _fmt(st.alpha) if st.alpha is not None else f"– ({st.note})"
    typer.echo(f"Krippendorff's α ({st.level}) on the block: {alpha}")
    typer.echo(f"{'annotator':<20} {'done':>9} {'mean':>8} {'sd':>8} {'drift':>9} {'p':>7}")
    for r in st.annotators:
        done, made = report["progress"].get(r.annotator, (r.n, r.n))
        typer.echo(f"{r.annotator[:20]:<20} {done:>4}/{made:<4} {_fmt(r.mean):>8} "
                   f"{_fmt(r.sd):>8} {_fmt(r.drift_slope, 4):>9} {_fmt(r.drift_p):>7}")  # fmt: skip
    for e in block.log:
        typer.echo(f"  log: {e.get('at')} {e.get('action')} by {e.get('by')} at "
                   f"{e.get('labels')} labels")  # fmt: skip
