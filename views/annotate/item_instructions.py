"""The item's own instructions and image, drawn above it on every mode's screen."""

from __future__ import annotations

import streamlit as st

from annotation.judging import session
from views.common import engine


@st.cache_data(max_entries=64, show_spinner=False)
def _image(campaign_id: int, name: str) -> tuple[str, bytes] | None:
    """(media type, bytes) from the database (cached: an item's image is drawn on each
    rerun of its screen, and stored images never change)."""
    return session.item_image(engine(), campaign_id, name)


def instructions_panel(view: session.View) -> None:
    """The slot's instructions as markdown (never HTML: unsafe_allow_html stays off, and
    the import refused or stripped tags and images) and its image, served from the
    campaign's own stored bytes (st.image of bytes: the browser fetches nothing else), in
    a box above the item."""
    slot = view.slot
    if slot is None or not (slot.instructions or slot.image):
        return
    with st.container(border=True, key="tandem-item-instructions"):
        if slot.instructions:
            st.markdown("**Instructions for this item**")
            st.markdown(slot.instructions)
        if slot.image:
            found = _image(view.campaign.id, slot.image)
            if found is None:
                st.warning("This item's image is missing from the campaign.")
            elif found[0].startswith("video/"):  # the browser's own player, bytes served
                st.video(found[1], format=found[0])  # by this app's media endpoint
            else:
                st.image(found[1], width="content")
