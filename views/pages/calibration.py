"""Calibration: how well each metric's binary verdict agrees with the human labels.

For a metric and threshold: ρ (true-positive rate) and η (true-negative rate) with Beta
credible intervals, overall and per system with the drift test, the confusion matrix, the
ROC curve, and the items behind each cell, for any stored metric (built-in or imported) or the
campaign's cross-fitted learned control ŷ. Exports and imports ρ/η calibration sets.
Numbers from metrics.calibration / metrics.calibration_sets; this page only draws.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotation.results.calibration import (
    calibration_export,
    campaign_calibration,
    import_calibration,
    with_learned_control,
)
from db.reads.campaign import fingerprint
from db.scores.calibration import applied_sets, remove_set
from db.scores.metric_scores import save_threshold
from estimators.fixed_n.controls import LEARNED
from estimators.report.campaign_report import default_signatures
from formats.calibration_file import CalibrationSetError
from formats.writers import MIME
from metrics.calibration_sets import drift, drifted
from metrics.charts import roc_chart
from metrics.imported import describe
from views.common import (
    admin_page,
    allowed,
    campaign_data,
    chosen_campaign,
    download,
    engine,
    literal,
    may_write,
)

admin_page("Calibration")
st.caption(
    "ρ = P(metric says adequate | human says adequate), η = P(metric says inadequate | human "
    "says inadequate), with 95% Beta credible intervals. They usually differ between "
    "systems, which is why the dashboard's von Däniken estimators calibrate per system."
)


@st.cache_data(max_entries=8, show_spinner="Fitting the learned control ŷ…")
def learned_data(db: str, cid: int, key: tuple[int, ...]):  # type: ignore[no-untyped-def]
    """The campaign with its cross-fitted ŷ as one more metric; fitted only when chosen."""
    return with_learned_control(campaign_data(db, cid, key))


def page_data(db: str, cid: int, key: tuple[int, ...], signature: str):  # type: ignore[no-untyped-def]
    return learned_data(db, cid, key) if signature == LEARNED else campaign_data(db, cid, key)


@st.cache_data(max_entries=16, show_spinner=False)
def calibrated(  # type: ignore[no-untyped-def]
    db: str, cid: int, key: tuple[int, ...], signature: str, threshold: float | None = None
):
    """campaign_calibration (the stored or Youden threshold when None), cached likewise."""
    data = page_data(db, cid, key, signature)
    return campaign_calibration(data, signature, threshold=threshold)


@st.cache_data(max_entries=16, show_spinner=False)
def calibration_set(  # type: ignore[no-untyped-def]
    db: str, cid: int, key: tuple[int, ...], name: str, signature: str, threshold: float | None
):
    """The set at ``threshold`` (None: the page's default, the stored or Youden threshold,
    recorded with its own method rather than as "manual"): built once per campaign state and
    threshold, not again at every click (a cell choice, a rerun)."""
    data = page_data(db, cid, key, signature)
    return calibration_export(
        engine(), name, signature, threshold=threshold, record=False, data=data
    )


def rate(r) -> str:  # type: ignore[no-untyped-def]
    if r.trials == 0:
        return "— (no items)"
    return f"{r.estimate:.3f} [{r.lower:.3f}, {r.upper:.3f}]"


def import_section(name: str, cid: int) -> None:
    st.subheader("Use a calibration set from another campaign")
    st.caption(
        'An imported set becomes this campaign\'s "ρ, η provided" prior for the von Däniken '
        "estimator (shown on the dashboard, never used for verdicts). It must come from the "
        "same metric signature as this campaign's scores."
    )
    ro = not may_write(cid)  # read once: each call asks the database for the grants
    if ro:
        st.caption("Read-only: importing or removing a calibration set needs an admin.")
    upload = st.file_uploader(
        "Calibration set (JSON)", type=["json"], key="cal-upload", disabled=ro
    )
    confirm = st.checkbox(
        "Use it even if it was measured on another language or kind of task",
        key="cal-confirm-task",
        disabled=ro,
        help="ρ and η differ between languages and tasks: an MT set is a poor prior for a "
        "summarisation campaign. Tick only if you know the set applies here.",
    )
    if (
        upload is not None
        and st.button("Import calibration set", key="cal-import", disabled=ro)
        and allowed(cid)
    ):
        try:
            import_calibration(engine(), name, upload.getvalue(), confirm_task_mismatch=confirm)
        except CalibrationSetError as exc:
            st.error(literal(exc))
        else:
            st.success(f"Imported '{literal(upload.name)}': the dashboard now shows it as a prior.")
    for stored in applied_sets(engine(), cid):
        tp, fn, tn, fp = stored.counts
        cols = st.columns([4, 1])
        cols[0].write(
            f"**{literal(stored.name)}** — `{stored.signature}`, threshold {stored.threshold:.4g}; "
            f"TP {tp}, FN {fn}, TN {tn}, FP {fp}"
        )
        if cols[1].button("Stop using", key=f"cal-remove-{stored.id}", disabled=ro) and allowed(
            cid
        ):
            remove_set(engine(), stored.id, cid)
            st.rerun()


chosen = chosen_campaign(key="cal-campaign")
if chosen is None:
    st.stop()
name, cid = chosen
db_url, key = str(engine().url), fingerprint(engine(), cid)
data = campaign_data(db_url, cid, key)

if not data.metrics:
    st.info(
        "No metric scores yet. Score the campaign first (the **Score** button on the "
        "**Campaigns** page, or import a metric's scores on the **Import** page); then each "
        "metric's agreement with the human labels appears here."
    )
    import_section(name, cid)
    st.stop()

labels = {m.signature: describe(m.metric, m.signature) for m in data.metrics}
labels[LEARNED] = "learned ŷ (cross-fitted from every metric of the campaign)"
default = default_signatures(data)[0]
signature = st.selectbox("Metric", list(labels), index=list(labels).index(default),
                         format_func=labels.get, key="cal-metric")  # fmt: skip
try:
    stored_cal, arrays = calibrated(db_url, cid, key, signature)
except CalibrationSetError as exc:
    reason = (
        "the learned control ŷ needs at least 10 binary labels"
        if signature == LEARNED and page_data(db_url, cid, key, signature).metric(LEARNED) is None
        else literal(exc)
    )
    st.info(
        f"Cannot calibrate yet: {reason}. ρ and η need outputs with a binary human label "
        "(adequate / inadequate) of both kinds; they appear as annotators label."
    )
    import_section(name, cid)
    st.stop()

if signature == LEARNED:
    st.caption(
        "ŷ predicts the binary label from every metric signature of the campaign; each "
        "labelled output's ŷ comes from a model that never saw its label (5 folds by item), "
        "so these rates are not an in-sample fit. ŷ belongs to this campaign's labels: its "
        "threshold is read here, not saved, and it makes no calibration set for reuse."
    )
info = page_data(db_url, cid, key, signature).metric(signature)
source = "stored for this campaign" if info.threshold is not None else "Youden-optimal"
threshold = st.number_input(
    f"Threshold ({'≥' if stored_cal.higher_is_better else '≤'} counts as adequate; default "
    f"{stored_cal.threshold:.4g}, {source})",
    value=float(stored_cal.threshold),
    format="%.4f",
    key=f"cal-threshold-{signature}",
)
cal = (
    stored_cal
    if threshold == stored_cal.threshold
    else calibrated(db_url, cid, key, signature, threshold)[0]
)
if st.button("Save this threshold for the campaign", key="cal-save",
             disabled=signature == LEARNED or info.threshold == cal.threshold
             or not may_write(cid)) and allowed(cid):  # fmt: skip
    save_threshold(engine(), cid, signature, cal.threshold, cal.higher_is_better, cal.method)
    st.success(f"Threshold {cal.threshold:.4g} saved; the dashboard uses it now.")

o = cal.overall
cols = st.columns(4)
cols[0].metric("ρ (true-positive rate)", f"{o.rho.estimate:.3f}",
               help=f"95% credible interval {rate(o.rho)}")  # fmt: skip
cols[1].metric("η (true-negative rate)", f"{o.eta.estimate:.3f}",
               help=f"95% credible interval {rate(o.eta)}")  # fmt: skip
cols[2].metric("Accuracy", f"{o.accuracy:.3f}")
cols[3].metric("Labelled outputs", f"{o.n:,}")
st.caption(f"Overall: ρ = {rate(o.rho)}, η = {rate(o.eta)} (estimate [95% interval]).")

left, right = st.columns(2)
with left:
    st.subheader("Confusion matrix")
    st.dataframe(
        pd.DataFrame(
            {"metric: adequate": [o.tp, o.fp], "metric: inadequate": [o.fn, o.tn]},
            index=["human: adequate", "human: inadequate"],
        ),
        width="stretch",
    )
    cell = st.radio("Items behind the cell", ["TP", "FN", "TN", "FP"], horizontal=True,
                    key="cal-cell",
                    captions=["both adequate", "metric misses", "both inadequate",
                              "metric too lenient"])  # fmt: skip
    # An untouched threshold is the default one: passed on as such, so the JSON says
    # "youden" (or the stored method) where the page used it, not "manual".
    chosen = None if cal is stored_cal else cal.threshold
    exported = calibration_set(db_url, cid, key, name, signature, chosen)
    rows = [r for r in exported.items if r["cell"] == cell]
    st.dataframe(pd.DataFrame(rows, columns=["item_id", "system", "metric_value", "human_label"]),
                 hide_index=True, width="stretch", height=240)  # fmt: skip
with right:
    st.subheader("ROC curve")
    st.altair_chart(roc_chart(cal), width="stretch")

st.subheader("Per system")
test = drift(arrays, cal)
st.dataframe(
    pd.DataFrame(
        [
            {"system": sysname, "TP": a.tp, "FN": a.fn, "TN": a.tn, "FP": a.fp,
             "ρ [95% CrI]": rate(a.rho), "η [95% CrI]": rate(a.eta)}
            for sysname, a in cal.per_system.items()
        ]
    ),
    hide_index=True,
    width="stretch",
)  # fmt: skip
if test:
    verdict = "differ between systems" if drifted(test) else "no evidence they differ"
    st.caption(
        f"Drift test (do ρ, η differ between systems?): p(ρ) = {test['p_rho']:.3g}, "
        f"p(η) = {test['p_eta']:.3g}, combined p = {test['p_value']:.3g} — {verdict}. "
        "A pooled ρ/η would bias the von Däniken estimate when they differ."
    )
else:
    st.caption("One system only: no drift test between systems.")

if signature == LEARNED:
    import_section(name, cid)
    st.stop()
st.subheader("Export this calibration set")
c1, c2 = st.columns(2)
download(c1, "Calibration set (JSON)", exported.json,
         f"{name}-{info.metric}-calibration.json", MIME["json"], key="cal-dl-json")  # fmt: skip
download(c2, "Items behind it (CSV)", exported.items_csv,
         f"{name}-{info.metric}-calibration-items.csv", MIME["csv"], key="cal-dl-csv")  # fmt: skip
import_section(name, cid)
