"""The dashboard's "Sampling design": the queue's design in force and, for active sampling,
what it has cost and saved so far."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation.queue.active_sampling import sampling_rate
from annotation.queue.admin import queue_settings
from db.schema.vocabulary import Sampling
from estimators.sampling.active import DEFAULT_TAU
from views.common import engine


def draw_sampling(report, cid: int) -> None:  # type: ignore[no-untyped-def]
    """The queue's sampling design in force and, for active sampling, what it has cost and
    saved so far (docs/statistics-notes.md §24; numbers from
    estimators.sampling.active.DesignSummary)."""
    settings = queue_settings(engine(), cid)
    designs = report.monitor.designs if report.monitor is not None else {}
    st.subheader("Sampling design")
    if settings.get("sampling") != Sampling.ACTIVE and not designs:
        st.caption(
            "Uniform: every item is equally likely to be labelled next, in the queue's "
            "recorded random order. Active sampling (Annotators page) would draw the items "
            "the metric predicts worst more often and weight their labels back."
        )
        return
    tau = settings.get("active_tau") or DEFAULT_TAU
    if settings.get("sampling") == Sampling.ACTIVE:
        rate = sampling_rate(settings.get("planned_labels"), report.n_items)
        st.caption(
            f"Active sampling in force: each visited item is labelled with a recorded "
            f"probability π ≥ τ·b = {tau:g} × {rate:.2g}, larger where the metric predicts the "
            "human judgment worst; every estimate weights a label by 1/π."
        )
    else:
        st.caption("Uniform sampling in force now; earlier labels were drawn actively and "
                   "stay weighted by their recorded π.")  # fmt: skip
    if designs:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "system / pair": name,
                        "items visited": d.visits,
                        "labels": d.labels,
                        "effective sample size": d.ess,
                        "variance (active)": d.var_active,
                        "variance (uniform, same labels)": d.var_uniform,
                        "labels saved": d.saving,
                    }
                    for name, d in designs.items()
                ]
            ),
            hide_index=True,
            width="stretch",
            column_config={"labels saved": st.column_config.NumberColumn(format="percent")},
        )
        st.caption(
            "Labels saved = 1 − variance(active)/variance(uniform): what uniform sampling of "
            "the same number of labels would have given, estimated from the labels so far "
            "(negative: active sampling lost). Effective sample size = (Σ 1/π)²/Σ 1/π²."
        )
