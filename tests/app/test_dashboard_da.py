"""Dashboard (AppTest): a DA campaign is analysed on its slider score by default (÷ 100);
judged in document order with document scores, it gets its own document-score section with
the system means on 0–100 and the pair's verdict."""

from __future__ import annotations

from accounts.invites import create_annotator
from annotation.judging import document_scores as ds
from annotation.judging import save as judging
from annotation.judging import session
from tests.annotation.test_da_kind import N_ITEMS, _da, _da_campaign, _judge_all
from tests.annotation.test_document_scores import N_DOCS, _campaign, _doc_score
from tests.app.conftest import admin_page


def _captions(at) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(str(c.value) for c in at.caption)


def test_da_campaign_dashboard_defaults_to_the_da_score(app_engine) -> None:  # type: ignore[no-untyped-def]
    _, a = _da_campaign(app_engine)
    _judge_all(app_engine, a)
    at = admin_page("views/pages/dashboard.py", "c")
    assert not at.exception, at.exception
    assert "dash-kind" not in [s.key for s in at.selectbox]  # the only kind: no picker
    assert "DA / SQM score is analysed and shown ÷ 100" in _captions(at)
    mean = sum(_da(0, i) for i in range(N_ITEMS)) / N_ITEMS / 100
    assert at.dataframe[0].value["Human only"].iloc[0].startswith(f"{mean:.3f} [")
    assert "Document scores" not in [h.value for h in at.subheader]


def test_document_scores_get_their_own_section(app_engine) -> None:  # type: ignore[no-untyped-def]
    cid = _campaign(app_engine)
    a = create_annotator(app_engine, cid, "a").annotator_id
    v = session.next_view(app_engine, a)
    while v.slot is not None:
        v = judging.submit(app_engine, a, v.slot.assignment_id, v.slot.claim_version,
                           da_score=60)  # fmt: skip
        while (w := ds.pending(app_engine, a)) is not None:
            ds.save(app_engine, a, w.key, _doc_score(w.segments))
    at = admin_page("views/pages/dashboard.py", "docs")
    assert not at.exception, at.exception
    assert "Document scores" in [h.value for h in at.subheader]
    systems = next(d.value for d in at.dataframe if "documents" in d.value.columns)
    row = systems[systems["system"] == "sys0"].iloc[0]
    assert row["documents"] == N_DOCS
    assert abs(row["mean"] - sum(80.0 + d % 5 for d in range(N_DOCS)) / N_DOCS) < 1e-9
    pairs = next(d.value for d in at.dataframe if "verdict" in d.value.columns
                 and "p (Holm)" in d.value.columns)  # fmt: skip
    assert pairs["verdict"].iloc[0] == "A better"
