"""The annotator's page: one output at a time, keyboard first, saved at once.

It draws a :class:`annotation.judging.session.View` and sends clicks to annotation.judging.session
(which decides
and records); it never sees system names or which items are attention checks. Text is shown
literally (escaped, ``dir="auto"``), never rendered as markdown or HTML.

Keys: ``a``/``j`` adequate, ``i``/``k`` inadequate, ``s`` skip, ``u`` undo. They never fire
while typing in the post-edit box (``Esc`` leaves it). ``Ctrl+Enter`` there saves in a
post-edit campaign; in a "both" campaign it only leaves the box ("Done editing"): a label is
recorded only when the annotator chooses one. An untouched box is stored as a post-edit only
with "No edit needed" ticked (annotation.judging.save.submit enforces both). Our own small
listener instead of streamlit-shortcuts 1.2.2, whose listener also fires inside text areas
(it would turn typing an "a" into a label).

"Adequate" is green and "Inadequate" red, with equal weight
(:data:`views.annotate.label_buttons.BUTTON_CSS`, by the buttons' keys, which the key listener
clicks). The progress line counts the annotator's own work and what is left for them; an
undo says what it took back; a paired campaign shows the output's place among its source's
outputs and offers them all side by side; the administrators' guidelines open above the
first item. A preference campaign shows two outputs of one source side by side instead
(views/annotate/preference.py: keys `1` / `2` / `0`).
"""

from __future__ import annotations

import time

import streamlit as st

from accounts.invites import active_annotator
from annotation.judging import save as judging
from annotation.judging import session, undo
from annotation.judging.diff import diff_html, literal_html
from db.campaign.lifecycle import archived_reason
from db.schema.vocabulary import CampaignMode
from views.annotate import task_complete
from views.annotate.compare import compare_page, instructions, is_on
from views.annotate.document_context import document_context_panel
from views.annotate.item_instructions import instructions_panel
from views.annotate.item_surroundings import guidelines_panel, position_text, side_by_side
from views.annotate.label_buttons import (
    button_colours,
    label_buttons,
    no_edit_key,
    post_edit_form,
    post_edit_key,
)
from views.annotate.pretask_form import CHECKED as PRETASK_CHECKED
from views.annotate.pretask_form import pretask_gate
from views.annotate.tutorial_gate import tutorial_gate
from views.common import engine, literal, scores_table
from views.keys import KEYS, POST_EDIT_KEYS, keyboard, keys_hint
from views.spans.extras import comment_field, comment_key

SLIDER_MODES = (CampaignMode.DA, CampaignMode.SQM)  # the keys s / u only: digits are the slider's


def _deny() -> None:
    st.session_state.clear()
    st.error(
        "This invite link is not valid any more: it was revoked or replaced by a new one. "
        "Ask the campaign's administrator for a new one."
    )
    st.stop()


if st.session_state.get("denied"):
    _deny()

if st.session_state.get("role") != "annotator":
    st.title("Annotate")
    st.info(
        "This page is for annotators. Create annotators and their invite links on the "
        "**Annotators** page; each annotator opens their own link to label."
    )
    st.stop()

ANNOTATOR = int(st.session_state["annotator_id"])
if archived_reason(engine(), int(st.session_state["campaign_id"])) is not None:
    st.title(literal(st.session_state.get("campaign_name", "Annotate")))
    st.info(
        "This campaign is archived: it takes no judgments now, and the ones you gave are kept. "
        "Ask the campaign's administrator if it should be restored."
    )
    st.stop()
# the pre-task form first, then the tutorial items and the comprehension check
pretask_gate(ANNOTATOR, st.session_state.get("campaign_name", "Annotate"))
tutorial_gate(ANNOTATOR, int(st.session_state["campaign_id"]),
              st.session_state.get("campaign_name", "Annotate"))  # fmt: skip


# ---------------------------------------------------------------- state and actions


def _guarded(action):  # type: ignore[no-untyped-def]
    """Run a queue call; a revoked invite ends the session instead of raising."""

    def run(*args):  # type: ignore[no-untyped-def]
        # A fragment's click does not pass app.py's gate: a re-issued link ends here.
        invite = st.session_state.get("invite")
        if invite is not None and active_annotator(engine(), ANNOTATOR, invite) is None:
            st.session_state.clear()
            st.session_state["denied"] = True
            return
        try:
            action(*args)
        except session.AccessDenied:
            st.session_state.clear()
            st.session_state["denied"] = True
        except session.FormPending:  # a form set since the page opened: ask it
            st.session_state.pop("view", None)
            st.session_state.pop(PRETASK_CHECKED, None)
        except session.TutorialPending:  # a tutorial set since the page opened: show it
            st.session_state.pop("view", None)
            st.session_state["tutorial_now"] = True
        except session.InvalidJudgment as refused:  # refused or Busy: nothing saved, say why
            view = st.session_state.get("view")
            slot = view.slot if view is not None else None
            st.session_state["hint"] = (None if slot is None else slot.assignment_id, str(refused))

    return run


def _set_view(view: session.View) -> None:
    st.session_state["view"] = view
    slot = view.slot
    shown = st.session_state.get("shown")
    if slot is not None and (shown is None or shown[0] != slot.assignment_id):
        st.session_state["shown"] = (slot.assignment_id, time.monotonic())


def _seconds() -> float | None:
    shown = st.session_state.get("shown")
    return None if shown is None else round(time.monotonic() - shown[1], 3)


@_guarded
def _label(value: int | None) -> None:
    view: session.View = st.session_state["view"]
    slot = view.slot
    if slot is None:
        return
    post_edit, no_edit = None, False
    if view.campaign.mode.asks_post_edit:
        post_edit = st.session_state.get(post_edit_key(slot), slot.text)
        no_edit = bool(st.session_state.get(no_edit_key(slot)))
    st.session_state.pop("hint", None)
    # a refused judgment (session.InvalidJudgment) saves nothing: _guarded shows why
    next_view = judging.submit(
        engine(),
        ANNOTATOR,
        slot.assignment_id,
        slot.claim_version,
        label=value,
        post_edit=post_edit,
        no_edit_needed=no_edit,
        seconds=_seconds(),
        comment=st.session_state.get(comment_key(slot)),
    )
    if post_edit is not None and (no_edit or not judging.untouched(slot.text, post_edit)):
        st.session_state["last_post_edit"] = (slot.text, post_edit)
    _set_view(next_view)


CHOOSE_LABEL = (
    "Your edit is kept but not saved yet: choose Adequate or Inadequate (keys `a` / `i`) "
    "to save it with your judgment."
)


def _done_editing() -> None:
    """Ctrl+Enter in a "both" campaign: leave the box, record nothing (no label chosen)."""
    slot = st.session_state["view"].slot
    if slot is not None:
        st.session_state["hint"] = (slot.assignment_id, CHOOSE_LABEL)


@_guarded
def _skip() -> None:
    slot = st.session_state["view"].slot
    if slot is None:
        return
    reason = st.session_state.get("skip_reason") or judging.SKIP_REASONS[0]
    _set_view(
        judging.skip(
            engine(), ANNOTATOR, slot.assignment_id, slot.claim_version, reason, _seconds()
        )
    )


@_guarded
def _start_next_task() -> None:
    _set_view(session.start_next_task(engine(), ANNOTATOR))


@_guarded
def _undo() -> None:
    st.session_state.pop("last_post_edit", None)
    _set_view(undo.undo(engine(), ANNOTATOR))


if "view" not in st.session_state:
    try:
        _set_view(session.next_view(engine(), ANNOTATOR))
    except session.AccessDenied:
        _deny()
    except session.FormPending:  # a form set after this session checked: ask it now
        st.session_state.pop(PRETASK_CHECKED, None)
        st.rerun()
    except session.TutorialPending as pending:  # failed twice, or set a moment ago
        st.warning(str(pending))
        st.stop()
    except session.InvalidJudgment as refused:  # the database stayed busy: say so, no traceback
        st.warning(str(refused))
        st.stop()


@st.fragment
def item_panel() -> None:
    if st.session_state.pop("tutorial_now", False):  # the tutorial comes first: whole page
        st.rerun(scope="app")
    if st.session_state.get("denied") or "view" not in st.session_state:
        _deny()
    view: session.View = st.session_state["view"]
    _progress(view)
    _notices(view)
    if view.campaign.mode.asks_slider:  # DA / SQM in document order: a finished document
        from views.annotate.document_score import document_step

        if document_step(view, ANNOTATOR, _guarded, _undo, keyboard):
            return

    slot = view.slot
    if slot is None and view.task is not None:  # a task campaign: the code, or why none
        task_complete.task_end(view.task, _start_next_task)
        keyboard(None, {})  # every draw ends with the listener's draw number
        return
    if view.campaign.mode.asks_preference:  # two outputs of one source: which is better
        from views.annotate.preference import preference_page

        preference_page(view, ANNOTATOR, _set_view, _seconds, _guarded, _skip, _undo, keyboard)
        return
    if is_on(view):  # several outputs of one source on one screen
        document_context_panel(view, outputs=False)
        instructions_panel(view)
        compare_page(view, ANNOTATOR, _set_view, _seconds, _guarded, keyboard)
        return
    if slot is None:
        st.success("Nothing left for you in this campaign. Thank you!")
        st.button("Undo last `u`", key="undo", on_click=_undo)
        keyboard(None, {"u": "undo"})
        return

    document_context_panel(view)
    instructions_panel(view)
    position = position_text(slot)
    if view.campaign.mode.asks_spans:  # error-span mode: views/spans/item.py draws it
        from views.spans.item import span_item

        if position:
            st.caption(f"The output below is output {position}.")
        span_item(view, ANNOTATOR, _set_view, _seconds, _skip, _undo)
        side_by_side(slot)
        return
    _item_texts(slot, position)

    mode = view.campaign.mode
    if mode.asks_slider:  # DA / SQM: views/annotate/slider.py draws the slider
        from views.annotate.slider import slider_item

        slider_item(view, ANNOTATOR, _set_view, _seconds, _guarded)
    elif mode.asks_post_edit:
        comment_field(view)
        post_edit_form(slot, mode, _label, _done_editing)
    else:
        comment_field(view)
        label_buttons(_label)

    c3, c4, c5 = st.columns([2, 1, 1])
    c3.selectbox(
        "Skip reason", judging.SKIP_REASONS, key="skip_reason", label_visibility="collapsed"
    )
    c4.button("Skip `s`", key="skip", on_click=_skip, width="stretch")
    c5.button("Undo `u`", key="undo", on_click=_undo, width="stretch")
    side_by_side(slot)
    keys = POST_EDIT_KEYS if mode in (CampaignMode.POST_EDIT, *SLIDER_MODES) else KEYS
    if view.campaign.likert is not None and mode == CampaignMode.DA:  # its points' keys
        from views.annotate.slider import likert_keys

        keys = likert_keys(view)
    keyboard(post_edit_key(slot) if mode.asks_post_edit else None, keys)


def _progress(view: session.View) -> None:
    """The annotator's own progress: the task's countdown, or a bar of their batch."""
    p = view.progress
    if view.task is not None:  # a campaign cut into tasks: the annotator's own task
        task_complete.countdown(view.task, p.mine_judged, p.mine_skipped)
    else:
        st.progress(  # the bar is the annotator's own batch: done / (done + left for them)
            p.mine_fraction,
            text=(
                f"You: {p.mine_judged:,} judged, {p.mine_skipped:,} skipped · "
                f"{p.mine_left_text} · Campaign: {p.queue_finished:,} of {p.queue_total:,} done"
            ),
        )


def _notices(view: session.View) -> None:
    """What the last action left to say: an undo, a notice, a hint, the last post-edit."""
    if view.undone is not None:
        st.info(literal(view.undone.message), icon=":material/undo:")
    if view.notice:
        st.warning(view.notice)
    hint = st.session_state.get("hint")
    slot_id = None if view.slot is None else view.slot.assignment_id
    if hint is not None and hint[0] == slot_id:
        st.warning(hint[1])
    last = st.session_state.get("last_post_edit")
    if last is not None:
        with st.expander("Your last post-edit (word diff)", expanded=False):
            st.html(diff_html(*last))


def _item_texts(slot: session.Slot, position: str | None) -> None:
    """Source, reference and output, literally, with the metric scores beside them."""
    main, side = st.columns([3, 1])
    with main:  # one element for the three texts: fewer deltas, faster next item
        parts = [("Source", slot.source, "tandem-source")]
        if slot.reference is not None:
            parts.append(("Reference", slot.reference, "tandem-reference"))
        title = f"Output {position}" if position else "Output"
        parts.append((title, slot.text, "tandem-output"))
        st.html(
            "".join(
                f'<p style="font-weight:600;margin:0.6rem 0 0.2rem">{title}</p>'
                + literal_html(text, css)
                for title, text, css in parts
            )
        )
    with side:
        scores_table(slot.scores)


st.title(literal(st.session_state.get("campaign_name", "Annotate")))
if st.session_state["view"].campaign.mode.asks_preference:  # its own instructions and keys
    from views.annotate.preference import INSTRUCTIONS as PREFERENCE_INSTRUCTIONS

    st.caption(f"Signed in as {literal(st.session_state.get('annotator_name', ''))}. "
               f"{PREFERENCE_INSTRUCTIONS}")  # fmt: skip
    guidelines_panel(st.session_state["view"])
    item_panel()
    st.stop()
if is_on(st.session_state["view"]):  # comparative screens: their own instructions and keys
    st.caption(f"Signed in as {literal(st.session_state.get('annotator_name', ''))}. "
               f"{instructions(st.session_state['view'])}")  # fmt: skip
    guidelines_panel(st.session_state["view"])
    item_panel()
    st.stop()
if st.session_state["view"].campaign.mode.asks_spans:  # its own instructions and keys
    from views.spans.item import instructions as span_instructions

    who = literal(st.session_state.get("annotator_name", ""))
    st.caption(f"Signed in as {who}. {span_instructions(st.session_state['view'])}")
    guidelines_panel(st.session_state["view"])
    item_panel()
    st.stop()
if st.session_state["view"].campaign.mode.asks_slider:  # DA / SQM: its anchors and keys
    from views.annotate.slider import instructions as slider_instructions

    page_hint = slider_instructions(st.session_state["view"])
else:
    page_hint = keys_hint(st.session_state["view"].campaign.mode)
st.caption(f"Signed in as {literal(st.session_state.get('annotator_name', ''))}. {page_hint}")
button_colours()
guidelines_panel(st.session_state["view"])
item_panel()
