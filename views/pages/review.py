"""Admin: review the labelled items, with every stored metric score beside each one.

Whatever annotators were shown, the admin sees the scores here: the place to
check labels against the metrics, spot a careless annotator or a suspicious metric."""

import pandas as pd
import streamlit as st

from annotation.campaign.visibility import metric_visibility, visibility_statement
from db.campaign.campaigns import stored_mode
from db.judging.review import labelled_outputs
from db.schema.vocabulary import CampaignMode
from views.common import chosen_campaign, engine, require_admin

LABELS = {1: "adequate", 0: "inadequate", None: ""}

require_admin()
st.title("Review labelled items")

chosen = chosen_campaign(key="review_campaign")
if chosen is None:
    st.stop()
_, cid = chosen
st.caption(
    "Every current human label with the texts the annotator saw and all stored metric scores "
    f"beside it (admins always see the scores). "
    f"{visibility_statement(metric_visibility(engine(), cid))}"
)

if stored_mode(engine(), cid) == CampaignMode.PREFERENCE:  # pairs, not labels
    from db.judging.log_export import preference_log

    battles = preference_log(engine(), cid)[::-1]
    if not battles:
        st.info("No preferences yet: they appear here as annotators work (newest first).")
        st.stop()
    st.caption(f"{len(battles):,} preferences (newest first): model_a was shown on the left.")
    columns = ("question_id", "model_a", "model_b", "winner", "strength", "reason", "judge",
               "output_a", "output_b", "source", "tstamp", "seconds")  # fmt: skip
    st.dataframe(pd.DataFrame([{c: b[c] for c in columns} for b in battles]), hide_index=True)
    st.stop()
rows = labelled_outputs(engine(), cid)
if not rows:
    st.info("No labels yet: they appear here as annotators work (newest first).")
    st.stop()
metric_columns = sorted({m for r in rows for m in r.scores})
if not metric_columns:
    st.info(
        "No metric scores yet: score the campaign with **Start scoring** on the Campaigns page."
    )

left, middle, right = st.columns(3)
systems = left.multiselect("Systems", sorted({r.system for r in rows}), key=f"rv-sys-{cid}")
annotators = middle.multiselect(
    "Annotators", sorted({r.annotator for r in rows}), key=f"rv-ann-{cid}"
)
label = right.selectbox("Label", ["all", "adequate", "inadequate"], key=f"rv-label-{cid}")
shown = [
    r
    for r in rows
    if (not systems or r.system in systems)
    and (not annotators or r.annotator in annotators)
    and (label == "all" or LABELS.get(r.label) == label)
]
table = pd.DataFrame(
    [
        {
            "item": r.item_id,
            "system": r.system,
            "label": LABELS.get(r.label, str(r.label)),
            **{m: r.scores.get(m) for m in metric_columns},
            **({"HTER": r.hter} if any(x.hter is not None for x in rows) else {}),
            "annotator": r.annotator,
            "output": r.output,
            "source": r.source,
            "reference": r.reference,
            "labelled at": r.created_at,
            "seconds": r.seconds,
        }
        for r in shown
    ]
)
st.caption(f"{len(shown):,} of {len(rows):,} labels (newest first).")
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    column_config={
        **{m: st.column_config.NumberColumn(m, format="%.3f") for m in metric_columns},
        "HTER": st.column_config.NumberColumn(format="%.3f"),
        "seconds": st.column_config.NumberColumn(format="%.1f"),
    },
)

st.subheader("One label")
if shown:
    index = st.selectbox(
        "Label",
        range(len(shown)),
        format_func=lambda k: f"{shown[k].item_id} · {shown[k].system} · {shown[k].annotator}",
        key=f"rv-one-{cid}",
    )
    r = shown[index]
    text_col, score_col = st.columns([3, 1])
    with text_col:
        for title, text in (("Source", r.source), ("Reference", r.reference), ("Output", r.output)):
            st.caption(title)
            st.text(text if text is not None else "(none)")
        if r.post_edit is not None:
            st.caption("Post-edit")
            st.text(r.post_edit)
    with score_col:
        st.metric("Label", LABELS.get(r.label, str(r.label)) or "—")
        for m in metric_columns:
            value = r.scores.get(m)
            st.metric(m, "—" if value is None else f"{value:.3f}")
