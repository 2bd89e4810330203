"""Dashboard (AppTest): the error rate in force and ε in words, every pair's verdict in
words."""

from __future__ import annotations

from db.campaign import campaigns as dbc
from db.queue.claim import queue_transaction
from db.reads.campaign import campaign_id
from tests.app.test_dashboard import _dashboard
from tests.test_reads import seed_campaign


def _markdown(at) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(str(m.value) for m in at.markdown)


def test_dashboard_says_the_error_rate_margin_and_verdicts(app_engine) -> None:
    seed_campaign(app_engine, "words", n_items=80, labelled=60, overlap=0)
    at = _dashboard("words")
    text = _markdown(at)
    assert "family-wise error rate (Holm)" in text and "ε = 0.05" in text
    [words] = [d.value for d in at.dataframe if "labelled items" in d.value]
    assert len(words) == 3 and words["verdict"].str.len().gt(0).all()

    # the plan stored before any label (as the Annotators page / cli.py plan would):
    # e-BH and ε = 0.3
    seed_campaign(app_engine, "words-ebh", n_items=80, labelled=60, overlap=0)
    cid = campaign_id(app_engine, "words-ebh")
    with queue_transaction(app_engine) as s:
        dbc.set_campaign_meta_key(s, cid, "error_rate", "ebh")
        dbc.set_campaign_meta_key(s, cid, "equivalence_margin", 0.3)
    at = _dashboard("words-ebh")
    text = _markdown(at)
    assert "false discovery rate (e-BH)" in text and "ε = 0.3" in text
    assert any("e-BH" in h.value for h in at.subheader)
