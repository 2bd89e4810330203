"""Import a campaign file: preview, validation result, then an atomic import."""

import pandas as pd
import streamlit as st

from annotation.campaign_file import (
    OPTIONAL,
    REQUIRED,
    CampaignFileError,
    check_campaign_file,
    check_size,
)
from annotation.importer import import_campaign
from db.campaigns import campaign_exists
from db.vocabulary import CampaignMode
from views.common import engine, literal, require_admin

require_admin()
st.title("Import a campaign")
st.caption(
    "Long format, one row per (item, system): "
    f"**{', '.join(REQUIRED)}**; optional {', '.join(OPTIONAL)}; other columns are kept as "
    "metadata. CSV, TSV, JSONL or Parquet. Nothing is written unless the whole file is valid."
)

upload = st.file_uploader("Campaign file", type=["csv", "tsv", "jsonl", "ndjson", "parquet"])
if upload is None:
    st.stop()
try:
    check_size(upload.size, upload.name)  # before the bytes are copied into memory
except CampaignFileError as exc:
    st.error(str(exc))
    st.stop()
data = upload.getvalue()

header = check_campaign_file(data, upload.name).header
column_map: dict[str, str] = {}
with st.expander("Map columns", expanded=False):
    st.caption("Use a column of your file for a Tandem column (e.g. human_label ← my_label).")
    for target in (*REQUIRED, *OPTIONAL):
        if target in header:
            continue
        choice = st.selectbox(target, ["—", *header], key=f"map-{target}")
        if choice != "—":
            column_map[target] = choice

check = check_campaign_file(data, upload.name, column_map)
st.subheader("Preview")
if check.preview:
    st.dataframe(pd.DataFrame(check.preview), hide_index=True, width="stretch")
if check.ok:
    st.success(f"{check.n_rows:,} rows are valid.")
else:
    st.error(
        "The file cannot be imported as it is:\n\n"
        + "\n".join(f"- {literal(p)}" for p in check.problems)
        + ("\n- …more problems not shown." if check.truncated else "")
    )
    st.stop()

name = st.text_input("Campaign name", value=upload.name.rsplit(".", 1)[0])
exists = bool(name) and campaign_exists(engine(), name)
append = False
if exists:
    append = (
        st.radio(
            f"A campaign named '{name}' exists.",
            ["Append these rows to it", "Choose a new name"],
            index=1,
        )
        == "Append these rows to it"
    )
mode = st.selectbox("Annotation mode", list(CampaignMode), disabled=append)
target_lang = st.text_input("Target language code (for metric tokenizers)", value="")

if st.button("Import", type="primary", disabled=not name or (exists and not append)):
    bar = st.progress(0.0, text="Importing…")
    try:
        report = import_campaign(
            engine(),
            data,
            name,
            filename=upload.name,
            column_map=column_map,
            append=append,
            settings={"mode": mode, "target_lang": target_lang or None},
            progress=lambda done, total: bar.progress(done / total, text="Importing…"),
        )
    except CampaignFileError as exc:
        bar.empty()
        st.error("Nothing was imported:\n\n" + "\n".join(f"- {literal(p)}" for p in exc.problems))
    else:
        bar.progress(1.0, text="Done")
        st.success(literal(report.summary()))
        st.info(
            "Next: score the outputs on the **Campaigns** page, then build the annotation "
            "queue and invite annotators on the **Annotators** page."
        )
