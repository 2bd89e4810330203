"""The document score of a DA / SQM campaign judged in document order: once the annotator
has scored the last segment of a document, one slider for the whole document
(views/annotate/da_slider.py) is shown at the top and the document (that system's outputs in
order, with their sources) under it, before the next item. Saved by
annotation.judging.document_scores.save; ``u`` undoes the last segment instead (the
document is then unfinished, and the score is asked again after it)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

import streamlit as st

from annotation.judging import document_scores, session
from annotation.judging.da_judgments import scale
from annotation.judging.diff import literal_html
from views.annotate.da_slider import keys_text, sliders
from views.common import engine


def document_step(
    view: session.View,
    annotator: int,
    guarded: Callable[..., Callable[..., None]],
    undo: Callable[[], None],
    keyboard: Callable[..., None],
) -> bool:
    """Draw the waiting document's score screen; False (nothing drawn) when none waits."""
    waiting = document_scores.pending(engine(), annotator)
    if waiting is None:
        return False
    key = waiting.key
    # the draft's identity in the browser: the document, never the system's id or name
    screen = "doc:" + hashlib.sha256(f"{annotator}:{key.doc_id}:{key.system_id}"
                                     .encode()).hexdigest()[:16]  # fmt: skip
    started = st.session_state.setdefault(f"doc_shown_{screen}", time.monotonic())
    sc = scale(view.campaign.mode, view.campaign.likert)

    @guarded
    def save(scores: dict[int, float], _comments: dict[int, str]) -> None:  # no comment box
        document_scores.save(engine(), annotator, key, scores.get(0),
                             seconds=round(time.monotonic() - started, 3))  # fmt: skip

    hint = st.session_state.pop("da_hint", None)
    if hint:
        st.warning(hint)
    st.subheader("The whole document")
    st.caption(
        "You have judged every segment of this document. Now give one score for the "
        "document as a whole: how well the translation as a text conveys the source text. "
        + keys_text(sc, several=False).replace(" · `s` skip", "")
    )
    # the score first, the document under it: a document of 30 segments would otherwise put
    # the slider thousands of pixels down, below everything it asks about
    sliders(screen, [{"title": f"Your {sc['name']} score for the whole document"}], sc, save)
    st.button("Undo last segment `u`", key="undo", on_click=undo)
    st.html('<style>.tandem-docscore .tandem-source{color:#475467;font-size:0.92em}</style>'
            '<div class="tandem-docscore">' + "".join(
        f'<p style="font-weight:600;margin:0.6rem 0 0.2rem">Segment {n}</p>'
        + literal_html(src, "tandem-source") + literal_html(text, "tandem-output")
        for n, (src, text) in enumerate(waiting.segments, start=1)
    ) + "</div>")  # fmt: skip
    keyboard(None, {"u": "undo"})
    return True
