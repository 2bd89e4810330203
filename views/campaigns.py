"""Campaign list; exports and metric scoring of the selected campaign."""

import pandas as pd
import streamlit as st

from annotation.exports import MIME, export_campaign
from db.campaigns import list_campaigns
from metrics.base import MetricConfigError
from metrics.bertscore import BertScoreConfig
from metrics.registry import METRIC_NAMES
from metrics.scoring import score_campaign
from views.common import campaign_picker, engine, literal, require_admin

require_admin()
st.title("Campaigns")

summaries = list_campaigns(engine())
if not summaries:
    st.info("No campaigns yet. Import a campaign file on the **Import** page.")
    st.stop()

st.dataframe(
    pd.DataFrame(
        [
            {
                "campaign": c.name,
                "mode": c.mode,
                "items": c.n_items,
                "systems": c.n_systems,
                "outputs": c.n_outputs,
                "judgments": c.n_judgments,
                "created": c.created_at,
            }
            for c in summaries
        ]
    ),
    hide_index=True,
    width="stretch",
)

st.subheader("Export")
name = campaign_picker([c.name for c in summaries])
if name:
    st.caption("The same long format the importer reads; import → export → import round-trips.")
    cols = st.columns(4)
    for col, fmt in zip(cols, ["csv", "tsv", "jsonl", "parquet"], strict=True):
        col.download_button(
            f"Download {fmt.upper()}",
            data=lambda fmt=fmt: export_campaign(engine(), name, fmt),
            file_name=f"{name}.{fmt}",
            mime=MIME[fmt],
            key=f"export-{fmt}",
        )

st.subheader("Metric scores")
if name:
    st.caption(
        "Scores every output that has no score yet for the metric's signature (a re-run only "
        "scores what is new). BERTScore runs offline on the bundled all-MiniLM-L6-v2 model "
        "and takes about a minute per few thousand outputs on a CPU."
    )
    chosen = st.multiselect("Metrics", list(METRIC_NAMES), default=["bleu", "chrf", "ter"])
    with st.expander("BERTScore options"):
        idf = st.toggle("idf weighting from the campaign's references", value=False)
        rescale = st.toggle("rescale with a campaign baseline (random mismatched pairs)")
    if st.button("Score", type="primary", disabled=not chosen):
        bar = st.progress(0.0, text="Scoring…")
        try:
            report = score_campaign(
                engine(),
                name,
                chosen,
                progress=lambda done, total: bar.progress(
                    min(1.0, done / max(total, 1)), text=f"Scoring… {done:,} / {total:,}"
                ),
                bertscore=BertScoreConfig(idf=idf, rescale=rescale),
            )
        except MetricConfigError as exc:
            bar.empty()
            st.error(literal(exc))
        else:
            bar.progress(1.0, text="Done")
            st.success(report.summary())
