"""The dashboard's document-score section (DA / SQM judged in document order): the system
mean of the 0–100 document scores, documents as the unit, with its own live verdicts
(annotation.judging.document_scores.document_report). Drawn only when document scores exist."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation.judging.document_scores import document_report, document_tables
from db.judging.document_scores import stamp
from views.common import engine


@st.cache_data(max_entries=8, show_spinner=False)
def _document_report(db: str, cid: int, key: tuple[int, ...], alpha: float | None):  # type: ignore[no-untyped-def]
    """The document-score report, recomputed only when the campaign's fingerprint or its
    document scores changed (``key``), not on every refresh of the dashboard."""
    return document_report(engine(), cid, alpha)


def draw_document_scores(cid: int, mode: str, alpha: float | None, key: tuple[int, ...]) -> None:
    if mode not in ("da", "sqm"):
        return
    key = (*key, *stamp(engine(), cid))
    report = _document_report(str(engine().url), cid, key, alpha)
    if report is None:
        return
    st.subheader("Document scores")
    st.caption(
        "One 0–100 score per system's whole document, given after its last segment. "
        "Estimand: a system's mean document score over the campaign's documents; the "
        "document is the unit (one score each, the first given), so these are separate from "
        "the segment scores above. Mean: of the documents scored. Estimate, low and high are "
        "anytime-valid, the ones the "
        "verdicts read; the fixed-n 95% interval needs two documents."
    )
    systems, pairs = document_tables(report)
    st.dataframe(pd.DataFrame([
        {"system": r.system, "documents": r.documents, "mean": r.mean, "estimate": r.estimate,
         "low": r.low, "high": r.high, "fixed-n low": r.fixed_low, "fixed-n high": r.fixed_high}
        for r in systems
    ]), hide_index=True, key="doc_scores_systems")  # fmt: skip
    if not pairs:
        st.caption("No anytime-valid verdicts on document scores yet.")
        return
    st.dataframe(pd.DataFrame([
        {"pair": f"{p.a} − {p.b}", "difference": p.difference, "low": p.low, "high": p.high,
         "p (Holm)": p.p_holm, "verdict": p.verdict}
        for p in pairs
    ]), hide_index=True, key="doc_scores_pairs")  # fmt: skip
