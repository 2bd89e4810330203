"""The Import page's "AI error spans" tab (ESA^AI): a file of spans a quality-estimation
model marked (or an MQM TSV), imported into an error-span campaign all or nothing
(annotation.imports.ai_spans), shown pre-filled to its annotators."""

from __future__ import annotations

import streamlit as st

from annotation.imports.ai_spans import import_ai_spans
from db.campaign.campaigns import list_campaigns
from db.schema.vocabulary import CampaignMode
from formats.ai_spans_file import OPTIONAL_COLUMNS, REQUIRED_COLUMNS
from formats.problems import CampaignFileError, check_size
from views.common import allowed_by_name, engine, literal, permitted, problem_list


def ai_spans_tab() -> None:
    st.caption(
        "Error spans from GEMBA-MQM, xCOMET or an LLM judge, one row per span: "
        f"**{', '.join(REQUIRED_COLUMNS)}**; optional {', '.join(OPTIONAL_COLUMNS)}. Offsets "
        "count characters of the output as Unicode code points (Python string indices), "
        "end exclusive; severity minor, major or critical; a row with empty start, end and "
        "severity says the model found the output clean. An MQM TSV works too (its <v>…</v> "
        "marks). CSV, TSV or JSONL; nothing is written unless the whole file fits the campaign."
    )
    campaigns = [
        c for c in permitted(list_campaigns(engine())) if c.mode == CampaignMode.SPANS.value
    ]
    if not campaigns:
        st.info("No error-span (MQM/ESA) campaign yet: import one first.")
        return
    target = st.selectbox("Campaign", [c.name for c in campaigns], key="ai-spans-campaign")
    source = st.text_input("Source (the model or run)", key="ai-spans-source", max_chars=200)
    prefill = st.checkbox(
        "Show them pre-filled to annotators (ESA^AI)", value=True, key="ai-spans-prefill"
    )
    upload = st.file_uploader(
        "AI spans file", type=["csv", "tsv", "jsonl", "ndjson"], key="ai-spans-file"
    )
    clicked = st.button("Import AI spans", type="primary", disabled=upload is None)
    if not (clicked and upload is not None and allowed_by_name(target)):
        return
    if not source.strip():
        st.error("Name the source of the spans (the model or run) first.")
        return
    try:
        check_size(upload.size, upload.name)
        report = import_ai_spans(
            engine(),
            upload.getvalue(),
            target,
            source=source,
            filename=upload.name,
            prefill=prefill,
        )
    except CampaignFileError as exc:
        st.error("Nothing was imported:\n\n" + problem_list(exc.problems, exc.truncated))
    else:
        st.success(literal(report.summary()).replace("\n", "  \n"))
