"""Admin: a campaign's annotators (invite links, revocation, their work and attention-check
pass rate) and its assignment queue (settings, build/extend)."""

from urllib.parse import urlsplit

import pandas as pd
import streamlit as st

from annotation import queue
from annotation.auth import create_annotator, revoke_annotator
from db.campaigns import list_campaigns
from db.vocabulary import CampaignMode
from views.common import campaign_picker, engine, literal, require_admin

require_admin()
st.title("Annotators")

summaries = {c.name: c for c in list_campaigns(engine())}
name = campaign_picker(list(summaries), key="annotators_campaign")
if name is None:
    st.stop()
campaign_id = summaries[name].id

# ---------------------------------------------------------------- queue
st.subheader("Queue")
status = queue.queue_status(engine(), campaign_id)
c = st.columns(5)
c[0].metric("Slots", f"{status.total:,}")
c[1].metric("Open", f"{status.open:,}")
c[2].metric("Held now", f"{status.claimed:,}")
c[3].metric("Done", f"{status.done:,}")
c[4].metric("Skipped", f"{status.skipped:,}")
st.caption(
    f"{status.attention:,} of the slots are attention checks. Random order: seed "
    f"{status.seed if status.seed is not None else '(drawn at the first build)'}, "
    f"{status.builds} build(s)."
)

settings = queue.queue_settings(engine(), campaign_id)
with st.form("queue_settings"):
    left, right = st.columns(2)
    modes = list(CampaignMode)
    mode = left.selectbox("Mode", modes, index=modes.index(settings["mode"]))
    paired = left.checkbox("Paired design (all systems of an item together)", settings["paired"])
    show_metrics = left.checkbox("Show metric scores beside the item", settings["show_metrics"])
    show_reference = left.checkbox("Show the reference", settings["show_reference"])
    overlap = right.slider(
        "Overlap: share of items judged by a second annotator", 0.0, 1.0, settings["overlap"]
    )
    attention_rate = right.slider(
        "Attention checks: share of queue positions", 0.0, 0.5, settings["attention_rate"]
    )
    timeout = right.number_input(
        "Claim timeout (seconds)", min_value=30, value=int(settings["claim_timeout_s"]), step=60
    )
    if st.form_submit_button("Save settings"):
        queue.update_queue_settings(
            engine(),
            campaign_id,
            mode=mode,
            paired=paired,
            show_metrics=show_metrics,
            show_reference=show_reference,
            overlap=overlap,
            attention_rate=attention_rate,
            claim_timeout_s=int(timeout),
        )
        st.rerun()
st.caption(
    "Paired design, overlap and the attention rate shape the next build; outputs already "
    "queued (or judged in an imported file) are never queued again."
)

if st.button("Build / extend queue", type="primary", key="build_queue"):
    bar = st.progress(0.0, text="Drawing the random order…")
    report = queue.build_queue(
        engine(),
        campaign_id,
        progress=lambda done, total: bar.progress(
            done / max(total, 1), text=f"Queued {done:,} of {total:,} slots"
        ),
    )
    bar.progress(1.0, text="Done")
    if report.regular_slots:
        st.success(
            f"Queued {report.regular_slots:,} outputs of {report.items:,} items "
            f"({report.overlap_slots:,} overlap slots, {report.attention_slots:,} attention "
            f"checks) from position {report.first_position:,}."
        )
    else:
        st.info("Every output is queued already.")

# ---------------------------------------------------------------- annotators
st.subheader("Invite an annotator")
with st.form("new_annotator", clear_on_submit=True):
    new_name = st.text_input("Name")
    if st.form_submit_button("Create invite link"):
        try:
            invite = create_annotator(engine(), campaign_id, new_name)
        except ValueError as exc:  # an empty, over-long or taken name
            st.error(f"Could not create the annotator: {literal(exc)}")
        else:
            st.session_state["new_invite"] = (invite.name, invite.query)

shown = st.session_state.pop("new_invite", None)
if shown is not None:
    url = urlsplit(st.context.url or "")
    path = url.path.rstrip("/").removesuffix("/annotators")
    base = f"{url.scheme}://{url.netloc}{path}" if url.netloc else ""
    st.success(f"Invite link for {literal(shown[0])}. It is shown only now: copy it and send it.")
    st.code(f"{base}/{shown[1]}", language=None)

work = queue.annotator_overview(engine(), campaign_id)
if not work:
    st.info("No annotators yet.")
    st.stop()
st.dataframe(
    pd.DataFrame(
        [
            {
                "annotator": w.name,
                "status": "revoked" if w.revoked else w.role,
                "labels": w.n_labels,
                "skips": w.n_skips,
                "undos": w.n_undos,
                "median s/item": w.median_seconds,
                "attention checks": w.attention_answered,
                "attention pass rate": w.attention_pass_rate,
                "holding now": w.claimed_now,
            }
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

active = {w.name: w.annotator_id for w in work if not w.revoked and w.role == "annotator"}
if active:
    with st.form("revoke"):
        who = st.selectbox("Revoke the invite link of", list(active))
        if st.form_submit_button("Revoke"):
            revoke_annotator(engine(), active[who])
            st.rerun()
