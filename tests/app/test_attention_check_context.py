"""An attention check between document blocks shows no document context and no segment
counter (annotation.campaign.context.document_context): its output is a random one of the pool,
not a segment of the block the annotator is in. AppTest on a real migrated SQLite database."""

from __future__ import annotations

from sqlalchemy import Engine, update

from annotation.campaign import document_order
from annotation.judging.session import next_view
from db.engine import session_scope
from db.schema.models import Campaign
from db.schema.vocabulary import SlotKind
from tests.app.test_annotate import annotator_app
from tests.app.test_document_context_page import N, context_blocks, make_document


def counters(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [h.value for h in at.html if "tandem-doc-counter" in h.value]


def test_attention_checks_in_document_order_show_no_context(app_engine: Engine) -> None:
    cid = make_document(app_engine)
    with session_scope(app_engine) as s:
        s.execute(update(Campaign).where(Campaign.id == cid).values(attention_rate=0.5))
    assert document_order.set_documents_in_order(app_engine, cid, True)  # rebuilds the queue
    at, ann = annotator_app(app_engine, cid)
    seen = {SlotKind.REGULAR: 0, SlotKind.ATTENTION: 0}
    for _ in range(6 * (N + 1)):
        assert not at.exception, at.exception
        held = next_view(app_engine, ann).slot  # the item the page holds
        if held is None:
            break
        if held.kind == SlotKind.ATTENTION:
            assert context_blocks(at) == [] and counters(at) == [], held
        else:
            assert len(counters(at)) == 1  # every segment of a block shows its counter
        seen[SlotKind(held.kind)] += 1
        at.button(key="adequate").click().run()
    # both kinds were reached, and some check came after a segment with earlier context
    assert seen[SlotKind.ATTENTION] >= 2 and seen[SlotKind.REGULAR] == 2 * (N + 1), seen
