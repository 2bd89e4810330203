"""The dashboard's span agreement for error-span campaigns: character-level span F1
between annotators of the outputs judged more than once (estimators.judgments.agreement.span_f1)."""

from __future__ import annotations

import streamlit as st

from annotation.judging.span_judgments import span_agreement
from db.schema.vocabulary import CampaignMode
from views.common import engine


@st.cache_data(show_spinner=False, max_entries=32)
def _f1(db_url: str, campaign_id: int, fingerprint: tuple[int, ...]):  # type: ignore[no-untyped-def]
    del db_url, fingerprint  # cache keys: the database and its labels
    return span_agreement(engine(), campaign_id)


def draw_span_agreement(
    mode: str, db_url: str, campaign_id: int, fingerprint: tuple[int, ...]
) -> None:
    """Span F1 under the dashboard's α; nothing for campaigns without error spans."""
    if not CampaignMode(mode).asks_spans:
        return
    plain, aware = _f1(db_url, campaign_id, fingerprint)
    if plain.f1 is None:
        st.caption(
            "Span F1: not available — no two annotators marked errors on the same output yet."
        )
        return
    st.metric(
        "Span F1 (characters)",
        f"{plain.f1:.3f}",
        help="Characters both annotators marked, 2·|A∩B| / (|A| + |B|), over all pairs.",
    )
    st.caption(
        f"Severity-aware {aware.f1:.3f}; {plain.n_pairs:,} annotator pairs on "
        f"{plain.n_units:,} outputs, {plain.n_both_clean:,} pairs where neither marked an error."
    )
