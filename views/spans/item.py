"""The annotate page's error-span mode (MQM / ESA): mark what is wrong, then save.

views/pages/annotate.py hands the item to :func:`span_item`. The texts are drawn by a small custom
component (views/spans/span_widget/index.html: plain text via ``textContent``, so HTML and
markdown in items stay literal) that reports selections, clicks on spans and keys; every
decision is made here, and the judgment is saved by annotation.judging.save.submit, which
derives the binary label and the MQM score. No well-kept Streamlit component did this:
text-highlighter, streamlit-annotation-tools, st-span-annotation and ner-span-annotator
(last released 2022–2024) select spans but have no severity, no keyboard, no omission marks
in the source and count offsets in UTF-16 units.

Flow (keyboard first): select the wrong words with the mouse (the selection snaps to whole
words; a click in the source marks "missing here"), then a severity key and a category key
in either order: ``q`` minor, ``w`` major, ``e`` critical; ``1``–``9`` the categories. Click
a marked span to select it: the same keys change it, ``Del`` deletes it, ``Esc`` clears.
``Enter`` saves the judgment and shows the next item; ``n`` saves "no errors";
``s`` skips, ``u`` undoes the last save.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st
import streamlit.components.v1 as components
from streamlit.errors import StreamlitAPIException

from annotation.judging import session
from annotation.judging.spans import SpanConfig
from views.common import literal, scores_table
from views.spans import ai as span_ai
from views.spans import extras
from views.spans.actions import (
    SpanActions,
    item_work,
    no_edit_key,
    post_edit_key,
    span_config,
    widget_span,
)
from views.spans.events import (
    ACTION_KEYS,
    SEEN_KEY,
    SEVERITY_KEYS,
    WIDGET_KEY,
    apply_widget_events,
    nonce,
    page_keys,
    severity_keys,
)
from views.spans.held import in_browser, mount

_WIDGET = components.declare_component(
    "tandem_span_widget", path=str(Path(__file__).with_name("span_widget"))
)
INSTRUCTIONS = (
    "Mark what is wrong in the output: select the words (a click in the source marks "
    "something missing there), then a severity — `q` minor, `w` major, `e` critical — and a "
    "category (`1`–`9`). Click a marked span to change it or delete it (`Del`). `Enter` saves "
    "and shows the next item · `n` no errors · `s` skip · `u` undo."
)


def instructions(view: session.View) -> str:
    """The page's instructions: ESA (the overall score asked) has no critical severity,
    and a campaign of one category (ESA's) no category to choose."""
    return span_wording(INSTRUCTIONS, span_config(view.campaign.id))


def span_wording(text: str, config: SpanConfig) -> str:
    """Instructions written for MQM (three severities, categories on keys 1–9) as the
    campaign asks: ESA has no critical severity, and one category (ESA's) is no choice, so
    a span is marked by its severity alone."""
    if config.ask_esa:
        text = text.replace(", `e` critical", "")
    if len(config.categories) == 1:
        text = text.replace(" — and a category (`1`–`9`)", "")
    return text


def _describe(span: dict[str, Any], slot: session.Slot) -> str:
    if span["side"] == "source" and span["start"] == span["end"]:
        where = f"missing in the source at character {span['start']}"
    else:
        text = slot.text if span["side"] == "target" else slot.source
        snippet = text[span["start"] : span["end"]]
        snippet = snippet if len(snippet) <= 60 else snippet[:57] + "…"
        where = ("source (omitted): " if span["side"] == "source" else "") + f"“{snippet}”"
    return literal(where)


def redraw() -> None:
    """Rerun the annotate fragment (the whole page when this run was not a fragment's)."""
    try:
        st.rerun(scope="fragment")
    except StreamlitAPIException:
        st.rerun()


def span_item(
    view: session.View,
    annotator: int,
    on_saved: Callable[[session.View], None],
    seconds: Callable[[], float | None],
    skip: Callable[[], None],
    undo: Callable[[], None],
) -> None:
    """Draw the held item of an error-span campaign with its controls."""
    config = span_config(view.campaign.id)
    actions = SpanActions(annotator, on_saved, seconds)
    skip = actions.skip_with(skip)
    before = (st.session_state["view"], st.session_state.get("hint"))
    apply_widget_events(actions, config, {"skip": skip, "undo": undo})
    if (st.session_state["view"], st.session_state.get("hint")) != before:
        redraw()  # a key in the widget saved, skipped, undid or left a hint: draw afresh
    slot = view.slot
    assert slot is not None  # views/pages/annotate.py draws the end of the queue
    work = item_work(slot)
    held = in_browser()  # the page holds the item's work until the save (views/spans/held.py)
    main, side = st.columns([3, 1])
    with main:
        _widget(slot, work, config, actions, held)
    with side:
        scores_table(slot.scores)
    if held:  # the buttons, the span list and the ESA score are the page's own
        if work.get("ai") and not work.get("prefill"):
            st.caption(NO_AI_SPANS)
        mount(slot, work, config, actions)
        if view.campaign.mode.asks_post_edit:
            _post_edit_box(slot)
        extras.comment_field(view)  # a server widget: a comment costs a run only when typed
        c1, c2, _ = st.columns([1, 1, 6])
        c1.button("Skip `s`", key="skip", on_click=skip, width="stretch")
        c2.button("Undo `u`", key="undo", on_click=undo, width="stretch")
        page_keys(config, ai=bool(work.get("ai")), held=nonce(slot))
        return
    pending = work["pending"]
    if pending is not None:
        what = "a severity" if len(config.categories) == 1 else "a severity and a category"
        st.info(f"Open selection: {_describe(pending, slot)}: choose {what}.")
    _severity_and_category_buttons(config, actions)
    if work.get("ai"):
        _ai_buttons(work, actions)
    span_list(work, slot, config, actions)
    if view.campaign.mode.asks_post_edit:
        _post_edit_box(slot)
    if config.ask_esa:
        extras.esa_slider(slot)
    extras.comment_field(view)
    _save_buttons(actions, skip, undo)
    page_keys(config, ai=bool(work.get("ai")))


def _widget(
    slot: session.Slot,
    work: dict[str, Any],
    config: SpanConfig,
    actions: SpanActions,
    held: bool = False,
) -> None:
    """The texts with the marked spans (views/spans/span_widget), reporting selections and keys."""
    cats = " · ".join(f"`{n + 1}` {c}" for n, c in enumerate(config.categories[:9]))
    cats = "" if len(config.categories) == 1 else f" and {cats.replace('`', '')}"
    ai = (
        "Violet outlines: the AI's spans (dashed until checked): a accepts · j next span · "
        "select over a selected span to move it. "
        if work.get("ai") and work.get("prefill")
        else ""
    )
    draw_widget(
        slot,
        work,
        actions,
        hint=(
            f"{ai}Select wrong words (or click in the source where something is missing), "
            f"then {severity_hint(config)}{cats}. "
            "Enter saves · n no errors · Del deletes the selected span."
        ),
        held=held,
        keys=(*severity_keys(config), *map(str, range(1, 10)), *ACTION_KEYS),
    )


def severity_hint(config: SpanConfig) -> str:
    """``q minor · w major`` (ESA), ``· e critical`` too (MQM)."""
    return " · ".join(f"{k} {s.value}" for k, s in severity_keys(config).items())


def draw_widget(
    slot: session.Slot,
    work: dict[str, Any],
    actions: SpanActions,
    hint: str,
    key: str = WIDGET_KEY,
    seen_key: str = SEEN_KEY,
    source: bool = True,
    keys: tuple[str, ...] = (*SEVERITY_KEYS, *map(str, range(1, 10)), *ACTION_KEYS),
    held: bool = False,
) -> None:
    """The span widget for one output (``source`` False: the source is drawn elsewhere, as
    on a comparative screen, and no omission can be marked in it)."""
    _WIDGET(
        source=slot.source if source else None,
        reference=slot.reference if source else None,
        target=slot.text,
        spans=[widget_span(s) for s in work["spans"]],
        pending=work["pending"],
        selected=work["selected"],
        nonce=nonce(slot),
        seen=st.session_state.get(seen_key),
        draft_key=actions.draft_key(slot),
        draft_mode=extras.draft_mode(work),
        keep_empty=bool(work.get("ai")),
        forget=extras.forgotten(),
        keys=list(keys),
        hint=hint,
        local=held,
        key=key,
        default=None,
    )


def _severity_and_category_buttons(config: SpanConfig, actions: SpanActions) -> None:
    """A button per severity and per category (the keys click them too); one category
    (ESA's) is no choice: no button."""
    keys = severity_keys(config)
    sev_cols = st.columns(len(keys))
    for col, (key, severity) in zip(sev_cols, keys.items(), strict=True):
        col.button(
            f"{severity.value.capitalize()} `{key}`",
            key=f"span_sev_{severity.value}",
            on_click=actions.set_field,
            args=("severity", severity.value),
            width="stretch",
        )
    if len(config.categories) == 1:
        return
    cat_cols = st.columns(min(len(config.categories), 6))
    for n, category in enumerate(config.categories):
        label = f"{literal(category)} `{n + 1}`" if n < 9 else literal(category)
        cat_cols[n % len(cat_cols)].button(
            label,
            key=f"span_cat_{n}",
            on_click=actions.set_field,
            args=("category", category),
            width="stretch",
        )


#: ESA^AI, an output without AI spans (the model's "clean" row, or none at all).
NO_AI_SPANS = (
    "The AI marked no errors in this output. Read it as usual: mark the errors you find, "
    "or save it with “No errors” (`n`)."
)


def _ai_buttons(work: dict[str, Any], actions: SpanActions) -> None:
    """ESA^AI: accept (the selected AI span, or all unchecked ones) and go to the next span;
    an output the AI found clean (no AI span) says so instead: no span to accept or check."""
    if not work.get("prefill"):
        st.caption(NO_AI_SPANS)
        return
    unchecked = sum(1 for sp in work["spans"] if sp.get("ai_state") == "unchecked")
    c1, c2, c3 = st.columns([2, 2, 4], vertical_alignment="center")
    c1.button("Accept AI spans `a`", key="span_accept_ai", on_click=actions.accept_ai)
    c2.button("Next span `j`", key="span_next", on_click=actions.next_span)
    c3.caption(
        f"{unchecked} AI span(s) not checked yet (dashed violet). Unchecked ones are saved "
        "as they are."
        if unchecked
        else "Every AI span checked."
    )


def _post_edit_box(slot: session.Slot) -> None:
    """The optional post-edit of a campaign that asks for spans and a post-edit."""
    st.text_area(
        "Post-edit (optional: fix the output; Esc leaves the box, then `Enter` saves the "
        "spans with it)",
        value=slot.text,
        key=post_edit_key(slot),
        height=100,
    )
    st.checkbox(
        "No edit needed (store the output as its own post-edit; an unchanged box is "
        "otherwise stored as no post-edit)",
        key=no_edit_key(slot),
    )


def _save_buttons(
    actions: SpanActions,
    skip: Callable[[], None] | None,
    undo: Callable[[], None] | None,
    save_label: str = "Save and next `Enter`",
) -> None:
    """Save, no errors, clear, and skip and undo where the screen has them (a tutorial's
    item has neither: it is checked, not saved)."""
    queue = skip is not None and undo is not None
    cols = st.columns([2, 2, 2, 1, 1] if queue else [2, 2, 2])
    cols[0].button(save_label, key="span_save", type="primary", on_click=actions.save,
                   width="stretch")  # fmt: skip
    cols[1].button(
        "No errors `n`", key="span_no_errors", on_click=actions.save, args=(True,), width="stretch"
    )
    cols[2].button("Clear selection `Esc`", key="span_clear", on_click=actions.clear,
                   width="stretch")  # fmt: skip
    if queue:
        cols[3].button("Skip `s`", key="skip", on_click=skip, width="stretch")
        cols[4].button("Undo `u`", key="undo", on_click=undo, width="stretch")


def span_list(
    work: dict[str, Any],
    slot: session.Slot,
    config: SpanConfig,
    actions: SpanActions,
    delete_key: str | None = "span_delete",
) -> None:
    """The marked spans, each with its severity, category and a delete button; then
    "Delete selected" (under ``delete_key``; None: the page has its own). The severities
    are the campaign's (ESA: no critical); one category (ESA's) is no choice: not shown."""
    if not work["spans"]:
        st.caption("No errors marked yet.")
        return
    severities = [s.value for s in severity_keys(config).values()]
    one = len(config.categories) == 1
    for n, span in enumerate(work["spans"]):
        tag = f"{slot.assignment_id}_{slot.claim_version}_{span['id']}"
        c0, c1, c2, c3 = st.columns([4, 2, 2, 1], vertical_alignment="center")
        marker = "▶ " if work["selected"] == n else ""
        badge = span_ai.ai_label(span)
        badge = f" :violet-badge[{badge}]" if badge else ""
        c0.markdown(f"{marker}{n + 1}. {_describe(span, slot)}{badge}")
        sevs = severities if span["severity"] in severities else [*severities, span["severity"]]
        c1.selectbox(
            "Severity",
            sevs,
            index=sevs.index(span["severity"]),
            key=f"span_edit_sev_{tag}",
            label_visibility="collapsed",
            on_change=_edit,
            args=(span, "severity", f"span_edit_sev_{tag}"),
        )
        cats = list(config.categories)
        if span["category"] not in cats:
            cats.append(span["category"])
        if not (one and len(cats) == 1):
            c2.selectbox(
                "Category",
                cats,
                index=cats.index(span["category"]),
                key=f"span_edit_cat_{tag}",
                label_visibility="collapsed",
                on_change=_edit,
                args=(span, "category", f"span_edit_cat_{tag}"),
            )
        c3.button("Delete", key=f"span_del_{tag}", on_click=actions.delete, args=(n,))
    if delete_key is None:
        return
    st.button(
        "Delete selected `Del`",
        key=delete_key,
        on_click=actions.delete,
        disabled=work["selected"] is None,
    )


def _edit(span: dict[str, Any], field: str, key: str) -> None:
    if span[field] != st.session_state[key]:
        span[field] = st.session_state[key]
        span_ai.mark_edited(span)
