"""The Annotators page's tutorial section: the campaign's tutorial and checks
(annotation.judging.tutorial), set from a file (CSV, JSONL, Pearmut's JSON with its
``validation`` blocks) or written here one item at a time, with what each expects (a label,
a score range, the errors by their words, an omission) and whether it gives feedback or is
a silent check; items removed one by one or all at once."""

import streamlit as st

from annotation.judging import tutorial
from annotation.results.exports import export_tutorial_answers
from db.schema.vocabulary import CampaignMode
from views.common import allowed, download, engine, literal

SPAN_HELP = (
    "One error a line: the wrong words exactly as in the output, then | and a severity "
    "(minor, major; none: any severity). `[missing]` for an omission (a mark in the source, "
    "or the output's [missing] marker). Empty: no error expected. Offsets within 2 characters "
    "of the words are accepted."
)


def _spans(text: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        words, _, severity = line.rpartition("|") if "|" in line else (line, "", "")
        words, severity = words.strip(), severity.strip().lower() or None
        if words.casefold() == "[missing]":
            out.append({"missing": True, "severity": severity})
        else:
            out.append({"text": words, "severity": severity})
    return out


def _save(campaign_id: int, items: list[tutorial.TutorialItem], need: int | None) -> None:
    try:
        tutorial.set_tutorial(engine(), campaign_id, items, need)
    except tutorial.TutorialError as refused:
        st.session_state["tutorial_form_error"] = str(refused)
    else:
        st.session_state["tutorial_form_done"] = (
            f"Tutorial saved: {len(items)} item(s)." if items else "Tutorial removed."
        )


def tutorial_form(campaign_id: int, name: str, mode: str, ro: bool) -> None:
    """The section: what is set, the file, the item form."""
    st.subheader("Tutorial and checks")
    screen = CampaignMode(mode)
    current = tutorial.tutorial(engine(), campaign_id)
    items = list(current.items) if current else []
    for key, show in (("tutorial_form_error", st.error), ("tutorial_form_done", st.success)):
        message = st.session_state.pop(key, None)
        if message:
            show(literal(message))
    st.caption(
        "Items every annotator answers before their first real item, on the task's own screen. "
        "Items with feedback show what was missed and their warning, and count towards the "
        "pass mark; silent checks are recorded only. Two attempts. Answers are kept apart "
        "from the judgments: no estimate counts them."
    )
    if current is not None:
        st.caption(literal(current.rule_text))
        rows = [
            {"#": k + 1, "output": it.output, "expects": it.expects,
             "kind": "silent check" if it.silent else "feedback"}
            for k, it in enumerate(items)
        ]  # fmt: skip
        st.dataframe(rows, hide_index=True)
        download(st, "Download every answer (CSV)",
                 lambda: export_tutorial_answers(engine(), name, "csv"),
                 f"{name}-tutorial-answers.csv", "text/csv", "tutorial_answers_csv")  # fmt: skip
        left, right = st.columns([1, 1])
        drop = left.selectbox("Item", range(1, len(items) + 1), key=f"tut_drop_{campaign_id}")
        remove_one = left.button("Remove this item", key="tutorial_remove_item", disabled=ro)
        if remove_one and allowed(campaign_id):
            _save(campaign_id, [it for k, it in enumerate(items) if k + 1 != drop], None)
            st.rerun()
        remove_all = right.button("Remove the tutorial", key="tutorial_remove", disabled=ro)
        if remove_all and allowed(campaign_id):
            _save(campaign_id, [], None)
            st.rerun()
    _file_form(campaign_id, ro)
    _item_form(campaign_id, screen, items, ro)


def _file_form(campaign_id: int, ro: bool) -> None:
    with st.form("tutorial_file"):
        upload = st.file_uploader(
            "Tutorial file (CSV, JSONL, or Pearmut's JSON with validation blocks)",
            type=["csv", "jsonl", "json"],
            key=f"tutorial_upload_{campaign_id}",
        )
        need = st.number_input("Right answers needed to pass (0: 80 % of the feedback items)",
                               min_value=0, max_value=tutorial.MAX_ITEMS, value=0)  # fmt: skip
        go = st.form_submit_button("Set the tutorial from the file", disabled=ro)
    if go and upload is not None and allowed(campaign_id):
        try:
            items = tutorial.parse_file(upload.getvalue(), upload.name)
        except tutorial.TutorialError as refused:
            st.error(f"Nothing was saved: {literal(refused)}")
            return
        _save(campaign_id, items, int(need) or None)
        st.rerun()


def _item_form(
    campaign_id: int, screen: CampaignMode, items: list[tutorial.TutorialItem], ro: bool
) -> None:
    with st.form("tutorial_item", clear_on_submit=True):
        st.markdown("**Write an item**")
        source = st.text_area("Source", height=68, key="tut_source")
        pair = screen.asks_preference  # an item of two outputs and the expected winner
        output = st.text_area("First output" if pair else "Output", height=68, key="tut_output")
        reference = st.text_input("Reference (optional)", key="tut_reference")
        instructions = st.text_input("Instructions shown with the item (optional)",
                                     key="tut_instructions")  # fmt: skip
        fields: dict[str, object] = {}
        if screen.asks_spans or screen.asks_slider:
            low, high = st.slider("Expected score range", 0, 100, (0, 100), key="tut_score")
            ask = st.checkbox("Check the score", value=True, key="tut_check_score")
            fields["expected_score"] = [low, high] if ask else None
        if screen.asks_spans:
            expected = st.text_area("Expected errors", height=80, help=SPAN_HELP, key="tut_spans",
                                    placeholder="walked | minor\n[missing] | major")  # fmt: skip
            check = st.checkbox("Check the errors (empty: none expected)", value=True,
                                key="tut_check_spans")  # fmt: skip
            fields["expected_spans"] = _spans(expected) if check else None
        elif pair:
            fields["output_b"] = st.text_area("Second output", height=68, key="tut_output_b")
            winner = st.radio("Expected", ["the first is better", "the second is better",
                                           "a tie"], horizontal=True, key="tut_winner")  # fmt: skip
            fields["expected_winner"] = {"the first is better": "1",
                                         "the second is better": "2"}.get(winner, "0")  # fmt: skip
            fields["tie_allowed"] = st.checkbox("A tie is also right", key="tut_tie_ok")
        elif not screen.asks_slider:
            fields["expected_label"] = st.radio("Expected label", ["adequate", "inadequate"],
                                                horizontal=True, key="tut_label")  # fmt: skip
        explanation = st.text_input("Explanation shown after the answer", key="tut_explanation")
        warning = st.text_input("Warning shown when the answer is wrong (optional)",
                                key="tut_warning")  # fmt: skip
        silent = st.checkbox("Silent check: record only, no feedback, not in the pass mark",
                             key="tut_silent")  # fmt: skip
        go = st.form_submit_button("Add the item", disabled=ro)
    if go and allowed(campaign_id):
        try:
            new = tutorial.written_item(
                source=source, output=output, reference=reference, instructions=instructions,
                explanation=explanation, warning=warning, silent=silent, **fields,
            )  # fmt: skip
        except tutorial.TutorialError as refused:
            st.error(f"Nothing was saved: {literal(refused)}")
            return
        _save(campaign_id, [*items, new], None)
        st.rerun()
