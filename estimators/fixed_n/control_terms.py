"""The controls panel's per-system and per-pair terms
(estimators.fixed_n.controls.control_efficiency):
ρ between the judgment and a control, and the data efficiency PPI++ measures with it
(docs/statistics-notes.md §17), as functions of the rows they read, so estimators.caches.report can
carry them between reads."""

from __future__ import annotations

from estimators.base.result import MIN_LABELS_METRIC_ASSISTED
from estimators.fixed_n import control_variates as cv
from estimators.fixed_n.efficiency import correlation

#: A term not measured (too few labels or unlabelled outputs), unlike a measured None.
NO_DE = "not measured"


def system_terms(y, labelled, g, ok, ddof: int):  # type: ignore[no-untyped-def]
    """One system's ρ (judgment, control) and PPI++ data efficiency (or :data:`NO_DE`)."""
    lab, unl = labelled & ok, ok & ~labelled
    de = NO_DE
    if lab.sum() >= MIN_LABELS_METRIC_ASSISTED and unl.sum() >= 3:
        de = cv.ppi_mean(y[lab], g[lab], g[unl], ddof=ddof).diagnostics.get("de")
    return correlation(y[lab], g[lab]), de


def pair_terms(y_grid, labelled, g, ok, ddof: int, a: int, b: int):  # type: ignore[no-untyped-def]
    """One pair's ρ of the differences and paired PPI++ data efficiency (or :data:`NO_DE`)."""
    both = labelled[a] & labelled[b] & ok[a] & ok[b]
    rest = ok[a] & ok[b] & ~both
    d = y_grid[a, both] - y_grid[b, both]
    de = NO_DE
    if both.sum() >= MIN_LABELS_METRIC_ASSISTED and rest.sum() >= 3:
        res = cv.ppi_paired_difference(
            y_grid[a, both], y_grid[b, both], g[a, both], g[b, both],
            g[a, rest], g[b, rest], ddof=ddof,
        )  # fmt: skip
        de = res.diagnostics.get("de")
    return correlation(d, g[a, both] - g[b, both]), de
