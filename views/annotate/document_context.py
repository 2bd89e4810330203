"""The document's earlier segments above the item (annotation.campaign.context decides what), and
the counter of documents judged in order."""

from __future__ import annotations

import html

import streamlit as st

from annotation.campaign.context import ContextSegment, document_context
from annotation.judging import session
from annotation.judging.diff import literal_html
from views.common import engine

CONTEXT_CSS = "border-left:3px solid #98a2b3;padding:0.1rem 0 0.1rem 0.75rem;margin:0 0 0.6rem"
#: Context reads smaller and greyer than the output being judged.
CONTEXT_STYLE = (
    "<style>.tandem-context-source, .tandem-context-output {font-size:0.95rem !important;"
    "color:#344054}</style>"
)


def _segments_html(segments: tuple[ContextSegment, ...], first: int, outputs: bool = True) -> str:
    """Earlier segments, literally: each one's source and (``outputs``) the same system's
    output."""
    cells = []
    for n, seg in enumerate(segments, start=first):
        out = (
            '<p style="font-weight:600;margin:0.3rem 0 0.2rem;color:#475467">Output</p>'
            + literal_html(seg.output, "tandem-context-output")
            if outputs
            else ""
        )
        cells.append(
            f'<div class="tandem-context-segment" style="{CONTEXT_CSS}">'
            f'<p style="font-weight:600;margin:0 0 0.2rem;color:#475467">Segment {n} · source</p>'
            + literal_html(seg.source, "tandem-context-source")
            + out
            + "</div>"
        )
    return CONTEXT_STYLE + "".join(cells)


def document_context_panel(view: session.View, outputs: bool = True) -> None:
    """The document's earlier segments above the output (annotation.campaign.context decides what;
    read once per shown slot, kept in the session for the fragment's reruns). A comparative
    screen passes ``outputs=False``: its outputs are of several systems, so the context is
    the earlier sources only (one system's earlier outputs would single that system out)."""
    slot = view.slot
    if slot is None:
        return
    cached = st.session_state.get("doc_context")
    if cached is None or cached[0] != slot.assignment_id:
        ctx = document_context(engine(), view.campaign.id, slot.output_id, slot.kind)
        st.session_state["doc_context"] = cached = (slot.assignment_id, ctx)
    ctx = cached[1]
    if ctx is None:
        return
    if ctx.position is not None:  # documents judged in order
        where = ctx.position
        st.html(  # the doc id is the file's: escaped, shown literally
            f'<p class="tandem-doc-counter" style="font-weight:600;margin:0">Document '
            f"{html.escape(where.doc_id)} — segment {where.segment} of {where.segments}</p>"
        )
    if ctx.size == 0:
        return
    below = "the output below" if outputs else "the outputs below"
    st.markdown(f"**Earlier in this document** (for context only: judge {below})")
    if ctx.collapsed:
        # keyed by the slot: every new item starts collapsed (an unkeyed expander in the
        # same place would keep the previous item's open state)
        with st.expander(
            f"{len(ctx.collapsed)} earlier segment(s) of this document",
            key=f"doc_context_{slot.assignment_id}",
        ):
            st.html(_segments_html(ctx.collapsed, 1, outputs))
    st.html(_segments_html(ctx.visible, len(ctx.collapsed) + 1, outputs))
    st.divider()
