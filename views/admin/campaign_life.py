"""The Campaigns page's Manage section (rename, archive, delete with the exports offered
first) and its list of archived campaigns (restore, delete), and the life log."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation.results.campaign_life import FINAL_EXPORTS
from db.campaign import lifecycle
from db.campaign.campaigns import list_campaigns
from db.reads.campaign import campaign_id
from views.common import allowed, download, engine, literal, may_write, permitted

_NOTICE, _GENERATION = "life_notice", "life_picker_generation"


def before_picker() -> str:
    """Show the outcome of the last change once; the widget key for the campaign picker.

    The key changes after every change, so the picker is a new widget that starts at
    ``current_campaign`` (the browser keeps a widget's old choice, which may be a name that
    is gone, against any server-side reset)."""
    notice = st.session_state.pop(_NOTICE, None)
    if notice:
        st.success(notice)
    return f"campaign-{st.session_state.get(_GENERATION, 0)}"


def _done(notice: str, current: str | None = None) -> None:
    st.session_state[_NOTICE] = notice
    st.session_state[_GENERATION] = st.session_state.get(_GENERATION, 0) + 1
    if current is None:
        st.session_state.pop("current_campaign", None)
    else:
        st.session_state["current_campaign"] = current
    st.rerun()


def _campaign_id(name: str) -> int | None:
    return campaign_id(engine(), name)


def _run(action, name: str, *args):  # type: ignore[no-untyped-def]
    """A db.campaign.lifecycle change done from this page, if the signed-in account may change the
    campaign; a refusal is shown (nothing changed)."""
    if not allowed(_campaign_id(name)):
        return None, False
    try:
        return action(engine(), name, *args, via="ui"), True
    except lifecycle.CampaignLifeError as exc:
        st.error(literal(f"{str(exc)[:1].upper()}{str(exc)[1:]}."))
        return None, False


def manage(name: str) -> None:
    """Rename, archive or delete the chosen (active) campaign, behind a switch (the page's
    other sections stay where they were; a widget, unlike an expander, keeps its state
    through the reruns the forms cause)."""
    if not may_write(_campaign_id(name)):
        return  # a viewer (or an admin without this campaign) manages nothing
    if st.toggle("Manage: rename, archive or delete this campaign", key=f"life-on-{name}"):
        _manage(name)


def _manage(name: str) -> None:
    with st.container(border=True):
        st.markdown("**Rename**")
        new = st.text_input(
            "New name", value=name, max_chars=lifecycle.NAME_MAX, key=f"life-new-{name}"
        )
        if st.button("Rename", key=f"life-rename-{name}"):
            got, ok = _run(lifecycle.rename_campaign, name, new)
            if ok:
                _done(f"Renamed {literal(name)} to {literal(got)}.", current=got)
    with st.container(border=True):
        st.markdown("**Archive**")
        st.caption(
            "Hides the campaign from the lists and pickers and makes it read-only: no imports "
            "or appends, no queue builds, no scoring, and its invite links say it is archived "
            "instead of showing items. Restore it any time under *Archived campaigns*."
        )
        if st.button("Archive", key=f"life-archive-{name}"):
            _, ok = _run(lifecycle.archive_campaign, name)
            if ok:
                _done(f"Archived {literal(name)}: find it under *Archived campaigns*.")
    _delete_form(name, "active")


def _delete_form(name: str, where: str) -> None:
    with st.container(border=True):
        st.markdown("**Delete**")
        st.caption(
            "Removes the campaign and every row of it (items, outputs, judgments, annotators "
            "and their links, scores, queue, jobs, its calibration prior, setting log) in one "
            "transaction. It cannot be undone: keep its exports first."
        )
        cols = st.columns(len(FINAL_EXPORTS))
        for col, f in zip(cols, FINAL_EXPORTS, strict=True):
            download(col, f.label, lambda f=f: f.make(engine(), name), f.file_name(name),
                     f.mime, key=f"life-keep-{where}-{f.suffix}")  # fmt: skip
        typed = st.text_input(
            "Type the campaign's name to confirm", key=f"life-confirm-{where}-{name}"
        )
        if st.button(
            "Delete campaign", type="primary", disabled=typed != name, key=f"life-del-{where}"
        ):
            counts, ok = _run(lifecycle.delete_campaign, name, typed)
            if ok:
                _done(f"Deleted {literal(name)}: {sum(counts.values()):,} rows removed.")


def archived_section() -> None:
    """The archived campaigns: restore one, or delete it; and the life log."""
    archived = permitted(list_campaigns(engine(), archived=True))
    if archived:
        st.subheader("Archived campaigns")
        st.dataframe(
            pd.DataFrame(
                [
                    {"campaign": c.name, "outputs": c.n_outputs, "judgments": c.n_judgments,
                     "archived": c.archived_at}
                    for c in archived
                ]
            ),
            hide_index=True,
        )  # fmt: skip
        pick = st.selectbox("Archived campaign", [c.name for c in archived], key="life-archived")
        if not may_write(_campaign_id(pick)):
            st.caption("Read-only: restoring or deleting a campaign needs an admin.")
            return
        if st.button("Restore", key="life-restore"):
            _, ok = _run(lifecycle.restore_campaign, pick)
            if ok:
                _done(f"Restored {literal(pick)}.", current=pick)
        _delete_form(pick, "archived")
    events = lifecycle.campaign_events(engine())
    if events:
        with st.expander("Log of renames, archives, restores and deletions"):
            st.dataframe(
                pd.DataFrame(
                    [{"when": e.at, "action": e.action, "campaign": e.name, "via": e.via,
                      "detail": _detail(e.action, e.detail)} for e in reversed(events)]
                ),
                hide_index=True,
            )  # fmt: skip


def _detail(action: str, detail: dict) -> str:  # type: ignore[type-arg]
    if action == "rename":
        return f"was {detail.get('old_name')!r}"
    if action == "delete":
        return f"{sum(detail.get('rows', {}).values()):,} rows"
    return ""
