"""`cli.py` commands: Who judges what next: sampling, racing, document context, document order,
comparative screens."""

from __future__ import annotations

from typing import Annotated

import typer

from commands import base
from commands.base import (
    CampaignName,
    app,
    campaign_id_of,
    changed_note,
    fail,
    on_off,
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
    from annotation.queue.admin import setting_changes, update_queue_settings

    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    values: dict = {"sampling": "active" if active else "uniform"}
    if tau is not None:
        values["active_tau"] = tau
    try:
        update_queue_settings(engine, cid, **values)
    except ValueError as exc:
        fail(f"{campaign}: {exc}")
    changes = [c for c in setting_changes(engine, cid) if c.key in values]
    after = changes[-1].labels_before if changes else 0
    note = f" (changed after {after:,} labels; the dashboard shows it)" if after else ""
    shown_tau = f", τ = {tau:g}" if tau is not None else ""
    typer.echo(f"{campaign}: sampling {values['sampling']}{shown_tau}{note}")


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
    from annotation.queue import racing

    base.switch_setting(campaign, "racing", switch, racing.set_racing, racing.KEY)


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
    from annotation.campaign import context

    on = on_off(switch, "document-context")
    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    try:
        changed = context.set_document_context(engine, cid, on, window)
    except ValueError as exc:
        fail(f"{campaign}: {exc}")
    if not changed:
        typer.echo(f"{campaign}: document context already {switch} (window {window})")
        return
    note = changed_note(engine, cid, context.KEY)
    typer.echo(f"{campaign}: document context {switch}, window {window}{note}")


@app.command("document-order")
def document_order_switch(
    campaign: CampaignName,
    switch: Annotated[
        str,
        typer.Argument(help="on: whole documents are drawn and judged in order; off: segments."),
    ],
) -> None:
    """Judge documents in order, or segments one at a time (logged with the number of labels
    so far; before the first label only). On: the queue draws whole documents (one system's,
    or every system's in the paired design) in random order, an annotator keeps a document
    they started and sees its earlier segments (document context is switched on too). Needs
    a doc_id column; not with active sampling or racing. A built queue is re-drawn. On with
    fewer documents than a verdict needs: the Annotators page's warning."""
    from annotation.campaign import document_order
    from db.schema.vocabulary import DOCUMENT_ORDER as KEY

    base.switch_setting(
        campaign, "document order", switch, document_order.set_documents_in_order, KEY
    )
    engine = base.open_engine()
    status = document_order.document_order_status(engine, campaign_id_of(engine, campaign))
    warning = document_order.too_few_warning(status) if status.on else None
    if warning is not None:
        typer.secho(f"Warning: {warning}", fg=typer.colors.YELLOW)


@app.command("comparative")
def comparative_switch(
    campaign: CampaignName,
    switch: Annotated[
        str,
        typer.Argument(help="on: all outputs of a source on one screen, shuffled; off."),
    ],
    outputs: Annotated[
        int | None,
        typer.Option(help="Outputs per screen (2-20); default: all outputs of the source."),
    ] = None,
) -> None:
    """Switch comparative mode on or off (logged; only before the first label). On: the
    annotator's page shows the outputs of one source together (OUTPUTS at a time), in an
    order shuffled per annotator, without system names; one submit saves them all with
    their places on the screen. Needs the paired design and a binary or error-span campaign
    (error spans: each output its own spans and ESA score, cESA)."""
    from annotation.judging import comparative

    on = on_off(switch, "comparative")
    engine = base.open_engine()
    cid = campaign_id_of(engine, campaign)
    try:
        changed = comparative.set_comparative(engine, cid, on, outputs if on else None)
    except ValueError as exc:
        fail(f"{campaign}: {exc}")
    each = f", {outputs} outputs per screen" if on and outputs else ""
    if not changed:
        typer.echo(f"{campaign}: comparative mode already {switch}{each}")
        return
    typer.echo(f"{campaign}: comparative mode {switch}{each}")
