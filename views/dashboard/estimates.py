"""The dashboard's per-system estimates table, with the details of every estimate."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from estimators.base.result import reason_text
from estimators.report.columns import METHODS
from views.dashboard.text import UNAVAILABLE, interval


def draw_estimates(report) -> None:  # type: ignore[no-untyped-def]
    st.subheader("Per-system estimates")
    methods = report.methods
    rows = []
    ranks = {s.name: str(s.rank) for s in report.monitor.systems} if report.monitor else {}
    for sysname in report.systems:
        row = {"system": sysname, "rank set": ranks.get(sysname, "")}
        for m in methods:
            r = report.estimates.get((sysname, m))
            row[METHODS[m]] = "—" if r is None else interval(r)
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    used = [f"**{METHODS[m]}**: {report.method_metrics[m]}" for m in methods
            if m in report.method_metrics]  # fmt: skip
    if used:
        st.caption("Metrics used — " + "; ".join(used))
    st.caption(
        "Estimate [95% interval]. The anytime-valid column holds at any moment you look "
        "(simultaneous over systems); the others are fixed-n intervals for reading, not for "
        "stopping. Rank sets: plausible ranks from the Holm-adjusted verdicts."
    )
    for m, why in report.unavailable.items():
        st.caption(f"{METHODS.get(m, m)}: not shown — {UNAVAILABLE[why]}.")
    with st.expander("Details: every estimate with n_human and n_metric"):
        detail = [
            {
                "system": s,
                "method": METHODS[m],
                "estimate": r.estimate,
                "low": r.low,
                "high": r.high,
                "n_human": r.n_human,
                "n_metric": r.n_metric,
                "metric": report.method_metrics.get(m, ""),
                "counts toward verdicts": r.valid_for_verdict,
                "no number because": reason_text(r),
            }
            for (s, m), r in report.estimates.items()
        ]
        st.dataframe(
            pd.DataFrame(detail), hide_index=True, width="stretch",
            column_config={c: st.column_config.NumberColumn(format="%.3f")
                           for c in ("estimate", "low", "high")},
        )  # fmt: skip
