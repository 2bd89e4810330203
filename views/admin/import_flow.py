"""What every import form of the Import page shares: the uploader's key, the new campaign's
name field, and the atomic import's outcome (an error that changed nothing, or the summary)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from db.campaign.campaigns import campaign_exists
from formats.problems import CampaignFileError
from views.admin.long_work import finished
from views.common import engine, literal, own_new_campaign, problem_list

#: How many imports this session finished: part of the uploader's key, so a finished import
#: clears it and its form (which would otherwise stay, with a disabled Import button).
UPLOADS = "campaign-file-imports"


def upload_key() -> str:
    return f"campaign-file-{st.session_state.get(UPLOADS, 0)}"


def clear_upload() -> None:
    """Draw an empty uploader from the next run on."""
    st.session_state[UPLOADS] = st.session_state.get(UPLOADS, 0) + 1


def new_campaign_name(default: str, key: str) -> tuple[str, bool]:
    """The name field of a new campaign and whether the name is free (warned when taken)."""
    name = st.text_input("Campaign name", value=default, key=key)
    exists = bool(name) and campaign_exists(engine(), name)
    if exists:
        st.warning(f"A campaign named '{literal(name)}' exists: choose a new name.")
    return name, bool(name) and not exists


def import_new_campaign(name: str, run: Callable[[], Any]) -> None:
    """``run()`` the atomic import of campaign ``name``: its problems listed when it refused
    the file (nothing written), else the new campaign owned and its summary shown."""
    try:
        report = run()
    except CampaignFileError as exc:
        st.error("Nothing was imported:\n\n" + problem_list(exc.problems, exc.truncated))
        return
    own_new_campaign(name)
    clear_upload()
    finished("import", ("success", literal(report.summary()).replace("\n", "  \n")))
