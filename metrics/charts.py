"""Altair charts of the metrics feature (pages only display them)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from metrics.calibration import Calibration


def roc_chart(cal: Calibration, title: str = "ROC curve") -> alt.LayerChart:
    """The ROC curve of a calibration, the chance diagonal, and the chosen threshold.

    Tooltips give each point's threshold, TPR (ρ) and TNR (η); the chosen point is marked
    and labelled with its threshold and ρ/η credible intervals.
    """
    roc = cal.roc
    o = cal.overall
    chosen = _chosen_point(cal)
    diagonal = (
        alt.Chart(pd.DataFrame({"fpr": [0.0, 1.0], "tpr": [0.0, 1.0]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="fpr:Q", y="tpr:Q")
    )
    label = (
        alt.Chart(chosen)
        .mark_text(align="left", dx=8, dy=12, color="firebrick")
        .encode(x="fpr:Q", y="tpr:Q", text="label:N")
    )
    return alt.layer(diagonal, _curve_line(cal), _chosen_mark(chosen), label).properties(
        title=f"{title} (AUC {roc.auc:.3f}, n = {o.n})", width=360, height=360
    )


def _chosen_point(cal: Calibration) -> pd.DataFrame:
    """The chosen threshold's point with its ρ/η credible intervals and label."""
    o = cal.overall
    return pd.DataFrame(
        {
            "fpr": [1 - o.eta.estimate],
            "tpr": [o.rho.estimate],
            "threshold": [cal.threshold],
            "rho": [f"{o.rho.estimate:.3f} [{o.rho.lower:.3f}, {o.rho.upper:.3f}]"],
            "eta": [f"{o.eta.estimate:.3f} [{o.eta.lower:.3f}, {o.eta.upper:.3f}]"],
            "label": [f"t = {cal.threshold:.4g} ({cal.method})"],
        }
    )


def _curve_line(cal: Calibration) -> alt.Chart:
    """The ROC curve as a step line, with each point's threshold, ρ and η as tooltips."""
    roc = cal.roc
    curve = pd.DataFrame(
        {
            "fpr": roc.fpr,
            "tpr": roc.tpr,
            "tnr": 1 - roc.fpr,
            "threshold": [float(t) if abs(t) != float("inf") else None for t in roc.thresholds],
        }
    )
    x = alt.X("fpr:Q", title="false-positive rate (1 − η)", scale=alt.Scale(domain=[0, 1]))
    y = alt.Y("tpr:Q", title="true-positive rate (ρ)", scale=alt.Scale(domain=[0, 1]))
    return (
        alt.Chart(curve)
        .mark_line(interpolate="step-after")
        .encode(
            x=x,
            y=y,
            tooltip=[
                alt.Tooltip("threshold:Q", format=".4g"),
                alt.Tooltip("tpr:Q", title="ρ (TPR)", format=".3f"),
                alt.Tooltip("tnr:Q", title="η (TNR)", format=".3f"),
            ],
        )
    )


def _chosen_mark(chosen: pd.DataFrame) -> alt.Chart:
    """The chosen threshold's point, its credible intervals as tooltips."""
    return (
        alt.Chart(chosen)
        .mark_point(size=120, filled=True, color="firebrick")
        .encode(
            x="fpr:Q",
            y="tpr:Q",
            tooltip=[
                alt.Tooltip("threshold:Q", format=".4g"),
                alt.Tooltip("rho:N", title="ρ (TPR) [95% CrI]"),
                alt.Tooltip("eta:N", title="η (TNR) [95% CrI]"),
            ],
        )
    )
