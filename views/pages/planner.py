"""Planner: how many human and metric labels for the difference you want to detect.

Inputs entered by hand or taken from a campaign (human count, metric count, ρ, η or the
calibration counts, the adequacy rate). The numbers — the measurable difference, the 80%-power
difference, grids like von Däniken et al.'s Table 1, curves like their Figure 1, labels
needed for a target difference — come from estimators.planning.labels_needed and its neighbours
(planning_tables, planning_inputs, pool_fit, document_planning); this page only draws them.
"""

from __future__ import annotations

from dataclasses import replace

import altair as alt
import pandas as pd
import streamlit as st

from annotation.campaign.live_plan import forecast_planned_labels
from annotation.results.calibration import campaign_calibration
from estimators.planning.documents import document_plan, document_pool_fit
from estimators.planning.inputs import planning_inputs
from estimators.planning.labels_needed import (
    PERFECT_METRIC,
    PlannedMetric,
    human_labels_needed,
    measurable_difference,
    min_metric_accuracy,
)
from estimators.planning.pool_fit import pool_fit
from estimators.planning.tables import (
    FIGURE1_ACCURACY,
    FIGURE1_METRIC,
    TABLE1_HUMANS,
    TABLE1_METRIC,
    calibration_rates,
    epsilon_grid,
    epsilon_vs_accuracy,
)
from estimators.report.campaign_report import default_signatures
from formats.calibration_file import CalibrationSetError
from formats.writers import MIME, to_csv
from views.common import (
    chosen_campaign,
    current_campaign_data,
    download,
    literal,
    require_admin,
)

require_admin()
st.title("Planner")
st.caption(
    "Plan a binary-label campaign with the von Däniken et al. (2022) model: human labels, "
    "metric labels with a metric of true-positive rate ρ and true-negative rate η."
)


def from_campaign():  # type: ignore[no-untyped-def]
    """Planning inputs of the chosen campaign, or None (with the reason shown)."""
    chosen = chosen_campaign(key="plan-campaign")
    if chosen is None:
        return None
    _, cid = chosen
    data = current_campaign_data(cid)
    counts = None
    sigs = default_signatures(data)
    if sigs:
        try:
            cal, _ = campaign_calibration(data, sigs[0])
            o = cal.overall
            counts = (o.tp, o.fn, o.tn, o.fp)
            st.caption(f"ρ, η from {data.metric(sigs[0]).metric} at threshold {cal.threshold:.4g}.")
        except CalibrationSetError as exc:
            st.caption(
                f"No calibration from this campaign yet ({literal(exc)}); enter ρ and η below."
            )
    else:
        st.caption("This campaign has no metric scores yet; enter ρ and η below.")
    inputs = planning_inputs(data, counts)
    st.session_state["plan-documents"] = document_plan(data)  # None: segments are the unit
    if inputs.alpha_hat is None:
        st.caption("No binary labels yet: α is a guess below.")
    return inputs


source = st.radio("Inputs", ["Enter them", "Take them from a campaign"], horizontal=True,
                  key="plan-source")  # fmt: skip
taken = from_campaign() if source == "Take them from a campaign" else None
# new inputs (another campaign, new labels) must replace what the widgets hold
sfx = "manual" if taken is None else str(abs(hash(taken)))

c1, c2, c3 = st.columns(3)
n_human = c1.number_input("Human labels per system", min_value=0, step=50,
                          value=taken.n_human if taken else 200, key=f"plan-nh-{sfx}")  # fmt: skip
n_metric = c2.number_input("Metric labels per system", min_value=0, step=500,
                           value=taken.n_metric if taken else 1000,
                           key=f"plan-nm-{sfx}")  # fmt: skip
alpha = c3.number_input("Adequacy rate (share judged adequate)", min_value=0.01,
                        max_value=0.99, step=0.05,
                        value=round(taken.alpha_hat, 3) if taken and taken.alpha_hat else 0.6,
                        key=f"plan-alpha-{sfx}")  # fmt: skip
known = st.toggle("ρ and η known exactly (otherwise: uncertain, from calibration counts)",
                  value=not (taken and taken.calibration), key=f"plan-known-{sfx}")  # fmt: skip
d1, d2, d3, d4 = st.columns(4)
if known:
    rho = d1.number_input("ρ (TPR)", 0.0, 1.0, value=round(taken.rho, 3) if taken and taken.rho
                          else 0.8, step=0.01, key=f"plan-rho-{sfx}")  # fmt: skip
    eta = d2.number_input("η (TNR)", 0.0, 1.0, value=round(taken.eta, 3) if taken and taken.eta
                          else 0.8, step=0.01, key=f"plan-eta-{sfx}")  # fmt: skip
    calibration = None
else:
    tp, fn, tn, fp = taken.calibration if taken and taken.calibration else (80, 20, 80, 20)
    calibration = (
        d1.number_input("TP", 0, value=int(tp), key=f"plan-tp-{sfx}"),
        d2.number_input("FN", 0, value=int(fn), key=f"plan-fn-{sfx}"),
        d3.number_input("TN", 0, value=int(tn), key=f"plan-tn-{sfx}"),
        d4.number_input("FP", 0, value=int(fp), key=f"plan-fp-{sfx}"),
    )
    rho = eta = None


if known:
    n_cal = None
    if rho + eta <= 1:
        st.warning("With ρ + η ≤ 1 the metric is no better than chance (or inverted).")
else:
    try:
        rho, eta, n_cal = calibration_rates(*calibration)
    except ValueError as exc:
        st.warning(f"These calibration counts do not give ρ and η: {literal(exc)}.")
        st.stop()
    st.caption(
        f"ρ̂ = {rho:.3f}, η̂ = {eta:.3f} from {n_cal:,} calibration items; their uncertainty "
        "is part of every number below (planned as if α of the items were positive)."
    )
metric = PlannedMetric(rho, eta, n_cal)  # with the adequacy rate α, for every number


@st.cache_data(max_entries=64, show_spinner=False)
def differences(n_h: int, n_m: int, metric: PlannedMetric, alpha: float) -> tuple[float, float]:
    """ε and the 80%-power difference for these counts (cached on the inputs)."""
    return (
        measurable_difference(n_h, n_m, metric, alpha),
        measurable_difference(n_h, n_m, metric, alpha, power=0.8),
    )


@st.cache_data(max_entries=32, show_spinner=False)
def grid(metric: PlannedMetric, alpha: float, power: float | None):  # type: ignore[no-untyped-def]
    return epsilon_grid(TABLE1_HUMANS, TABLE1_METRIC, metric, alpha, power=power)


def accuracies(n_cal: int | None) -> tuple[float, ...]:
    """Steps of 0.025 in accuracy; 0.05 when ρ, η are uncertain (each point costs ~4 ms)."""
    return FIGURE1_ACCURACY if n_cal is None else FIGURE1_ACCURACY[::2]


@st.cache_data(max_entries=32, show_spinner=False)
def curves(alpha: float, n_h: int, n_cal: int | None, power: float | None):  # type: ignore[no-untyped-def]
    return epsilon_vs_accuracy(accuracies(n_cal), FIGURE1_METRIC, alpha, n_h, n_cal, power=power)


@st.cache_data(max_entries=64, show_spinner=False)
def solve(
    target: float, n_h: int, n_m: int, metric: PlannedMetric, alpha: float, power: float | None
) -> tuple[int | None, float | None, float]:
    """Human labels needed, minimum accuracy, and what a perfect metric would give."""
    best = measurable_difference(n_h, n_m, PERFECT_METRIC, alpha, power=power)  # None: ε
    return (
        human_labels_needed(target, n_m, metric, alpha, power=power),
        min_metric_accuracy(target, n_m, alpha, n_h, power=power),
        best,
    )


def csv(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV like the other exports, with plain-ASCII column names."""
    ascii_names = {"ε": "epsilon", "80%-power difference": "difference at 80% power",
                   "accuracy (ρ = η)": "accuracy (rho = eta)"}  # fmt: skip
    frame = frame.rename(columns=ascii_names)
    return to_csv(list(frame.columns), frame.to_dict("records"))


n_h, n_m = int(n_human), int(n_metric)
alpha = float(alpha)
eps, detect = differences(n_h, n_m, metric, alpha)
st.subheader("What these labels can tell apart")
m1, m2 = st.columns(2)
m1.metric("Measurable difference", f"{eps:.4f}")
m2.metric("80%-power difference", f"{detect:.4f}")
st.caption(
    f"Two systems with an adequacy rate of {alpha:g} rated like this are told apart (95%, "
    f"two-sided) when their adequacy rates differ by more than the measurable difference "
    f"{eps:.4f}; a true gap of exactly that size is found only about half the time, a gap "
    f"of {detect:.4f} four times in five."
)

st.subheader("Labels for a target difference")
t1, t2 = st.columns(2)
target = t1.number_input("Target difference", min_value=0.0001, max_value=1.0, value=0.05,
                         step=0.005, format="%.4f", key="plan-target")  # fmt: skip
at_power = t2.toggle(
    "Detect it with 80% power (otherwise: measurable difference = target)", key="plan-target-power"
)
power = 0.8 if at_power else None
humans_needed, accuracy_needed, perfect = solve(float(target), n_h, n_m, metric, alpha, power)
docs = st.session_state.get("plan-documents") if taken is not None else None
s1, s2 = st.columns(2)
if humans_needed is None:
    s1.metric("Human labels per system needed", "unreachable")
    s1.warning(f"Not reachable with up to 10,000,000 human labels per system ({n_m:,} metric "
               "labels): choose a larger target.")  # fmt: skip
elif docs is not None and humans_needed:  # documents judged in order: plan in documents
    s1.metric("Complete documents per system needed", f"{docs.documents_for(humans_needed):,}")
    s1.caption(docs.sentence(humans_needed))
else:
    s1.metric("Human labels per system needed", f"{humans_needed:,}")
    s1.caption(f"The {n_m:,} metric labels alone reach the target." if humans_needed == 0
               else f"With {n_m:,} metric labels per system; you entered {n_h:,}.")  # fmt: skip
if accuracy_needed is None:
    s2.metric("Minimum metric accuracy (ρ = η)", "unreachable")
    s2.warning(f"Unreachable with {n_m:,} metric and {n_h:,} human labels per system: even a "
               f"perfect metric gives {perfect:.4f} > {target:.4f}. Add metric or human "
               "labels, or choose a larger target.")  # fmt: skip
elif accuracy_needed <= 0.5:
    s2.metric("Minimum metric accuracy (ρ = η)", "any")
    s2.caption(f"The {n_h:,} human labels alone reach the target.")
else:
    s2.metric("Minimum metric accuracy (ρ = η)", f"{accuracy_needed:.3f}")
    s2.caption(f"With {n_m:,} metric and {n_h:,} human labels per system, ρ and η known "
               "exactly (as in the paper's Figure 1).")  # fmt: skip

show = "80%-power difference" if at_power else "measurable difference"
st.subheader(f"{show} by human and metric labels")
table = grid(metric, alpha, power)
long = pd.DataFrame(
    [{"human labels": h, "metric labels": m, show: table[i, j]}
     for i, h in enumerate(TABLE1_HUMANS) for j, m in enumerate(TABLE1_METRIC)]
)  # fmt: skip
wide = long.pivot(index="human labels", columns="metric labels", values=show)
wide.columns = [f"{m:,} metric" for m in wide.columns]
fmt = st.column_config.NumberColumn(format="%.4f")
st.dataframe(wide, column_config=dict.fromkeys(wide.columns, fmt), width="stretch")
heat = alt.Chart(long).encode(
    x=alt.X("metric labels:O", title="metric labels per system"),
    y=alt.Y("human labels:O", title="human labels per system"),
)
st.altair_chart(
    heat.mark_rect().encode(
        color=alt.Color(f"{show}:Q", scale=alt.Scale(type="log", scheme="viridis")),
        tooltip=["human labels", "metric labels", alt.Tooltip(f"{show}:Q", format=".4f")],
    ),
    width="stretch",
)
meta = {"adequacy rate": alpha, "rho": rho, "eta": eta, "calibration items": n_cal or ""}
download(st, "Grid (CSV)", lambda: csv(long.assign(**meta)), "planner-grid.csv", MIME["csv"],
         key="dl-plan-grid")  # fmt: skip
st.caption("Like von Däniken et al. (2022) Table 1, for this metric and adequacy rate. "
           "The top-left cell (no labels at all) is 1.")  # fmt: skip

st.subheader(f"{show} against metric accuracy")
lines = curves(alpha, n_h, n_cal, power)
points = pd.DataFrame(
    [{"accuracy (ρ = η)": a, "metric labels": m, show: lines[i, j]}
     for i, a in enumerate(accuracies(n_cal)) for j, m in enumerate(FIGURE1_METRIC)]
)  # fmt: skip
chart = (
    alt.Chart(points)
    .mark_line(point=True)
    .encode(
        x=alt.X("accuracy (ρ = η):Q", scale=alt.Scale(domain=[0.55, 1.0])),
        y=alt.Y(f"{show}:Q", scale=alt.Scale(type="log"), title=f"{show} (log scale)"),
        color=alt.Color("metric labels:O", title="metric labels"),
        tooltip=["accuracy (ρ = η)", "metric labels", alt.Tooltip(f"{show}:Q", format=".4f")],
    )
)
rule = (
    alt.Chart(pd.DataFrame({"target": [float(target)]}))
    .mark_rule(strokeDash=[4, 4])
    .encode(y="target:Q")
)
st.altair_chart(chart + rule, width="stretch")
cal_note = f", accuracy estimated from {n_cal:,} calibration items" if n_cal else ", ρ, η known"
st.caption(f"Like von Däniken et al. (2022) Figure 1: {n_h:,} human labels per system, "
           f"adequacy rate {alpha:g}{cal_note}. Dashed: the target difference.")  # fmt: skip
curve_meta = {"adequacy rate": alpha, "human labels": n_h, "calibration items": n_cal or ""}
download(st, "Curves (CSV)", lambda: csv(points.assign(**curve_meta)),
         "planner-accuracy-curves.csv", MIME["csv"], key="dl-plan-curves")  # fmt: skip

st.subheader("Many systems: does the plan fit the pool?")
st.caption(
    "The live verdicts compare every pair of systems, so each pair is tested at Holm's "
    "first level α/m (m pairs). The labels per system a pair needs then grow with the "
    "number of systems, and can exceed the items there are."
)
f1, f2, f3, f4 = st.columns(4)
n_sys = int(f1.number_input("Systems", min_value=2, max_value=200, value=2, key="fit-systems"))
unit = "Documents" if docs is not None else "Items"
pool_size = int(f2.number_input(f"{unit} in the pool", min_value=1, step=50,
                                value=docs.pool_docs if docs is not None else 1000,
                                key="fit-pool" if docs is None else "fit-pool-docs"))  # fmt: skip
fit_alpha = float(f3.number_input("Error rate α (family-wise)", min_value=0.001, max_value=0.5,
                                  value=0.05,
                                  step=0.01, format="%.3f", key="fit-alpha"))  # fmt: skip
fit_eps = float(f4.number_input("Measurable difference (and margin ε)", min_value=0.001,
                                max_value=1.0, value=0.10, step=0.01, format="%.3f",
                                key="fit-eps"))  # fmt: skip
planned = forecast_planned_labels(n_sys, fit_eps, fit_alpha)
if docs is not None:  # documents judged in order: the plan and the pool count documents
    planned = docs.documents_for(planned)
    fit = document_pool_fit(replace(docs, pool_docs=pool_size), n_sys, planned, fit_alpha)
else:
    fit = pool_fit(n_sys, pool_size, planned, fit_alpha)
g1, g2, g3 = st.columns(3)
g1.metric(f"Planned {'documents' if docs is not None else 'labels'} per system for it",
          f"{planned:,}")  # fmt: skip
g2.metric("Smallest measurable difference this pool settles", f"{fit.smallest_difference:.3f}")
g3.metric("Smallest equivalence margin ε for equal systems", f"{fit.smallest_margin:.3f}")
for i, line in enumerate(fit.sentences(fit_eps)):
    (st.warning if i == 0 and not fit.fits else st.caption)(line)  # first: the plan's overflow
st.caption(
    "Racing (Statistics page) stops labelling a system once all its pairs are settled; a "
    "larger ε settles equal pairs sooner. Measured on WMT21 en-de (13 systems, 529 items, "
    "`bench/racing_bench.py`, 3 orders): every pair settled with 0.95× the labels of uniform "
    "drawing at ε = 0.10, 0.94× at 0.15, 0.89× at 0.20; on Chaganty CNN/DM (4 systems) 0.84×."
)
