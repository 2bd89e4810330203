"""Campaign list, with exports of the selected campaign."""

import pandas as pd
import streamlit as st

from annotation.exporter import export_campaign
from db.campaigns import list_campaigns
from pages.common import campaign_picker, engine, require_admin

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
    for col, fmt, mime in zip(
        cols,
        ["csv", "tsv", "jsonl", "parquet"],
        ["text/csv", "text/tab-separated-values", "application/jsonl", "application/octet-stream"],
        strict=True,
    ):
        col.download_button(
            f"Download {fmt.upper()}",
            data=lambda fmt=fmt: export_campaign(engine(), name, fmt),
            file_name=f"{name}.{fmt}",
            mime=mime,
            key=f"export-{fmt}",
        )
