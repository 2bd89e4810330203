"""The Annotators page's "Comparative mode" form: several outputs of one source judged on
one screen (annotation.judging.comparative, the function `cli.py comparative` calls: the same
rules and the same entry in the campaign's setting log)."""

from __future__ import annotations

import streamlit as st

from annotation.judging import comparative
from views.common import allowed, engine, literal


def comparative_form(campaign_id: int, read_only: bool) -> None:
    """Draw the form; save when an account that may write submits it."""
    current = comparative.comparative_setting(engine(), campaign_id)
    with st.form("comparative_settings"):
        left, right = st.columns([2, 1])
        on = left.toggle(
            "Comparative mode: all outputs of a source on one screen",
            value=current.on, key="comparative_on", help=comparative.HELP,
        )  # fmt: skip
        every = right.checkbox(
            "All outputs of the source", value=current.outputs is None, key="comparative_all"
        )
        k = right.number_input(
            "Otherwise, outputs per screen", comparative.MIN_OUTPUTS, comparative.MAX_OUTPUTS,
            current.outputs or 4, key="comparative_outputs",
        )  # fmt: skip
        if st.form_submit_button("Save comparative mode", disabled=read_only) and allowed(
            campaign_id
        ):
            try:
                comparative.set_comparative(
                    engine(), campaign_id, on, None if every or not on else int(k)
                )
            except ValueError as exc:  # unpaired, post-edit, labels exist, archived
                st.error(literal(str(exc)))
            else:
                st.rerun()
