"""The Import page's path for WMT's MQM TSV (one row per error): preview, then an atomic
import as an error-span campaign (annotation.imports.mqm)."""

from __future__ import annotations

import streamlit as st

from annotation.imports.mqm import import_mqm_tsv, summarize_mqm_tsv
from formats.mqm.tsv import COLUMNS
from formats.problems import CampaignFileError
from views.admin.import_flow import import_new_campaign, new_campaign_name
from views.common import allowed_by_name, engine, literal, problem_list


def is_mqm_tsv(filename: str, data: bytes) -> bool:
    """A .tsv whose header names WMT's MQM columns (checked before the campaign format)."""
    if not filename.lower().endswith(".tsv"):
        return False
    header = data[:4096].decode("utf-8-sig", errors="replace").split("\n", 1)[0]
    return set(COLUMNS) <= {h.strip() for h in header.split("\t")}


def import_mqm_form(filename: str, data: bytes) -> None:
    st.info(
        "This is WMT's MQM layout (one row per error, spans marked <v>…</v>): it becomes an "
        "error-span campaign with one judgment per system, segment and rater; the binary label "
        "and the MQM score are derived from the spans."
    )
    strict = st.checkbox(
        "Refuse malformed marks",
        key="mqm_strict",
        help="A row whose <v> mark is malformed (e.g. never closed) is kept by default as an "
        "error of its severity without a position, and listed here. Tick to refuse the file "
        "instead.",
    )
    try:
        parsed = summarize_mqm_tsv(data, filename, strict=strict)  # bounded memory
    except CampaignFileError as exc:
        st.error(
            "The file cannot be imported as it is:\n\n" + problem_list(exc.problems, exc.truncated)
        )
        return
    st.success(
        f"{parsed.judgments:,} judgments with {parsed.spans:,} error spans by "
        f"{parsed.raters} raters; categories: "
        + literal(", ".join(parsed.categories) or "none")
        + (
            f"; {parsed.neutral:,} Neutral errors (weight 0) are not kept."
            if parsed.neutral
            else "."
        )
    )
    if parsed.repaired:
        st.warning(
            f"{len(parsed.repaired):,} row(s) with a malformed mark are kept as errors "
            "without a position:\n\n" + problem_list(parsed.repaired)
        )
    name, free = new_campaign_name(filename.rsplit(".", 1)[0], "mqm_name")
    target_lang = st.text_input("Target language code (for metric tokenizers)", key="mqm_lang")
    if st.button("Import", type="primary", key="mqm_import", disabled=not free) and allowed_by_name(
        name, new=True
    ):
        import_new_campaign(
            name,
            lambda: import_mqm_tsv(
                engine(),
                data,
                name,
                filename=filename,
                target_lang=target_lang or None,
                strict=strict,
            ),
        )
