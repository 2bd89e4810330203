"""A comparative screen in a campaign judged as documents in order shows the document
counter and the document's earlier sources above it, but no earlier outputs (they are one
system's, and the screen's outputs are several systems', names hidden). AppTest on a real
migrated SQLite database."""

from __future__ import annotations

from sqlalchemy import Engine

from annotation.campaign import document_order
from annotation.judging import comparative
from tests.app.test_annotate import annotator_app
from tests.app.test_document_context_page import N, context_blocks, make_document


def test_comparative_screen_shows_earlier_sources_only(app_engine: Engine) -> None:
    cid = make_document(app_engine)  # paired, two systems: a screen of two outputs
    comparative.set_comparative(app_engine, cid, True)
    document_order.set_documents_in_order(app_engine, cid, True)
    at, _ = annotator_app(app_engine, cid)
    for j in range(3):
        assert not at.exception, at.exception
        counters = [h.value for h in at.html if "tandem-doc-counter" in h.value]
        assert len(counters) == 1 and f"segment {j + 1} of {N}" in counters[0], counters
        text = "".join(context_blocks(at))
        assert text.count('class="tandem-context-segment"') == j  # the earlier segments
        assert all(f"source {i} " in text for i in range(j))
        assert 'class="tandem-context-output' not in text and "out " not in text
        assert "secret-system" not in text
        for _ in range(2):  # one label per output, then save the screen
            at.button(key="cmp_adequate").click().run()
        at.button(key="cmp_save").click().run()
