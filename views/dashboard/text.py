"""The dashboard's wording and number formats: why a column is empty, intervals, the labels
a pair still needs."""

from __future__ import annotations

import math

from estimators.base.result import MIN_LABELS_FOR_VERDICT, Unavailable, reason_text
from estimators.sequences.designs import LiveDesign

#: Why an estimate column is empty, in the user's words.
UNAVAILABLE = {
    Unavailable.NO_METRIC: "no metric chosen (or no metric scores yet)",
    Unavailable.NO_THRESHOLD: "no threshold stored for the chosen metric(s): set one on the "
    "Calibration page",
    Unavailable.NEEDS_BINARY: "needs binary labels",
    Unavailable.CENSUS: "every output is labelled (a census): metric scores of unlabelled "
    "outputs are what control variates use, so they cannot add anything here",
    Unavailable.PROVIDED_NOT_SCORED: "the imported calibration set's metric has no scores in "
    "this campaign",
    Unavailable.MONITOR_REFUSED: "these labels allow no anytime-valid verdicts (see the note "
    "above)",
    Unavailable.TOO_FEW_LABELS: "too few labels for this method",
    Unavailable.NO_SPREAD: "every label is the same, so a normal-theory interval would have "
    "zero width",
    Unavailable.OUT_OF_RANGE: "the interval lies outside the possible range",
}


def fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def interval(r) -> str:  # type: ignore[no-untyped-def]
    if not r.available:
        # below the method's minimum n (or no spread): say so, never a made-up interval
        return f"{r.n_human} label(s): {reason_text(r)}"
    if not (math.isfinite(r.low) and math.isfinite(r.high)) or (
        r.method.startswith(tuple(LiveDesign)) and r.n_human < MIN_LABELS_FOR_VERDICT
    ):
        # no interval yet: say so rather than "1.000 [—, —]" from two labels
        return f"{r.n_human} label(s); interval from {MIN_LABELS_FOR_VERDICT}"
    return f"{fmt(r.estimate)} [{fmt(r.low)}, {fmt(r.high)}]"


#: What the "more items" column holds, by PairStatus.needed_basis.
NEEDED_TEXT = {
    "pool exhausted": "none left: every item of the pair is labelled",
    "plan spent": "none: the planned maximum is reached (the design's α is spent)",
}


def needed_text(p) -> str:  # type: ignore[no-untyped-def]
    if p.needed_basis == "floor":
        return f"{p.labels_needed:,} to reach the {MIN_LABELS_FOR_VERDICT}-label floor"
    if p.labels_needed is None:
        return NEEDED_TEXT.get(p.needed_basis, "not within this pool and plan")
    return f"{p.labels_needed:,}"


def rounded(x: float | None, digits: int = 3) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), digits)
