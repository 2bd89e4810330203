"""The dashboard's quality panels: data efficiency per metric, agreement between
annotators, and each annotator's work."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation.queue.admin import queue_settings
from estimators.judgments.agreement import agreement_note
from views.common import annotator_work, engine
from views.dashboard.text import rounded


def draw_quality(  # type: ignore[no-untyped-def]
    report, fp: tuple[int, ...], cid: int, mode: str, db_url: str
) -> None:
    left, right = st.columns(2)
    with left:
        draw_efficiency(report)
    with right:
        draw_agreement(report, fp, cid, mode, db_url)
    draw_annotators(cid, fp)


def draw_efficiency(report) -> None:  # type: ignore[no-untyped-def]
    st.subheader("Data efficiency per metric")
    if not report.efficiency:
        st.caption("No metric scores yet.")
    else:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "metric": e.metric,
                        "ρ_y (label, metric)": rounded(e.rho_y),
                        "DE measured": rounded(e.de_measured),
                        "DE limit": rounded(e.de_limit),
                        "DE limit, pairs": rounded(e.de_pairs_limit),
                    }
                    for e in report.efficiency
                ]
            ),
            hide_index=True,
            width="stretch",
        )
        st.caption(
            "DE = how many human labels one label is worth with the metric as control. "
            "Measured: se²(human)/se²(PPI++) here (needs unlabelled outputs); limit: "
            "1/(1 − ρ²) with an unlimited pool."
        )


def draw_agreement(  # type: ignore[no-untyped-def]
    report, fp: tuple[int, ...], cid: int, mode: str, db_url: str
) -> None:
    st.subheader("Agreement")
    a = report.agreement
    if a.alpha is None:
        overlap = queue_settings(engine(), cid).get("overlap")
        st.caption(f"Krippendorff's α: not available — {agreement_note(a, overlap)}.")
    else:
        st.metric(f"Krippendorff's α ({a.level})", f"{a.alpha:.3f}")
        st.caption(f"{a.n_units:,} outputs judged more than once ({a.n_judgments:,} "
                   "judgments).")  # fmt: skip
    from views.dashboard.span_agreement import draw_span_agreement  # error-span campaigns only

    draw_span_agreement(mode, db_url, cid, fp)


def draw_annotators(cid: int, fp: tuple[int, ...]) -> None:
    st.subheader("Annotators")
    frame = pd.DataFrame(
        [
            {
                "annotator": a.name,
                "role": a.role,
                "labels": a.n_labels,
                "skips": a.n_skips,
                "median seconds per item": a.median_seconds,
                "labels per hour": a.labels_per_hour,
                "attention checks": a.attention_answered,
                "attention pass rate": a.attention_pass_rate,
                "last active": a.last_at,
            }
            for a in annotator_work(cid, fp)
        ]
    )
    if frame.empty:
        st.caption("No annotators yet: invite them from the campaign's annotation settings.")
    else:
        st.dataframe(
            frame, hide_index=True, width="stretch",
            column_config={
                "median seconds per item": st.column_config.NumberColumn(format="%.1f"),
                "labels per hour": st.column_config.NumberColumn(format="%.0f"),
                "attention pass rate": st.column_config.NumberColumn(format="percent"),
            },
        )  # fmt: skip
