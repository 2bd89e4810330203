"""What the annotate page shows around the item: the administrators' guidelines, and in a
paired campaign the output's place among its source's outputs and all of them side by
side."""

from __future__ import annotations

import streamlit as st

from annotation.campaign import guidelines as campaign_guidelines
from annotation.judging import session
from annotation.judging.diff import literal_html
from views.common import engine

SIBLING_CSS = "display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));gap:0.75rem"


def guidelines_panel(view: session.View) -> None:
    """The administrators' guidelines and examples, open until the first judgment. Their
    markdown is rendered without HTML; item texts stay literal everywhere else."""
    notes = campaign_guidelines.guidelines(engine(), view.campaign.id)
    if notes.empty:
        return
    first = view.progress.mine_done == 0
    with st.expander("Guidelines for this campaign", expanded=first, icon=":material/menu_book:"):
        if notes.text:
            st.markdown(notes.text)
        if notes.examples:
            st.markdown("**Examples**")
            st.markdown(notes.examples)


def position_text(slot: session.Slot) -> str | None:
    """ "k of m for this source" in a paired campaign (None: unpaired, one system, or an
    output judged apart from its group, which then shows as a source of its own)."""
    group = slot.group
    if group is None or group.size < 2 or group.alone:
        return None
    return f"{group.position} of {group.size} for this source"


def side_by_side(slot: session.Slot) -> None:
    """Every output of the shown source, literally, in the queue's anonymous order."""
    group = slot.group
    if group is None or group.size < 2 or group.alone:  # its siblings are not judged next
        return
    with st.expander("All outputs for this source (side by side)", icon=":material/view_column:"):
        cells = []
        for k, text in enumerate(group.outputs, start=1):
            title = f"Output {k}" + (" · the one you judge now" if k == group.position else "")
            weight = "700" if k == group.position else "600"
            cells.append(
                f'<div class="tandem-sibling-cell"><p style="font-weight:{weight};'
                f'margin:0 0 0.2rem">{title}</p>{literal_html(text, "tandem-sibling")}</div>'
            )
        st.html(f'<div class="tandem-siblings" style="{SIBLING_CSS}">{"".join(cells)}</div>')
