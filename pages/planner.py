"""Planner: how many human and metric labels for the difference you want to detect.

Inputs entered by hand or taken from a campaign (human count, metric count, ρ, η or the
calibration counts, α). The numbers — ε (the measurable difference), the 80%-power
difference, grids like von Däniken et al.'s Table 1, curves like their Figure 1, labels
needed for a target difference — come from estimators.planning; this page only draws them.
"""

from __future__ import annotations

import importlib.util

import streamlit as st

from annotation.exports import campaign_calibration
from db.campaigns import list_campaigns
from db.reads import campaign_id, fingerprint, read_campaign
from estimators.report import default_signatures, planning_inputs
from metrics.calibration_sets import CalibrationSetError
from pages.common import campaign_picker, engine, require_admin

require_admin()
st.title("Planner")
st.caption(
    "Plan a binary-label campaign with the von Däniken et al. (2022) model: human labels, "
    "metric labels with a metric of true-positive rate ρ and true-negative rate η."
)


@st.cache_data(max_entries=8, show_spinner=False)
def campaign_data(db: str, cid: int, key: tuple[int, ...]):  # type: ignore[no-untyped-def]
    return read_campaign(engine(), cid)


def from_campaign():  # type: ignore[no-untyped-def]
    """Planning inputs of the chosen campaign, or None (with the reason shown)."""
    summaries = list_campaigns(engine())
    name = campaign_picker([c.name for c in summaries], key="plan-campaign")
    if not name:
        return None
    cid = campaign_id(engine(), name)
    data = campaign_data(str(engine().url), cid, fingerprint(engine(), cid))
    counts = None
    sigs = default_signatures(data)
    if sigs:
        try:
            cal, _ = campaign_calibration(data, sigs[0])
            o = cal.overall
            counts = (o.tp, o.fn, o.tn, o.fp)
            st.caption(f"ρ, η from {data.metric(sigs[0]).metric} at threshold {cal.threshold:.4g}.")
        except CalibrationSetError as exc:
            st.caption(f"No calibration from this campaign yet ({exc}); enter ρ and η below.")
    else:
        st.caption("This campaign has no metric scores yet; enter ρ and η below.")
    inputs = planning_inputs(data, counts)
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
alpha = c3.number_input("α (adequacy rate)", min_value=0.01, max_value=0.99, step=0.05,
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

if importlib.util.find_spec("estimators.planning") is None:
    st.warning(
        "The planning estimators (estimators/planning.py: ε, the 80%-power difference, the "
        "human × metric grid, ε-vs-accuracy curves and labels needed for a target difference) "
        "are not in this build yet, so no numbers are shown rather than improvised ones."
    )
    st.stop()
