"""The comparative screen of an error-span campaign (cESA, as Pearmut calls it): every output
of one source on one screen, each with its own error spans and, when the campaign asks, its
own ESA score; one save stores them all with their places on the screen
(annotation.judging.comparative.submit: one transaction, labels derived as on the span page).

The marking is the single-output span page's (views/spans/item.py): its widget (one per
output, the source drawn once above them, so no omission marks here), its actions on one
output's unsaved work, its span list and its ESA slider (views/spans/extras.py). This module
adds the screen: which output is current, the shared severity and category buttons (they
act on the current output), and the save of the whole screen.

Keys: select words in an output, then ``q`` / ``w`` / ``e`` and ``1``–``9`` (in the output's
box, or on the page for the current output); ``j`` / ``k`` next / previous output; ``Del``
deletes the selected span, ``Esc`` clears; ``Enter`` saves the screen; ``s`` skip; ``u`` undo.
In a browser the screen's work is held in the page until that save
(views/spans/cesa_held.py): one server run per screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from annotation.judging import comparative, session
from annotation.judging.spans import SpanConfig
from db.schema.vocabulary import SlotKind
from views.common import engine, literal
from views.compare_screen import CSS, footer, source_html
from views.spans import ai as span_ai
from views.spans import cesa_held, extras
from views.spans import item as marking
from views.spans.actions import SpanActions, item_work, span_config, span_json
from views.spans.cesa_held import SCORE_FIRST, open_selection
from views.spans.events import ACTION_KEYS, SEVERITY_KEYS, apply_widget_events
from views.spans.held import in_browser

KEYS = {k: f"cmp_sev_{s.value}" for k, s in SEVERITY_KEYS.items()}
KEYS |= {str(n + 1): f"cmp_cat_{n}" for n in range(9)}
KEYS |= {
    "enter": "cmp_save",
    "delete": "cmp_span_delete",
    "backspace": "cmp_span_delete",
    "escape": "cmp_span_clear",
    "j": "cmp_next",
    "k": "cmp_prev",
    "s": "cmp_skip",
    "u": "cmp_undo",
}
#: Keys the output's own box answers (the same, minus "no errors": a screen saves them all).
WIDGET_KEYS = (
    *SEVERITY_KEYS,
    *map(str, range(1, 10)),
    *(k for k, a in ACTION_KEYS.items() if a != "no_errors"),
)
INSTRUCTIONS = (
    "Mark what is wrong in every output of the source below, then save the screen: select "
    "the words in an output, then a severity — `q` minor, `w` major, `e` critical — and a "
    "category (`1`–`9`); an output with nothing marked is saved as “no errors”. `j` / `k` "
    "next / previous output · `Del` deletes the selected span · `Enter` saves the screen · "
    "`s` skip · `u` undo."
)
CARD_CSS = "[class*='st-key-cmp_scard_'] { padding: 0.5rem 0.75rem; border: 1px solid #d0d5dd; "
CARD_CSS += "border-radius: 0.5rem; }"
AI_INSTRUCTIONS = (
    " Violet outlines are an AI's error spans (dashed until checked): `a` accepts the current "
    "output's unchecked ones (or the selected one); edit or delete them as your own."
)


def instructions(view: session.View) -> str:
    """The screen's instructions: ESA (the overall score asked) has no critical severity,
    and a campaign of one category (ESA's) no category to choose."""
    return marking.span_wording(INSTRUCTIONS, span_config(view.campaign.id))


def slots_of(shown: comparative.Screen) -> list[session.Slot]:
    """The screen's outputs as the span page's slots. An output shown beside an attention
    check is no slot of the annotator's: a negative id (never an assignment's) keeps its
    unsaved work apart, and nothing of it is saved. A text that is not its output's own (an
    attention check, a decoy) is no regular slot, so it starts without AI spans (ESA^AI)."""
    return [
        session.Slot(
            o.assignment_id if o.assignment_id is not None else -(k + 1),
            o.claim_version,
            o.output_id or 0,
            o.text,
            shown.source,
            shown.reference,
            None,
            kind=SlotKind.REGULAR if o.output_id is not None else SlotKind.ATTENTION,
        )
        for k, o in enumerate(shown.outputs)
    ]


@dataclass
class _Screen:
    """One cESA screen's work: its outputs as the span page's slots, the campaign's span
    settings, and the page's callbacks. Its methods are what the buttons and the widgets do
    (``state``: views/annotate/compare.py's per-screen state, whose ``current`` is the output
    the page's keys and the shared buttons act on)."""

    annotator: int
    campaign_id: int
    shown: comparative.Screen
    state: dict[str, Any]
    config: SpanConfig
    set_view: Callable[[session.View], None]
    seconds: Callable[[], float | None]
    skip_page: Callable[[], None]

    def __post_init__(self) -> None:
        self.slots = slots_of(self.shown)
        # the campaign's comment box: one optional comment per output, saved with its judgment
        self.comment = extras.comment_offered(self.campaign_id)

    def actions(self, k: int) -> SpanActions:
        return SpanActions(self.annotator, self.set_view, self.seconds, slot=self.slots[k])

    def on(self, k: int | None, act: Callable[[SpanActions], None]) -> None:
        """Run an action on output ``k`` (None: the current one); its hint goes on top."""
        k = self.state["current"] if k is None else k
        act(self.actions(k))
        hint = st.session_state.pop("hint", None)
        if hint is not None:
            st.session_state["cmp_hint"] = f"Output {k + 1}: {hint[1]}"

    def save(self) -> None:
        """Save every output's spans, score and comment in one go; or say which outputs
        are not ready (an open selection, no score) and save nothing."""
        works = [item_work(slot) for slot in self.slots]
        scores = [extras.esa_value(slot) for slot in self.slots]
        open_ = [k + 1 for k, w in enumerate(works) if w["pending"] is not None]
        unscored = [k + 1 for k, v in enumerate(scores) if self.config.ask_esa and v is None]
        if open_ or unscored:
            why = open_selection(self.config) if open_ else SCORE_FIRST
            st.session_state["cmp_hint"] = why.format(_listed(open_ or unscored))
            return
        judgments = {
            k: {"spans": [span_json(sp) for sp in works[k]["spans"]], "esa_score": v}
            | ({"comment": extras.comment_of(self.slots[k])} if self.comment else {})
            for k, (o, v) in enumerate(zip(self.shown.outputs, scores, strict=True))
            if o.assignment_id is not None
        }
        try:
            saved = comparative.submit(
                engine(), self.annotator, self.shown, judgments, seconds=self.seconds()
            )
        except session.InvalidJudgment as refused:  # nothing saved; the screen stays
            st.session_state["cmp_hint"] = str(refused)
            return
        self._forget_drafts()
        self.set_view(saved)

    def skip(self) -> None:
        self._forget_drafts()
        self.skip_page()

    def _forget_drafts(self) -> None:
        for slot in self.slots:
            extras.forget(self.actions(0).draft_key(slot))

    def apply_events(self, other: dict[str, Callable[[], None]]) -> None:
        """The widgets' events (a selection, a click on a span, a key in an output's box),
        before anything is drawn; the output worked in becomes the current one."""
        before = st.session_state["view"]
        for k in range(len(self.slots)):
            seen = st.session_state.get(_seen_key(k))
            self.on(
                k,
                lambda a, k=k: apply_widget_events(
                    a, self.config, other, _widget_key(k), _seen_key(k)
                ),
            )
            if st.session_state["view"] is not before:  # saved, skipped or undone: afresh
                marking.redraw()
            if st.session_state.get(_seen_key(k)) != seen:
                self.state["current"] = k


def span_screen(
    view: session.View,
    annotator: int,
    shown: comparative.Screen,
    state: dict[str, Any],
    set_view: Callable[[session.View], None],
    seconds: Callable[[], float | None],
    skip: Callable[[], None],
    undo: Callable[[], None],
    guarded: Callable[..., Any],
) -> None:
    """Draw the screen (``state`` as :class:`_Screen`; ``skip`` and ``undo`` come guarded,
    ``guarded`` guards the save: a revoked link ends the session)."""
    screen = _Screen(annotator, view.campaign.id, shown, state, span_config(view.campaign.id),
                     set_view, seconds, skip)  # fmt: skip
    save = guarded(screen.save)
    screen.apply_events({"save": save, "skip": screen.skip, "undo": undo})
    hint = st.session_state.pop("cmp_hint", None)
    if hint:
        st.warning(literal(hint))
    ai = span_ai.campaign_prefills(view.campaign.id)
    if ai:
        st.caption(AI_INSTRUCTIONS)
    if in_browser():  # the page holds the screen's work until its save (views/spans/cesa_held.py)
        _texts(shown, None)
        cesa_held.mount_screen(screen, ai)
        _cards(screen.slots, state, screen.config, screen.actions, held=screen)
        cesa_held.mount_save(screen)
        footer(None, save, screen.skip, undo, state, len(screen.slots))
        return
    _texts(shown, state["current"])
    _shared_buttons(screen.config, screen.on, ai)
    _cards(screen.slots, state, screen.config, screen.actions, comment=screen.comment)
    footer("Save screen `Enter`", save, screen.skip, undo, state, len(screen.slots))


def draft(shown: comparative.Screen) -> str | None:
    """The held screen's identity for the key listener (None: the server draws the screen)."""
    return cesa_held.draft_ident(slots_of(shown)) if in_browser() else None


def page_keys(campaign_id: int) -> dict[str, str]:
    """The page's keys (views/keys.js clicks the button each names); ``a`` only where the
    campaign has AI spans (a key whose button is not drawn would hold the key queue up)."""
    return KEYS | ({"a": "cmp_accept_ai"} if span_ai.campaign_prefills(campaign_id) else {})


def _listed(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))


def _widget_key(k: int) -> str:
    return f"cmp_span_widget_{k}"


def _seen_key(k: int) -> str:
    return f"cmp_span_seen_{k}"


def _texts(shown: comparative.Screen, current: int | None) -> None:
    """The source, and the current output's highlight (None: the page draws it)."""
    highlight = f".st-key-cmp_scard_{current} {{ border: 3px solid #2563eb; }}"
    highlight = "" if current is None else highlight
    st.html(f"<style>{CSS}{CARD_CSS}{highlight}</style>" + source_html(shown))


def _cards(
    slots: list[session.Slot],
    state: dict[str, Any],
    config: SpanConfig,
    actions: Callable[[int], SpanActions],
    held: _Screen | None = None,
    comment: bool = False,
) -> None:
    """One card per output: its span widget, its spans, its ESA slider, and (``comment``:
    the campaign offers it) its comment box (``held``: the page's held work of that output
    draws its spans, its score and its comment)."""
    size = len(slots)
    for k, slot in enumerate(slots):
        work = item_work(slot)
        mark = " · current" if k == state["current"] and held is None else ""
        with st.container(key=f"cmp_scard_{k}"):
            unchecked = sum(1 for sp in work["spans"] if sp.get("ai_state") == "unchecked")
            ai = f" ({unchecked} AI span(s) not checked)" if unchecked else ""
            if work.get("ai") and not work.get("prefill"):
                ai = " · the AI marked no errors in this output"
            st.html(  # the held screen redraws the mark and the count (views/spans/cesa_held.js)
                f'<p style="font-weight:700;margin:0" class="tandem-cmp-title">'
                f'Output {k + 1} of {size}<span class="tandem-cmp-cur">{mark}</span> — '
                f'<span class="tandem-cmp-spans">{len(work["spans"])} error span(s){ai}</span>'
                "</p>"
            )
            marking.draw_widget(
                slot,
                work,
                actions(k),
                hint=f"Select wrong words, then a severity ({marking.severity_hint(config)})"
                + ("" if len(config.categories) == 1 else " and a category (1–9)")
                + " · Enter saves the screen",
                key=_widget_key(k),
                seen_key=_seen_key(k),
                source=False,
                keys=WIDGET_KEYS,
                held=held is not None,
            )
            if held is not None:
                cesa_held.mount_output(held, k)
                continue
            marking.span_list(work, slot, config, actions(k), delete_key=None)
            if config.ask_esa:
                extras.esa_slider(slot)
            if comment:
                extras.comment_input(
                    slot, extras.output_comment_label(k), extras.OUTPUT_COMMENT_PLACEHOLDER
                )


def _shared_buttons(
    config: SpanConfig,
    on: Callable[[int | None, Callable[[SpanActions], None]], None],
    ai: bool,
) -> None:
    """Severity, category, delete and clear for the current output (the page's keys click
    them), above the cards; with AI spans (ESA^AI), accept them too."""
    st.caption("For the current output:")
    buttons = [
        (f"{sev.value.capitalize()} `{key}`", f"cmp_sev_{sev.value}",
         lambda a, v=sev.value: a.set_field("severity", v))
        for key, sev in SEVERITY_KEYS.items()
    ]  # fmt: skip
    if ai:
        buttons.append(("Accept AI spans `a`", "cmp_accept_ai", lambda a: a.accept_ai()))
    buttons += [
        ("Delete selected `Del`", "cmp_span_delete", lambda a: a.delete()),
        ("Clear selection `Esc`", "cmp_span_clear", lambda a: a.clear()),
    ]
    for col, (label, key, act) in zip(st.columns(len(buttons)), buttons, strict=True):
        col.button(label, key=key, width="stretch", on_click=on, args=(None, act))
    if len(config.categories) == 1:  # ESA's one category is no choice
        return
    cat_cols = st.columns(min(len(config.categories), 6))
    for n, category in enumerate(config.categories):
        label = f"{literal(category)} `{n + 1}`" if n < 9 else literal(category)
        cat_cols[n % len(cat_cols)].button(
            label,
            key=f"cmp_cat_{n}",
            width="stretch",
            on_click=on,
            args=(None, lambda a, c=category: a.set_field("category", c)),
        )
