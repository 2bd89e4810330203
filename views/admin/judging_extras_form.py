"""The Annotators page's judging extras: the optional comment box, a DA campaign's Likert
scale, and the pre-task form with each annotator's answers (download, correct, ask again)."""

from __future__ import annotations

import json

import streamlit as st

from annotation.campaign import pretask
from annotation.campaign.guidelines import comment_box, set_comment_box
from annotation.campaign.likert_scale import likert_scale, set_likert_scale
from db.schema.vocabulary import CampaignMode
from formats.forms.likert import parse_scale, scale_text
from formats.writers import to_csv
from views.common import allowed, engine, literal

FORM_EXAMPLE = json.dumps(
    {
        "intro": "A few questions before you start.",
        "fields": [
            {
                "name": "native_language",
                "label": "Your native language",
                "type": "text",
                "required": True,
            },
            {
                "name": "years",
                "label": "Years of translation experience",
                "type": "number",
                "min": 0,
                "max": 70,
            },
            {
                "name": "level",
                "label": "Your level in the target language",
                "type": "choice",
                "choices": ["B2", "C1", "C2 / native"],
            },
        ],
    },
    indent=1,
)


def comment_form(campaign_id: int, ro: bool) -> None:
    """The switch that offers annotators an optional free-text comment on their judgments;
    its help names the screens that have no box, so the switch promises only what is drawn."""
    on = comment_box(engine(), campaign_id)
    new = st.toggle(
        "Offer a comment box on every judgment (optional for annotators)",
        on,
        help="Drawn on every single-output screen and under each output of a side-by-side "
        "screen (binary, DA / SQM, cESA), saved with that output's judgment; the preference "
        "screen and a document's overall score have no comment box.",
        key=f"comment_box_{campaign_id}",
        disabled=ro,
    )
    if new != on and allowed(campaign_id):
        set_comment_box(engine(), campaign_id, new)
        st.rerun()


def likert_form(campaign_id: int, mode: str, ro: bool) -> None:
    """A DA campaign's Likert scale: ``N`` or ``N:label,label,…`` and optional keys."""
    if mode != CampaignMode.DA:
        return
    st.subheader("Likert scale")
    now = likert_scale(engine(), campaign_id)
    with st.form(f"likert_{campaign_id}"):
        text = st.text_input(
            "Scale: N points, or N:label,label,… (empty: the 0–100 slider)",
            "" if now is None else scale_text(now),
            key=f"likert_text_{campaign_id}",
        )
        keys = st.text_input(
            "Keys, one per point (empty: 1 2 … 9 0 -)",
            "" if now is None else "".join(now["keys"]),
            key=f"likert_keys_{campaign_id}",
        )
        if st.form_submit_button("Save scale", disabled=ro) and allowed(campaign_id):
            try:
                scale = parse_scale(text, keys) if text.strip() else None
                set_likert_scale(engine(), campaign_id, scale)
            except ValueError as exc:
                st.error(f"Nothing was saved: {literal(exc)}.")
            else:
                st.rerun()
    st.caption(
        "A point p of n is stored as 100·(p − 1)/(n − 1) and analysed as (p − 1)/(n − 1) "
        "on [0, 1], like a DA score ÷ 100. Fixed once the first judgment exists."
    )


def pretask_form_panel(campaign_id: int, name: str, ro: bool) -> None:
    """The form's definition (JSON) and the answers given so far."""
    st.subheader("Pre-task form")
    now = pretask.form(engine(), campaign_id)
    with st.form(f"pretask_def_{campaign_id}"):
        text = st.text_area(
            "Form (JSON; empty: none)",
            "" if now is None else json.dumps(now, indent=1, ensure_ascii=False),
            height=200,
            placeholder=FORM_EXAMPLE,
            key=f"pretask_def_text_{campaign_id}",
        )
        if st.form_submit_button("Save form", disabled=ro) and allowed(campaign_id):
            try:
                pretask.set_form(engine(), campaign_id, text)
            except ValueError as exc:
                st.error(f"Nothing was saved: {literal(exc)}.")
            else:
                st.rerun()
    st.caption(
        "Asked once of every annotator before their first task and its tutorial. Fields: "
        "text, number (min, max) or choice (choices); each required or not."
    )
    if now is None:
        return
    columns, records = pretask.answers_table(engine(), campaign_id)
    st.dataframe(records, hide_index=True, column_order=columns)
    st.download_button(
        "Download annotators CSV",
        to_csv(columns, records),
        file_name=f"{name}-annotators.csv",
        key=f"pretask_csv_{campaign_id}",
    )
    with st.expander("Correct an annotator's answers"):
        who = st.selectbox(
            "Annotator",
            [r["annotator"] for r in records],
            index=None,
            key=f"pretask_who_{campaign_id}",
        )
        answers = st.text_area(
            'Answers (JSON: {"field": value}; empty: ask the form again)',
            key=f"pretask_answers_{campaign_id}",
        )
        if st.button(
            "Save answers", disabled=ro or who is None, key=f"pretask_fix_{campaign_id}"
        ) and allowed(campaign_id):
            try:
                parsed = json.loads(answers) if answers.strip() else None
                if parsed is not None and not isinstance(parsed, dict):
                    raise ValueError('give an object {"field": value}')
                pretask.set_answers(engine(), campaign_id, str(who), parsed)
            except ValueError as exc:
                st.error(f"Nothing was saved: {literal(exc)}.")
            else:
                st.rerun()
