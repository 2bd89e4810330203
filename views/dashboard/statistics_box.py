"""The dashboard's read-only box of the campaign's statistics settings: the
level every verdict on the page is read at, and where admins change it."""

import streamlit as st

from annotation.campaign.statistics_settings import LEVEL_WARNING_SHORT, PANEL, read_statistics
from views.common import engine, literal


@st.cache_data(max_entries=32, show_spinner=False)
def _settings(db: str, cid: int, key: tuple[int, ...]):  # type: ignore[no-untyped-def]
    """Re-read only when the fingerprint changed (a logged setting change changes it)."""
    return read_statistics(engine(), cid)


def statistics_settings(cid: int, key: tuple[int, ...]):  # type: ignore[no-untyped-def]
    """The campaign's statistics settings (the exports carry them), cached per fingerprint."""
    return _settings(str(engine().url), cid, key)


def statistics_box(cid: int, key: tuple[int, ...]) -> float:
    """Draw the box; returns α, the level the page reads its verdicts at."""
    now = statistics_settings(cid, key)
    with st.container(border=True, key="statistics-box"):
        st.markdown("**Statistics settings**")
        st.caption("  \n".join(literal(line) for line in now.lines()))
        st.caption(f"Admins change them on the **{PANEL}**; every change is logged.")
        if now.level_changes:
            st.warning(LEVEL_WARNING_SHORT)
    return now.alpha
