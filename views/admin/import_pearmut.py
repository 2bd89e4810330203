"""The Import page's path for a Pearmut campaign file (JSON): what maps where and what is
not imported, an optional annotation log, then an atomic import
(annotation.imports.pearmut)."""

from __future__ import annotations

import streamlit as st

from annotation.imports.pearmut import import_pearmut, preview_pearmut
from formats.problems import CampaignFileError
from views.admin.import_flow import import_new_campaign, new_campaign_name
from views.common import allowed_by_name, engine, literal, problem_list

MODES = {
    "ESA": "ESA (error spans + 0–100 score)",
    "cESA": "ESA on comparative screens",
    "DA": "DA (0–100 slider)",
    "MQM": "error spans (MQM)",
}


def is_pearmut(filename: str) -> bool:
    return filename.lower().endswith(".json")


def import_pearmut_form(filename: str, data: bytes) -> None:
    slider = None
    if b'"sliders"' in data:  # custom sliders: Tandem asks one, the first unless named
        slider = st.text_input("Slider to ask (its name in info.sliders; empty: the first)",
                               key="pearmut_slider").strip() or None  # fmt: skip
    try:
        preview = preview_pearmut(data, filename, slider)
    except CampaignFileError as exc:
        st.error(
            "This Pearmut campaign cannot be imported as it is:\n\n"
            + problem_list(exc.problems, exc.truncated)
        )
        return
    st.info(
        f"A Pearmut campaign (**{preview.protocol}**): it becomes a Tandem campaign "
        f"(mode: {MODES[preview.protocol]}) with {preview.items:,} items, {preview.outputs:,} "
        f"outputs of {len(preview.systems)} system(s) and {preview.tutorial_items:,} tutorial "
        "item(s); documents are judged in order."
    )
    if preview.not_imported:
        st.warning(
            "Not imported (Tandem cannot hold these yet):\n\n"
            + "\n".join(f"- {literal(n)}" for n in preview.not_imported)
        )
    log = st.file_uploader(
        "Pearmut annotation log (optional: its judgments are imported too)",
        type=["jsonl"],
        key="pearmut-log",
    )
    name, free = new_campaign_name(preview.campaign_id, "pearmut_name")
    if st.button(
        "Import", type="primary", key="pearmut_import", disabled=not free
    ) and allowed_by_name(name, new=True):
        import_new_campaign(
            name,
            lambda: import_pearmut(
                engine(),
                data,
                name,
                filename=filename,
                log=None if log is None else log.getvalue(),
                log_filename=None if log is None else log.name,
                slider=slider,
            ),
        )
