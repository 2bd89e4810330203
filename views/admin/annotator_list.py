"""The Annotators page's annotators: the invite form and the new link, the table of each
annotator's work and link, and re-issuing or revoking a link."""

from urllib.parse import urlsplit

import pandas as pd
import streamlit as st

from accounts.invites import create_annotator, invite_events, reissue_invite, revoke_annotator
from annotation.judging import tutorial
from annotation.queue import admin as queue_admin
from db.engine import SQLITE_ANNOTATOR_LIMIT
from views.common import allowed, current_account, engine, literal


def invite_form(campaign_id: int, ro: bool) -> None:
    """Create an annotator; the invite link is shown once, after the rerun."""
    st.subheader("Invite an annotator")
    with st.form("new_annotator", clear_on_submit=True):
        new_name = st.text_input("Name")
        if st.form_submit_button("Create invite link", disabled=ro) and allowed(campaign_id):
            try:
                invite = create_annotator(engine(), campaign_id, new_name, actor=current_account())
            except ValueError as exc:  # an empty, over-long or taken name
                st.error(f"Could not create the annotator: {literal(exc)}.")
            else:
                st.session_state["new_invite"] = (invite.name, invite.query, False)

    shown = st.session_state.pop("new_invite", None)
    if shown is not None:
        url = urlsplit(st.context.url or "")
        path = url.path.rstrip("/").removesuffix("/annotators")
        base = f"{url.scheme}://{url.netloc}{path}" if url.netloc else ""
        st.success(
            f"Invite link for {literal(shown[0])}. It is shown only now: copy it and send it"
            + (" (the previous link no longer works)." if shown[2] else ".")
        )
        st.code(f"{base}/{shown[1]}", language=None)


def annotator_table(campaign_id: int, ro: bool) -> None:
    """Every annotator's work and link, then the re-issue and revoke forms."""
    work = queue_admin.annotator_overview(engine(), campaign_id)
    events = invite_events(engine(), campaign_id)
    tutorial_results = tutorial.results(engine(), campaign_id)
    has_tutorial = tutorial.tutorial(engine(), campaign_id) is not None
    if not work:
        st.info("No annotators yet.")
        st.stop()
    holding = sum(1 for w in work if not w.revoked and w.claimed_now)
    if holding > SQLITE_ANNOTATOR_LIMIT and engine().dialect.name == "sqlite":
        st.caption(
            f"{holding} annotators hold an item now. On SQLite, saves were measured to stay "
            f"under 0.3 s with up to {SQLITE_ANNOTATOR_LIMIT} annotators at once; for more, "
            "move this server to PostgreSQL (`DATABASE_URL`, see the README's Performance)."
        )
    st.dataframe(
        pd.DataFrame(
            [
                _with_tutorial(_work_row(w, events), tutorial_results.get(w.annotator_id))
                if has_tutorial
                else _work_row(w, events)
                for w in work
            ]
        ),
        hide_index=True,
        width="stretch",
        column_config={
            "attention pass rate": st.column_config.NumberColumn(format="percent"),
            "median s/item": st.column_config.NumberColumn(format="%.1f"),
        },
    )
    _reissue_and_revoke(work, campaign_id, ro)


def _with_tutorial(row: dict, result: str | None) -> dict:  # type: ignore[type-arg]
    """The row with the tutorial's result (silent checks apart) after the status: in sight
    without scrolling the table."""
    out = {}
    for key, value in row.items():
        out[key] = value
        if key == "status":
            out["tutorial"] = result or "not started"
    return out


def _work_row(w, events: dict) -> dict:  # type: ignore[no-untyped-def]
    return {
        "annotator": w.name,
        "status": "revoked" if w.revoked else w.role,
        "labels": w.n_labels,
        "skips": w.n_skips,
        "undos": w.n_undos,
        "median s/item": w.median_seconds,
        "attention checks": w.attention_answered,
        "attention pass rate": w.attention_pass_rate,
        "holding now": w.claimed_now,
        "link issued": link_issued(events, w.annotator_id),
        "re-issued": reissues(events, w.annotator_id),
    }


def link_issued(events: dict, annotator_id: int) -> str:
    issued = [at for event, at in events.get(annotator_id, []) if event != "revoked"]
    return f"{issued[-1]:%Y-%m-%d %H:%M} UTC" if issued else ""


def reissues(events: dict, annotator_id: int) -> int:
    return sum(event == "reissued" for event, _ in events.get(annotator_id, []))


def _reissue_and_revoke(work, campaign_id: int, ro: bool) -> None:  # type: ignore[no-untyped-def]
    active = {w.name: w.annotator_id for w in work if not w.revoked and w.role == "annotator"}
    if active:
        reissue_col, revoke_col = st.columns(2)
        with reissue_col.form("reissue"):
            who = st.selectbox("Re-issue a lost invite link of", list(active))
            st.caption("A new link; the old one stops working at once. Labels stay theirs.")
            if st.form_submit_button("Re-issue link", disabled=ro) and allowed(campaign_id):
                invite = reissue_invite(engine(), active[who], actor=current_account())
                st.session_state["new_invite"] = (invite.name, invite.query, True)
                st.rerun()
        with revoke_col.form("revoke"):
            who = st.selectbox("Revoke the invite link of", list(active))
            st.caption("The link stops working; items they hold go back to the queue.")
            if st.form_submit_button("Revoke", disabled=ro) and allowed(campaign_id):
                revoke_annotator(engine(), active[who], actor=current_account())
                st.rerun()
