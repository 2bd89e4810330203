"""The Annotators page's "Span settings" form of an error-span campaign: its error categories
(the taxonomy), MQM severity weights and whether the ESA 0–100 overall score is asked.

Saved by annotation.judging.span_judgments.set_campaign_config, the function ``cli.py
span-settings``
calls: the same rule (refused once a label exists, or on an archived campaign) and the same
entry in the campaign's setting log. After the first label the form is shown disabled with
the reason."""

from __future__ import annotations

import streamlit as st

from annotation.campaign.visibility import label_count
from annotation.judging.span_judgments import SettingsLocked, campaign_config, set_campaign_config
from annotation.judging.spans import SpanConfig, SpanError, Weights
from views.common import allowed, engine, literal

WEIGHT_LABELS = {
    "minor": "Minor",
    "minor_punctuation": "Minor punctuation (fluency/punctuation)",
    "major": "Major (and critical)",
    "non_translation": "Non-translation",
}


def span_settings_form(campaign_id: int, read_only: bool) -> None:
    """Draw the form; save through the annotation layer when an account that may write
    submits it (``read_only``: a viewer, every control disabled)."""
    st.subheader("Span settings")
    config = campaign_config(engine(), campaign_id)
    n_labels = label_count(engine(), campaign_id)
    locked = n_labels > 0
    if locked:
        st.info(
            f"Locked: the campaign has {n_labels:,} labels, scored with these settings. "
            "Categories, weights and the ESA score can be set only before the first label "
            "(start a new campaign to change them)."
        )
    off = read_only or locked
    with st.form("span_settings"):
        cats = st.text_area(
            "Error categories, one per line (keys 1–9 pick the first nine)",
            "\n".join(config.categories),
            disabled=off,
        )
        cols = st.columns(len(WEIGHT_LABELS))
        current = config.to_meta()["weights"]
        weights = {
            k: col.number_input(
                label, min_value=0.0, value=float(current[k]), step=0.1, disabled=off
            )
            for col, (k, label) in zip(cols, WEIGHT_LABELS.items(), strict=True)
        }
        esa = st.checkbox(
            "Ask for the ESA overall score (a 0–100 slider with its anchors) with the spans",
            config.ask_esa,
            disabled=off,
        )
        threshold = st.number_input(
            "Error-free from ESA score (the error_free judgment: score ≥ this and no span)",
            min_value=0.0, max_value=100.0, value=float(config.error_free_threshold),
            step=1.0, disabled=off,
        )  # fmt: skip
        saved = st.form_submit_button("Save span settings", disabled=off)
    if saved and allowed(campaign_id):
        _save(campaign_id, cats, weights, esa, threshold)
    if st.session_state.pop("span_settings_saved", False):
        st.success("Span settings saved (and logged with the campaign's settings).")
    st.caption(
        "MQM score of a judgment = −(sum of its spans' weights); an output is adequate when "
        "it has no major or critical span. Same rule as `cli.py span-settings`."
    )


def _save(
    campaign_id: int, cats: str, weights: dict[str, float], esa: bool, threshold: float
) -> None:
    try:
        names = [c.strip() for c in cats.splitlines() if c.strip()]
        if not names:
            raise SpanError("give at least one error category")
        config = SpanConfig(
            categories=SpanConfig.from_meta({"categories": names}).categories,
            weights=Weights.from_mapping(weights),
            ask_esa=esa,
            error_free_threshold=SpanConfig.from_meta(
                {"error_free_threshold": threshold}
            ).error_free_threshold,
        )
        set_campaign_config(engine(), campaign_id, config)
    except (SpanError, SettingsLocked) as exc:
        st.error(f"Nothing was saved: {literal(exc)}.")
        return
    st.session_state.pop("span_configs", None)  # this session's annotate page cache
    st.session_state["span_settings_saved"] = True
    st.rerun()
