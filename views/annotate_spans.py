"""The annotate page's error-span mode (MQM / ESA): mark what is wrong, then save.

views/annotate.py hands the item to :func:`span_item`. The texts are drawn by a small custom
component (views/span_widget/index.html: plain text via ``textContent``, so HTML and
markdown in items stay literal) that reports selections, clicks on spans and keys; every
decision is made here, and the judgment is saved by annotation.session.submit, which
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

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st
import streamlit.components.v1 as components
from streamlit.errors import StreamlitAPIException

from annotation import session
from annotation.span_judgments import campaign_config, undone_spans
from annotation.spans import SpanConfig, snap_to_words
from db.vocabulary import Severity
from views import span_extras as extras
from views.common import engine, literal, scores_table

_WIDGET = components.declare_component(
    "tandem_span_widget", path=str(Path(__file__).with_name("span_widget"))
)
WIDGET_KEY = "span_widget"
SEEN_KEY = "span_widget_seen"  # the newest widget event acted on: {"session", "n"}
SEVERITY_KEYS = {"q": Severity.MINOR, "w": Severity.MAJOR, "e": Severity.CRITICAL}
ACTION_KEYS = {
    "Enter": "save",
    "n": "no_errors",
    "Delete": "delete",
    "Backspace": "delete",
    "Escape": "clear",
    "s": "skip",
    "u": "undo",
}
INSTRUCTIONS = (
    "Mark what is wrong in the output: select the words (a click in the source marks "
    "something missing there), then a severity — `q` minor, `w` major, `e` critical — and a "
    "category (`1`–`9`). Click a marked span to change it or delete it (`Del`). `Enter` saves "
    "and shows the next item · `n` no errors · `s` skip · `u` undo."
)
SELECT_FIRST = "Select the wrong words in the output first (or click in the source where "
SELECT_FIRST += "something is missing)."
UNFINISHED = (
    "A selection is still open: give it a severity and a category, or clear it (`Esc`), "
    "before saving."
)
HAS_SPANS = (
    "You marked errors on this item: delete them to say “no errors”, or save them with `Enter`."
)


def _config(campaign_id: int) -> SpanConfig:
    cache = st.session_state.setdefault("span_configs", {})
    if campaign_id not in cache:
        cache[campaign_id] = campaign_config(engine(), campaign_id)
    return cache[campaign_id]


def _work(slot: session.Slot) -> dict[str, Any]:
    """The item's unsaved work: spans, the open selection and the selected span. An item
    that came back after an undo starts from the spans that were saved (a correction)."""
    key = f"span_work_{slot.assignment_id}_{slot.claim_version}"
    if key not in st.session_state:
        annotator = int(st.session_state["annotator_id"])
        spans = [
            sp | {"id": _new_id()} for sp in undone_spans(engine(), annotator, slot.assignment_id)
        ]
        st.session_state[key] = {"spans": spans, "pending": None, "selected": None}
    return st.session_state[key]


def _new_id() -> int:
    """A span's id on the page (its row widgets' keys stay with it when others are deleted)."""
    st.session_state["span_ids"] = st.session_state.get("span_ids", 0) + 1
    return st.session_state["span_ids"]


def _hint(slot: session.Slot, text: str | None) -> None:
    if text is None:
        st.session_state.pop("hint", None)
    else:
        st.session_state["hint"] = (slot.assignment_id, text)


class _Actions:
    """What the keys, buttons and the widget do to the item's unsaved work."""

    def __init__(
        self,
        annotator: int,
        on_saved: Callable[[session.View], None],
        seconds: Callable[[], float | None],
    ) -> None:
        self.annotator, self.on_saved, self.seconds = annotator, on_saved, seconds

    @staticmethod
    def _slot() -> session.Slot | None:
        return st.session_state["view"].slot

    def select(self, side: str, start: int, end: int) -> None:
        slot = self._slot()
        if slot is None:
            return
        if side not in ("target", "source"):
            return
        work = _work(slot)
        text = slot.text if side == "target" else slot.source
        if side == "source" and start == end:  # "missing here", inside the source
            snapped: tuple[int, int] | None = (min(max(0, start), len(text)),) * 2
        else:
            snapped = snap_to_words(text, start, end)
        if snapped is None:
            return
        work["touched"] = True
        work["pending"] = {
            "side": side,
            "start": snapped[0],
            "end": snapped[1],
            "severity": None,
            "category": None,
            "id": _new_id(),
        }
        work["selected"] = None
        _hint(slot, None)

    def pick_span(self, index: int) -> None:
        slot = self._slot()
        if slot is not None and 0 <= index < len(_work(slot)["spans"]):
            work = _work(slot)
            work["selected"], work["pending"], work["touched"] = index, None, True

    def set_field(self, field: str, value: str) -> None:
        """Severity or category: edits the selected span, or completes the open selection
        (which becomes a span once it has both)."""
        slot = self._slot()
        if slot is None:
            return
        work = _work(slot)
        work["touched"] = True
        if work["selected"] is not None:
            work["spans"][work["selected"]][field] = value
            return
        pending = work["pending"]
        if pending is None:
            _hint(slot, SELECT_FIRST)
            return
        pending[field] = value
        if pending["severity"] and pending["category"]:
            work["spans"].append(pending)
            work["pending"] = None
            _hint(slot, None)

    def delete(self, index: int | None = None) -> None:
        slot = self._slot()
        if slot is None:
            return
        work = _work(slot)
        work["touched"] = True
        index = work["selected"] if index is None else index
        if index is not None and 0 <= index < len(work["spans"]):
            del work["spans"][index]
        elif index is None:
            work["pending"] = None
        work["selected"] = None

    def clear(self) -> None:
        slot = self._slot()
        if slot is not None:
            _work(slot).update(pending=None, selected=None)

    def save(self, no_errors: bool = False) -> None:
        slot = self._slot()
        if slot is None:
            return
        work = _work(slot)
        if work["pending"] is not None:
            _hint(slot, UNFINISHED)
            return
        if no_errors and work["spans"]:
            _hint(slot, HAS_SPANS)
            return
        esa = extras.esa_value(slot)
        edit = {}
        if st.session_state["view"].campaign.mode.asks_post_edit:  # spans and a post-edit
            edit = {
                "post_edit": st.session_state.get(_post_edit_key(slot), slot.text),
                "no_edit_needed": bool(st.session_state.get(_no_edit_key(slot))),
            }
        try:
            view = session.submit(
                engine(),
                self.annotator,
                slot.assignment_id,
                slot.claim_version,
                spans=[] if no_errors else [_json(s) for s in work["spans"]],
                esa_score=esa,
                seconds=self.seconds(),
                **edit,
            )
        except session.InvalidJudgment as refused:  # nothing saved; say why, keep the item
            _hint(slot, str(refused))
            return
        _hint(slot, None)
        extras.forget(self.draft_key(slot))
        self.on_saved(view)

    def draft_key(self, slot: session.Slot) -> str:
        return extras.draft_key(st.session_state["view"].campaign.id, self.annotator, slot)

    def restore(self, raw: Any, config: SpanConfig) -> None:
        """A browser-kept draft offered back after a reload (views/span_extras.py)."""
        slot = self._slot()
        if slot is None:
            return
        work = _work(slot)
        if work.get("touched") or work["spans"]:
            return
        work["touched"] = True
        spans = extras.restored(raw, slot, config)
        if spans:
            work["spans"] = [sp | {"id": _new_id()} for sp in spans]
            st.toast(f"Restored {len(spans)} unsaved span(s) of this item.")

    def skip_with(self, skip: Callable[[], None]) -> Callable[[], None]:
        """``skip`` that also forgets the skipped item's draft."""

        def run() -> None:
            slot = self._slot()
            if slot is not None:
                extras.forget(self.draft_key(slot))
            skip()

        return run


def _json(span: dict[str, Any]) -> dict[str, Any]:
    return {k: span[k] for k in ("start", "end", "severity", "category", "side")}


def _post_edit_key(slot: session.Slot) -> str:
    return f"span_post_edit_{slot.assignment_id}_{slot.claim_version}"


def _no_edit_key(slot: session.Slot) -> str:
    return f"span_no_edit_{slot.assignment_id}_{slot.claim_version}"


def _apply_widget_events(actions: _Actions, config: SpanConfig, other: dict[str, Callable]) -> None:
    """Act once, in order, on each widget event not handled yet (selection, click on a span,
    key). Events meant for an item that is no longer shown are dropped."""
    value = st.session_state.get(WIDGET_KEY)
    if not isinstance(value, dict) or not isinstance(value.get("events"), list):
        return
    seen = st.session_state.get(SEEN_KEY) or {}
    last = seen.get("n", 0) if seen.get("session") == value.get("session") else 0
    for event in value["events"]:
        n = _whole(event.get("n")) if isinstance(event, dict) else None
        if n is None or n <= last:
            continue
        last = n
        st.session_state[SEEN_KEY] = {"session": value.get("session"), "n": last}
        slot = st.session_state["view"].slot
        if slot is None or event.get("nonce") != _nonce(slot):
            continue
        kind = event.get("type")
        start, end, index = (_whole(event.get(k)) for k in ("start", "end", "index"))
        if kind == "select" and start is not None and end is not None:
            actions.select(str(event.get("side")), start, end)
        elif kind == "click_span" and index is not None:
            actions.pick_span(index)
        elif kind == "restore":
            actions.restore(event.get("spans"), config)
        elif kind == "key":
            _on_key(str(event.get("key")), actions, config, other)


def _whole(value: Any) -> int | None:
    """A widget value as a whole number; None for anything else (the browser's values are
    not trusted: text, floats, booleans, huge numbers are dropped, not raised on)."""
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 10**9:
        return None
    return value


def _nonce(slot: session.Slot) -> str:
    return f"{slot.assignment_id}:{slot.claim_version}"


def _on_key(key: str, actions: _Actions, config: SpanConfig, other: dict[str, Callable]) -> None:
    if key in SEVERITY_KEYS:
        actions.set_field("severity", SEVERITY_KEYS[key].value)
    elif key.isdigit() and 1 <= int(key) <= len(config.categories):
        actions.set_field("category", config.categories[int(key) - 1])
    elif key in ACTION_KEYS:
        action = ACTION_KEYS[key]
        {
            "save": actions.save,
            "no_errors": lambda: actions.save(no_errors=True),
            "delete": actions.delete,
            "clear": actions.clear,
        }.get(action, other.get(action, lambda: None))()


_KEYS_JS = Path(__file__).with_name("keys.js").read_text(encoding="utf-8")


def _page_keys(config: SpanConfig) -> None:
    """The same keys when the focus is on the page rather than in the widget: views/keys.js
    clicks the button whose key the pressed key names."""
    keys = {k: f"span_sev_{s.value}" for k, s in SEVERITY_KEYS.items()}
    keys |= {str(n + 1): f"span_cat_{n}" for n in range(min(9, len(config.categories)))}
    keys |= {"enter": "span_save", "n": "span_no_errors", "delete": "span_delete"}
    keys |= {"backspace": "span_delete", "escape": "span_clear", "s": "skip", "u": "undo"}
    script = _KEYS_JS.replace("__KEYS__", json.dumps(keys)).replace("__FOCUS__", "null")
    # A trusted constant script (key names only), run in the page itself.
    st.html(f"<script>{script}</script>", unsafe_allow_javascript=True)


def _describe(span: dict[str, Any], slot: session.Slot) -> str:
    if span["side"] == "source" and span["start"] == span["end"]:
        where = f"missing in the source at character {span['start']}"
    else:
        text = slot.text if span["side"] == "target" else slot.source
        snippet = text[span["start"] : span["end"]]
        snippet = snippet if len(snippet) <= 60 else snippet[:57] + "…"
        where = ("source (omitted): " if span["side"] == "source" else "") + f"“{snippet}”"
    return literal(where)


def _redraw() -> None:
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
    config = _config(view.campaign.id)
    actions = _Actions(annotator, on_saved, seconds)
    skip = actions.skip_with(skip)
    before = (st.session_state["view"], st.session_state.get("hint"))
    _apply_widget_events(actions, config, {"skip": skip, "undo": undo})
    if (st.session_state["view"], st.session_state.get("hint")) != before:
        _redraw()  # a key in the widget saved, skipped, undid or left a hint: draw afresh
    slot = view.slot
    assert slot is not None  # views/annotate.py draws the end of the queue
    work = _work(slot)
    cats = " · ".join(f"`{n + 1}` {c}" for n, c in enumerate(config.categories[:9]))
    main, side = st.columns([3, 1])
    with main:
        _WIDGET(
            source=slot.source,
            reference=slot.reference,
            target=slot.text,
            spans=[_json(s) for s in work["spans"]],
            pending=work["pending"],
            selected=work["selected"],
            nonce=_nonce(slot),
            seen=st.session_state.get(SEEN_KEY),
            draft_key=actions.draft_key(slot),
            draft_mode=extras.draft_mode(work),
            forget=extras.forgotten(),
            keys=[*SEVERITY_KEYS, *map(str, range(1, 10)), *ACTION_KEYS],
            hint=(
                "Select wrong words (or click in the source where something is missing), "
                f"then q minor · w major · e critical and {cats.replace('`', '')}. "
                "Enter saves · n no errors · Del deletes the selected span."
            ),
            key=WIDGET_KEY,
            default=None,
        )
    with side:
        scores_table(slot.scores)
    pending = work["pending"]
    if pending is not None:
        st.info(f"Open selection: {_describe(pending, slot)}: choose a severity and a category.")
    sev_cols = st.columns(len(SEVERITY_KEYS))
    for col, (key, severity) in zip(sev_cols, SEVERITY_KEYS.items(), strict=True):
        col.button(
            f"{severity.value.capitalize()} `{key}`",
            key=f"span_sev_{severity.value}",
            on_click=actions.set_field,
            args=("severity", severity.value),
            width="stretch",
        )
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
    _span_list(work, slot, config, actions)
    if view.campaign.mode.asks_post_edit:
        st.text_area(
            "Post-edit (optional: fix the output; Esc leaves the box, then `Enter` saves the "
            "spans with it)",
            value=slot.text,
            key=_post_edit_key(slot),
            height=100,
        )
        st.checkbox(
            "No edit needed (store the output as its own post-edit; an unchanged box is "
            "otherwise stored as no post-edit)",
            key=_no_edit_key(slot),
        )
    if config.ask_esa:
        extras.esa_slider(slot)
    c1, c2, c3, c4, c5 = st.columns([2, 2, 2, 1, 1])
    c1.button(
        "Save and next `Enter`",
        key="span_save",
        type="primary",
        on_click=actions.save,
        width="stretch",
    )
    c2.button(
        "No errors `n`", key="span_no_errors", on_click=actions.save, args=(True,), width="stretch"
    )
    c3.button("Clear selection `Esc`", key="span_clear", on_click=actions.clear, width="stretch")
    c4.button("Skip `s`", key="skip", on_click=skip, width="stretch")
    c5.button("Undo `u`", key="undo", on_click=undo, width="stretch")
    _page_keys(config)


def _span_list(
    work: dict[str, Any], slot: session.Slot, config: SpanConfig, actions: _Actions
) -> None:
    if not work["spans"]:
        st.caption("No errors marked yet.")
        return
    severities = [s.value for s in Severity]
    for n, span in enumerate(work["spans"]):
        tag = f"{slot.assignment_id}_{slot.claim_version}_{span['id']}"
        c0, c1, c2, c3 = st.columns([4, 2, 2, 1], vertical_alignment="center")
        marker = "▶ " if work["selected"] == n else ""
        c0.markdown(f"{marker}{n + 1}. {_describe(span, slot)}")
        c1.selectbox(
            "Severity",
            severities,
            index=severities.index(span["severity"]),
            key=f"span_edit_sev_{tag}",
            label_visibility="collapsed",
            on_change=_edit,
            args=(span, "severity", f"span_edit_sev_{tag}"),
        )
        cats = list(config.categories)
        if span["category"] not in cats:
            cats.append(span["category"])
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
    st.button(
        "Delete selected `Del`",
        key="span_delete",
        on_click=actions.delete,
        disabled=work["selected"] is None,
    )


def _edit(span: dict[str, Any], field: str, key: str) -> None:
    span[field] = st.session_state[key]
