"""Document context for the annotator's page: the setting and what the page shows.

A campaign whose items carry a ``doc_id`` can show, above the output being judged, the
document's earlier segments: each one's source and the SAME system's output, in document
order (the order of the items in the imported file, see :mod:`db.campaign.context`). The last
``window`` segments are shown; the earlier ones sit in a collapsed expander. System names
are never part of it.

The context is only shown: which output is judged next is still drawn at random from the
whole queue, one segment at a time, so the segment stays the randomly drawn unit and every
estimator stays valid as it is (no clustering by document is needed for this mode). When
documents are judged in order (annotation.campaign.document_order) the context is forced on, and the
page also says where the segment sits in its document.

The setting lives in ``campaigns.meta[KEY] = {"on": bool, "window": int}`` and every change
is appended to the campaign's setting log with the number of labels so far, like every
setting (:func:`db.queue.settings.log_setting_changes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.campaign.meta_settings import switch_setting
from db import Engine
from db.campaign.campaigns import campaign_meta
from db.campaign.context import (
    ContextSegment,
    DocumentPosition,
    document_position,
    earlier_segments,
    has_documents,
)
from db.engine import read_scope
from db.schema.vocabulary import SlotKind, documents_in_order

KEY = "document_context"  # campaigns.meta[KEY]; the setting log's key
DEFAULT_WINDOW = 3
MAX_WINDOW = 50
HELP = (
    "Show annotators the document's earlier segments (source and the same system's output) "
    "above the one they judge: the last `window` open, the rest collapsed. Needs a doc_id "
    "column in the campaign file. Only shown: items are still drawn one segment at a time at "
    "random, so the estimates are unchanged."
)


@dataclass(frozen=True)
class ContextSetting:
    on: bool = False
    window: int = DEFAULT_WINDOW


@dataclass(frozen=True)
class DocumentContext:
    """What the page draws above the current output (document order, oldest first)."""

    visible: tuple[ContextSegment, ...]  # the last ``window`` earlier segments
    collapsed: tuple[ContextSegment, ...]  # the ones before those
    #: Documents judged in order: where the output sits ("Document d — segment i of n")
    position: DocumentPosition | None = None

    @property
    def size(self) -> int:
        return len(self.visible) + len(self.collapsed)


def setting_of(meta: dict[str, Any] | None) -> ContextSetting:
    raw = (meta or {}).get(KEY) or {}
    window = raw.get("window", DEFAULT_WINDOW)
    return ContextSetting(bool(raw.get("on")), int(window) if window else DEFAULT_WINDOW)


def context_setting(engine: Engine, campaign_id: int) -> ContextSetting:
    with read_scope(engine) as s:
        return setting_of(campaign_meta(s, campaign_id))


def set_document_context(
    engine: Engine, campaign_id: int, on: bool, window: int = DEFAULT_WINDOW
) -> bool:
    """Switch document context on or off with its window (logged with the number of labels
    so far); returns whether anything changed. ValueError: a window outside 1..MAX_WINDOW,
    or switching on a campaign whose items have no doc_id."""
    if isinstance(window, bool) or not 1 <= int(window) <= MAX_WINDOW:
        raise ValueError(f"the window must be a whole number of segments from 1 to {MAX_WINDOW}")
    new = ContextSetting(bool(on), int(window))
    return switch_setting(engine, campaign_id, KEY, new, setting_of, _logged, _check_allowed)


def _check_allowed(s: Any, camp: Any, meta: dict[str, Any], new: ContextSetting) -> None:
    if not new.on and documents_in_order(meta):
        raise ValueError(
            "documents are judged in order, which shows the earlier segments always: "
            "switch document order off first (before the first label)"
        )
    if new.on and not has_documents(s, camp.id):
        raise ValueError(
            "no item of this campaign has a doc_id: import a campaign file with a doc_id "
            "column to judge segments in document context"
        )


def _logged(setting: ContextSetting) -> dict[str, Any]:
    return {"on": setting.on, "window": setting.window}


def document_context(
    engine: Engine, campaign_id: int, output_id: int, kind: SlotKind = SlotKind.REGULAR
) -> DocumentContext | None:
    """The context to show above ``output_id`` (None: the setting is off, the output is the
    first of its document or has no document, or the slot is an attention check). Two small
    reads: the campaign's meta by primary key, then :func:`db.campaign.context.earlier_segments`
    (one
    statement). A read-only transaction: it never waits behind an annotator's save on SQLite.

    An attention check shows no context: its ``output_id`` is the real output it degrades,
    drawn at random from the whole pool, and it sits between document blocks, not in one.
    Its document's earlier segments would be another document than the one the annotator
    judges (or will judge later, in order: a preview out of the block), and the counter would
    claim a place in a document the annotator is not continuing."""
    if kind == SlotKind.ATTENTION:
        return None
    with read_scope(engine) as s:
        meta = campaign_meta(s, campaign_id)
        setting, in_order = setting_of(meta), documents_in_order(meta)
        if not (setting.on or in_order):  # document order forces the context on
            return None
        segments = earlier_segments(s, output_id)
        position = document_position(s, output_id) if in_order else None
    if not segments and position is None:
        return None
    cut = max(len(segments) - setting.window, 0)
    return DocumentContext(tuple(segments[cut:]), tuple(segments[:cut]), position)
