"""The annotator's page: one output at a time, keyboard first, saved at once.

It draws a :class:`annotation.session.View` and sends clicks to annotation.session (which decides
and records); it never sees system names or which items are attention checks. Text is shown
literally (escaped, ``dir="auto"``), never rendered as markdown or HTML.

Keys: ``a``/``j`` adequate, ``i``/``k`` inadequate, ``s`` skip, ``u`` undo. They never fire
while typing in the post-edit box (``Esc`` leaves it). ``Ctrl+Enter`` there saves in a
post-edit campaign; in a "both" campaign it only leaves the box ("Done editing"): a label is
recorded only when the annotator chooses one. An untouched box is stored as a post-edit only
with "No edit needed" ticked (annotation.session.submit enforces both). Our own small
listener instead of streamlit-shortcuts 1.2.2, whose listener also fires inside text areas
(it would turn typing an "a" into a label).

"Adequate" is green and "Inadequate" red, with equal weight (:data:`BUTTON_CSS`, by the
buttons' keys, which the key listener clicks). The progress line counts the annotator's own
work and what is left for them; an undo says what it took back; a paired campaign shows the
output's place among its source's outputs and offers them all side by side; the
administrators' guidelines open above the first item.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import streamlit as st

from annotation import session
from annotation.auth import active_annotator
from annotation.context import ContextSegment, document_context
from annotation.diff import diff_html, literal_html
from db.lifecycle import archived_reason
from db.vocabulary import CampaignMode
from views.common import engine, literal, scores_table

KEYS = {"a": "adequate", "j": "adequate", "i": "inadequate", "k": "inadequate"}
KEYS |= {"s": "skip", "u": "undo"}
#: Post-edit mode has no label buttons: only these keys do anything there.
POST_EDIT_KEYS = {"s": "skip", "u": "undo"}


def keys_hint(mode: CampaignMode) -> str:
    """The page's instructions with only the keys that work in ``mode``."""
    if mode == CampaignMode.POST_EDIT:
        return ("Fix the output in the post-edit box. Keys: `Ctrl+Enter` saves · `Esc` "
                "leaves the box · then `s` skip · `u` undo.")  # fmt: skip
    return ("Is the output an adequate rendering of the source? Keys: `a` adequate · "
            "`i` inadequate · `s` skip · `u` undo.")  # fmt: skip


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


def _post_edit_key(slot: session.Slot) -> str:
    return f"post_edit_{slot.assignment_id}_{slot.claim_version}"


def _no_edit_key(slot: session.Slot) -> str:
    return f"no_edit_{slot.assignment_id}_{slot.claim_version}"


@_guarded
def _label(value: int | None) -> None:
    view: session.View = st.session_state["view"]
    slot = view.slot
    if slot is None:
        return
    post_edit, no_edit = None, False
    if view.campaign.mode.asks_post_edit:
        post_edit = st.session_state.get(_post_edit_key(slot), slot.text)
        no_edit = bool(st.session_state.get(_no_edit_key(slot)))
    st.session_state.pop("hint", None)
    try:
        next_view = session.submit(
            engine(),
            ANNOTATOR,
            slot.assignment_id,
            slot.claim_version,
            label=value,
            post_edit=post_edit,
            no_edit_needed=no_edit,
            seconds=_seconds(),
        )
    except session.InvalidJudgment as refused:  # nothing saved; say why, keep the item
        st.session_state["hint"] = (slot.assignment_id, str(refused))
        return
    if post_edit is not None and (no_edit or not session.untouched(slot.text, post_edit)):
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
    reason = st.session_state.get("skip_reason") or session.SKIP_REASONS[0]
    _set_view(
        session.skip(
            engine(), ANNOTATOR, slot.assignment_id, slot.claim_version, reason, _seconds()
        )
    )


@_guarded
def _undo() -> None:
    st.session_state.pop("last_post_edit", None)
    _set_view(session.undo(engine(), ANNOTATOR))


if "view" not in st.session_state:
    try:
        _set_view(session.next_view(engine(), ANNOTATOR))
    except session.AccessDenied:
        _deny()


# ---------------------------------------------------------------- keyboard


_KEYS_JS = Path(__file__).with_name("keys.js").read_text(encoding="utf-8")


def keyboard(focus_key: str | None, keys: dict[str, str] = KEYS) -> None:
    """Install the key listener (views/keys.js) once per browser tab; focus the post-edit
    box when given. ``keys``: the keys that work on this page (the listener's map is
    replaced at every draw, so a post-edit campaign's page does not answer `a` / `i`)."""
    script = _KEYS_JS.replace("__KEYS__", json.dumps(keys)).replace(
        "__FOCUS__", json.dumps(focus_key)
    )
    # A trusted constant script (key names and an id only), run in the page itself.
    st.html(f"<script>{script}</script>", unsafe_allow_javascript=True)


# ---------------------------------------------------------------- drawing


# The label buttons in colours that mean what they say, and with equal weight (neither is
# Streamlit's red "primary"): by their keys' classes (``st-key-<key>``), which views/keys.js
# clicks too. Icons (✓ / ✗) and the words carry the meaning for colour-blind annotators.
BUTTON_CSS = """
.st-key-adequate button:not(:disabled), .st-key-inadequate button:not(:disabled) {
  color: #fff; font-weight: 600;
}
.st-key-adequate button:not(:disabled) { background-color: #15803d; border-color: #15803d; }
.st-key-adequate button:not(:disabled):hover,
.st-key-adequate button:not(:disabled):focus-visible {
  background-color: #166534; border-color: #14532d; color: #fff;
}
.st-key-inadequate button:not(:disabled) { background-color: #b42318; border-color: #b42318; }
.st-key-inadequate button:not(:disabled):hover,
.st-key-inadequate button:not(:disabled):focus-visible {
  background-color: #912018; border-color: #7a271a; color: #fff;
}
.st-key-adequate button:not(:disabled):active,
.st-key-inadequate button:not(:disabled):active { color: #fff; filter: brightness(0.9); }
.st-key-adequate button code, .st-key-inadequate button code {
  color: inherit; background: rgba(255, 255, 255, 0.18);
}
"""

SIBLING_CSS = (
    "display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));gap:0.75rem"
)


def button_colours() -> None:
    """The label buttons' colours (a style element only: it takes no room on the page)."""
    st.html(f"<style>{BUTTON_CSS}</style>")


def guidelines_panel(view: session.View) -> None:
    """The administrators' guidelines and examples, open until the first judgment. Their
    markdown is rendered without HTML; item texts stay literal everywhere else."""
    notes = session.guidelines(engine(), view.campaign.id)
    if notes.empty:
        return
    first = view.progress.mine_done == 0
    with st.expander("Guidelines for this campaign", expanded=first, icon=":material/menu_book:"):
        if notes.text:
            st.markdown(notes.text)
        if notes.examples:
            st.markdown("**Examples**")
            st.markdown(notes.examples)


def position_text(slot: session.Slot) -> str | None:
    """ "k of m for this source" in a paired campaign (None: unpaired, or one system)."""
    group = slot.group
    if group is None or group.size < 2:
        return None
    return f"{group.position} of {group.size} for this source"


def side_by_side(slot: session.Slot) -> None:
    """Every output of the shown source, literally, in the queue's anonymous order."""
    group = slot.group
    if group is None or group.size < 2:
        return
    with st.expander("All outputs for this source (side by side)", icon=":material/view_column:"):
        cells = []
        for k, text in enumerate(group.outputs, start=1):
            title = f"Output {k}" + (" · the one you judge now" if k == group.position else "")
            weight = "700" if k == group.position else "600"
            cells.append(
                f'<div class="tandem-sibling-cell"><p style="font-weight:{weight};'
                f'margin:0 0 0.2rem">{title}</p>{literal_html(text, "tandem-sibling")}</div>'
            )
        st.html(f'<div class="tandem-siblings" style="{SIBLING_CSS}">{"".join(cells)}</div>')


# ---------------------------------------------------------------- document context


CONTEXT_CSS = "border-left:3px solid #98a2b3;padding:0.1rem 0 0.1rem 0.75rem;margin:0 0 0.6rem"
#: Context reads smaller and greyer than the output being judged.
CONTEXT_STYLE = (
    "<style>.tandem-context-source, .tandem-context-output {font-size:0.95rem !important;"
    "color:#344054}</style>"
)


def _segments_html(segments: tuple[ContextSegment, ...], first: int) -> str:
    """Earlier segments, literally: each one's source and the same system's output."""
    cells = []
    for n, seg in enumerate(segments, start=first):
        cells.append(
            f'<div class="tandem-context-segment" style="{CONTEXT_CSS}">'
            f'<p style="font-weight:600;margin:0 0 0.2rem;color:#475467">Segment {n} · source</p>'
            + literal_html(seg.source, "tandem-context-source")
            + '<p style="font-weight:600;margin:0.3rem 0 0.2rem;color:#475467">Output</p>'
            + literal_html(seg.output, "tandem-context-output")
            + "</div>"
        )
    return CONTEXT_STYLE + "".join(cells)


def document_context_panel(view: session.View) -> None:
    """The document's earlier segments above the output (annotation.context decides what;
    read once per shown slot, kept in the session for the fragment's reruns)."""
    slot = view.slot
    if slot is None:
        return
    cached = st.session_state.get("doc_context")
    if cached is None or cached[0] != slot.assignment_id:
        ctx = document_context(engine(), view.campaign.id, slot.output_id)
        st.session_state["doc_context"] = cached = (slot.assignment_id, ctx)
    ctx = cached[1]
    if ctx is None:
        return
    st.markdown("**Earlier in this document** (for context only: judge the output below)")
    if ctx.collapsed:
        # keyed by the slot: every new item starts collapsed (an unkeyed expander in the
        # same place would keep the previous item's open state)
        with st.expander(
            f"{len(ctx.collapsed)} earlier segment(s) of this document",
            key=f"doc_context_{slot.assignment_id}",
        ):
            st.html(_segments_html(ctx.collapsed, 1))
    st.html(_segments_html(ctx.visible, len(ctx.collapsed) + 1))
    st.divider()


@st.fragment
def item_panel() -> None:
    if st.session_state.get("denied") or "view" not in st.session_state:
        _deny()
    view: session.View = st.session_state["view"]
    p = view.progress
    st.progress(  # the bar is the annotator's own batch: done / (done + left for them)
        p.mine_fraction,
        text=(
            f"You: {p.mine_judged:,} judged, {p.mine_skipped:,} skipped · {p.mine_left_text} · "
            f"Campaign: {p.queue_finished:,} of {p.queue_total:,} done"
        ),
    )
    if view.undone is not None:
        st.info(literal(view.undone.message), icon=":material/undo:")
    if view.notice:
        st.warning(view.notice)
    hint = st.session_state.get("hint")
    if hint is not None and view.slot is not None and hint[0] == view.slot.assignment_id:
        st.warning(hint[1])
    last = st.session_state.get("last_post_edit")
    if last is not None:
        with st.expander("Your last post-edit (word diff)", expanded=False):
            st.html(diff_html(*last))

    slot = view.slot
    if slot is None:
        st.success("Nothing left for you in this campaign. Thank you!")
        st.button("Undo last `u`", key="undo", on_click=_undo)
        return

    document_context_panel(view)
    position = position_text(slot)
    if view.campaign.mode.asks_spans:  # error-span mode: views/annotate_spans.py draws it
        from views.annotate_spans import span_item

        if position:
            st.caption(f"The output below is output {position}.")
        span_item(view, ANNOTATOR, _set_view, _seconds, _skip, _undo)
        side_by_side(slot)
        return

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

    mode = view.campaign.mode
    if mode.asks_post_edit:
        with st.form(f"post_edit_form_{slot.assignment_id}_{slot.claim_version}", border=False):
            st.text_area(
                "Post-edit (fix the output; Ctrl+Enter saves, Esc leaves the box)"
                if mode == CampaignMode.POST_EDIT
                else "Post-edit (fix the output; Ctrl+Enter or Esc leaves the box, then "
                "`a` / `i` saves your edit with your judgment)",
                value=slot.text,
                key=_post_edit_key(slot),
                height=120,
            )
            st.checkbox(
                "No edit needed (the output is correct as it is; without this tick an "
                "unchanged box is not stored as a post-edit)",
                key=_no_edit_key(slot),
            )
            if mode == CampaignMode.POST_EDIT:
                st.form_submit_button(
                    "Save post-edit `Ctrl+Enter`",
                    key="save_post_edit",
                    type="primary",
                    on_click=_label,
                    args=(None,),
                )
            else:
                # The first submit button is the one Streamlit's own Ctrl+Enter fires: make
                # it one that records nothing, so no key can pick a label for the annotator.
                c0, c1, c2 = st.columns(3)
                c0.form_submit_button(
                    "Done editing `Ctrl+Enter`", key="done_editing", on_click=_done_editing
                )
                c1.form_submit_button(
                    "Adequate `a`",
                    key="adequate",
                    icon=":material/check:",
                    on_click=_label,
                    args=(1,),
                )
                c2.form_submit_button(
                    "Inadequate `i`",
                    key="inadequate",
                    icon=":material/close:",
                    on_click=_label,
                    args=(0,),
                )
    else:
        c1, c2 = st.columns(2)
        c1.button(
            "Adequate `a`",
            key="adequate",
            icon=":material/check:",
            on_click=_label,
            args=(1,),
            width="stretch",
        )
        c2.button(
            "Inadequate `i`",
            key="inadequate",
            icon=":material/close:",
            on_click=_label,
            args=(0,),
            width="stretch",
        )

    c3, c4, c5 = st.columns([2, 1, 1])
    c3.selectbox(
        "Skip reason", session.SKIP_REASONS, key="skip_reason", label_visibility="collapsed"
    )
    c4.button("Skip `s`", key="skip", on_click=_skip, width="stretch")
    c5.button("Undo `u`", key="undo", on_click=_undo, width="stretch")
    side_by_side(slot)
    keyboard(_post_edit_key(slot) if mode.asks_post_edit else None,
             POST_EDIT_KEYS if mode == CampaignMode.POST_EDIT else KEYS)  # fmt: skip


st.title(literal(st.session_state.get("campaign_name", "Annotate")))
if st.session_state["view"].campaign.mode.asks_spans:  # its own instructions and keys
    from views.annotate_spans import INSTRUCTIONS

    who = literal(st.session_state.get("annotator_name", ""))
    st.caption(f"Signed in as {who}. {INSTRUCTIONS}")
    guidelines_panel(st.session_state["view"])
    item_panel()
    st.stop()
st.caption(
    f"Signed in as {literal(st.session_state.get('annotator_name', ''))}. "
    + keys_hint(st.session_state["view"].campaign.mode)
)
button_colours()
guidelines_panel(st.session_state["view"])
item_panel()
