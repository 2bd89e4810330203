"""The document-order setting: switch it, and say whether (and why not) it can be switched.

When it is on, the queue draws whole documents (annotation.queue.draws.draw_blocks) and an
annotator who starts one keeps it (db.queue.document_blocks.claim_block); the page shows the
document's
earlier segments (annotation.campaign.context, forced on). The key and its reader live in
`db.schema.vocabulary` (``DOCUMENT_ORDER``, ``documents_in_order``), where db.reads.campaign reads
them too
to give the estimators each label's document. The randomly drawn unit is then the document,
so every estimator reads documents as clusters (docs/statistics-notes.md §9).

Rules, like the span settings' (annotation.judging.span_judgments.set_campaign_config): it is set
before the first label only, in either direction, since it decides the sampling unit of
every label; a campaign without doc_id has no documents to draw; active sampling draws
single items with their own probabilities and racing drops systems per item, so neither
combines with it (each is refused while the other is on). A change is logged like every
setting, and a queue already built is re-drawn in the new unit in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.campaign import context
from annotation.queue import racing
from annotation.queue.build import rebuild_in_order
from db import Engine
from db.campaign.campaigns import existing_systems
from db.campaign.context import document_count, has_documents
from db.engine import read_scope
from db.queue import claim as dbq
from db.queue import settings as dbset
from db.schema.vocabulary import DOCUMENT_ORDER as KEY
from db.schema.vocabulary import CampaignMode, Sampling, documents_in_order
from estimators.documents.clustered import MIN_DOCUMENTS

HELP = (
    "Judge documents in order, as in Appraise's document-level assessment: the queue draws "
    "whole documents (one system's, or every system's in the paired design) in random "
    "order, an annotator who starts one keeps it and judges its segments in order with the "
    "earlier ones shown above. The document is then the sampling unit, and the estimates "
    "treat documents as clusters. Set before the first label only."
)


class DocumentOrderRefused(ValueError):
    """The document-order setting cannot change now (the message says why)."""


@dataclass(frozen=True)
class DocumentOrderStatus:
    on: bool
    #: Why the switch cannot be flipped now (None: it can).
    locked: str | None
    #: Documents of the campaign (distinct doc_id).
    documents: int = 0
    #: Said before switching on: too few documents for any verdict (None: enough).
    too_few: str | None = None
    #: What the overlap setting does in document order (None: no overlap).
    overlap_note: str | None = None


def too_few_documents(documents: int) -> str | None:
    """Why document order cannot give a verdict on this many documents (None: it can): the
    clustered estimators need :data:`estimators.documents.clustered.MIN_DOCUMENTS` complete ones."""
    if documents >= MIN_DOCUMENTS:
        return None
    return (
        f"this campaign has only {documents:,} document(s), and a pairwise verdict in "
        f"document order needs at least {MIN_DOCUMENTS} complete documents (they are the "
        "sampling unit): judged in order it would never give a verdict. Show the document "
        "context instead: the earlier segments above each output, with segments drawn one "
        "by one (a verdict after about as many labels as without context)"
    )


def too_few_warning(status: DocumentOrderStatus) -> str | None:
    """The too-few-documents warning worded for the setting's state, the one the Annotators
    page and `cli.py document-order` both show (None: enough documents). Off, it is said
    before switching on; on, it says it is on and how to undo it while that is still allowed."""
    if status.too_few is None:
        return None
    if not status.on:
        return f"Before you switch it on: {status.too_few}."
    undo = (
        "switch document order off (before the first label) for that"
        if status.locked is None
        else f"it can no longer be switched off: {status.locked}"
    )
    return f"Document order is on, but {status.too_few}; {undo}."


def _one_copy(blocks: int) -> int:
    """The smallest whole percentage whose share of ``blocks`` rounds to one copy (Python's
    round, as the build's: half to even, so 10 % of 5 blocks is still 0)."""
    return next(p for p in range(1, 101) if round(p / 100 * blocks) >= 1)


def overlap_note(overlap: float, blocks: int) -> str | None:
    """What the overlap share does when whole documents are drawn: it copies whole blocks,
    ``round(overlap × blocks)`` of them (annotation.queue.build)."""
    if overlap <= 0:
        return None
    copied = round(min(overlap, 1.0) * blocks)
    text = (
        f"In document order the overlap copies whole documents: {overlap:.0%} of "
        f"{blocks:,} document block(s) = {copied:,} judged twice"
    )
    if copied == 0:
        return text + (
            " — no second judgment at all, so no agreement is measured: document order "
            f"wins; raise the overlap to at least {_one_copy(blocks)} % for one copy, "
            "or judge segments with document context"
        )
    return text + "."


def _refusal(s: Any, campaign_id: int, camp: Any, on: bool) -> str | None:
    labels = dbset.current_label_count(s, campaign_id)
    if labels:
        return (
            f"the campaign has {labels:,} labels already, drawn with the current sampling "
            "unit; set document order before the first label (or start a new campaign)"
        )
    if not on:
        return None
    if CampaignMode(camp.mode).asks_preference:
        return (
            "a preference campaign's queue draws pairs of outputs of single sources: it is "
            "not judged in document order"
        )
    if not has_documents(s, campaign_id):
        return (
            "no item of this campaign has a doc_id: import a campaign file with a doc_id "
            "column to judge documents in order"
        )
    if camp.sampling == Sampling.ACTIVE:
        return (
            "active sampling draws single items with their own probabilities: switch "
            "sampling to uniform first to judge whole documents in order"
        )
    if racing.is_on(camp.meta):
        return (
            "racing drops systems item by item: switch racing off first to judge whole "
            "documents in order"
        )
    return None


def set_documents_in_order(engine: Engine, campaign_id: int, on: bool) -> bool:
    """Switch document order on or off; returns whether anything changed. Switching it on
    switches the document context on too (both logged). A built queue is re-drawn.
    :class:`DocumentOrderRefused` (nothing changed) when :func:`_refusal` says no."""
    with dbq.queue_transaction(engine) as s:
        camp = dbset.campaign_for_update(s, campaign_id)
        meta = dict(camp.meta or {})
        if documents_in_order(meta) == bool(on):
            return False
        refused = _refusal(s, campaign_id, camp, bool(on))
        if refused is not None:
            raise DocumentOrderRefused(refused)
        changes: dict[str, tuple[Any, Any]] = {KEY: ({"on": not on}, {"on": bool(on)})}
        shown = context.setting_of(meta)
        if on and not shown.on:
            new = {"on": True, "window": shown.window}
            changes[context.KEY] = ({"on": False, "window": shown.window}, new)
            meta[context.KEY] = new
        dbset.log_setting_changes(s, campaign_id, changes)
        meta[KEY] = {"on": bool(on)}
        camp.meta = meta
        s.flush()
        rebuild_in_order(s, campaign_id)
        return True


def document_order_status(engine: Engine, campaign_id: int) -> DocumentOrderStatus:
    """The setting and, when it cannot be flipped now, why (the Annotators page)."""
    with read_scope(engine) as s:
        stored = dbset.campaign_settings(s, campaign_id)
        camp = _CampaignLike(stored["sampling"], dict(stored["meta"] or {}), stored["mode"])
        on = documents_in_order(camp.meta)
        docs = document_count(s, campaign_id)
        systems = 1 if stored["paired"] else max(len(existing_systems(s, campaign_id)), 1)
        return DocumentOrderStatus(
            on,
            _refusal(s, campaign_id, camp, not on),
            documents=docs,
            too_few=too_few_documents(docs) if docs else None,
            overlap_note=overlap_note(float(stored["overlap"] or 0), docs * systems)
            if docs
            else None,
        )


@dataclass(frozen=True)
class _CampaignLike:
    sampling: str | None
    meta: dict[str, Any]
    mode: str = CampaignMode.BINARY.value
