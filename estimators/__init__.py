"""Estimators: human labels + metric scores in, :class:`EstimateResult` out (numpy/scipy only).

Modules: :mod:`estimators.human` (human-only), :mod:`estimators.double_sampling` (the
default with a binary metric: per-system double sampling), :mod:`estimators.vondaniken`
(von Däniken's error-prone-metric model), :mod:`estimators.control_variates` (CV = PPI++),
:mod:`estimators.planning` (measurable difference, labels needed). Formulas and sources:
docs in each function and ../shared/docs/statistics.md.

Library surface the app does not call (kept on purpose: each is tested, most serve the
benchmarks or are the textbook baseline a default is compared with):
:func:`~estimators.human.binary_wilson`, :func:`~estimators.human.binary_z`,
:func:`~estimators.human.welch_difference`, :func:`~estimators.control_variates.chaganty_mean`,
:func:`~estimators.control_variates.ppi_paired_difference`,
:func:`~estimators.control_variates.data_efficiency`,
:func:`~estimators.annotator_noise.annotator_noise_ratio`,
:func:`~estimators.vondaniken.metric_only_known`,
:func:`~estimators.vondaniken.metric_only_calibrated`,
:func:`~estimators.double_sampling.per_system_difference`,
:func:`~estimators.vondaniken.shared_rate`,
:func:`~estimators.planning.labels_still_needed_for`,
:func:`~estimators.confidence_sequences.naive_running_z` (the invalid "peeking" interval, a negative
control) and :func:`~estimators.multiple.bonferroni_cs`.
"""

from estimators.annotator_noise import annotator_noise_ratio
from estimators.control_variates import (
    chaganty_mean,
    data_efficiency,
    optimal_lambda,
    ppi_mean,
    ppi_paired_difference,
    theoretical_data_efficiency,
)
from estimators.double_sampling import per_system, per_system_difference
from estimators.human import (
    binary_beta,
    binary_wilson,
    binary_z,
    mean_t,
    paired_difference,
    welch_difference,
)
from estimators.planning import (
    human_labels_needed,
    labels_still_needed,
    labels_still_needed_for,
    measurable_difference,
    min_metric_accuracy,
)
from estimators.result import MIN_LABELS_FOR_VERDICT, EstimateResult, critical_value, wald_interval
from estimators.vondaniken import (
    calibration_counts,
    drift_test,
    metric_only_calibrated,
    metric_only_known,
    mixed,
    per_system_posterior,
    shared_rate,
)

__all__ = [
    "MIN_LABELS_FOR_VERDICT",
    "EstimateResult",
    "annotator_noise_ratio",
    "binary_beta",
    "binary_wilson",
    "binary_z",
    "calibration_counts",
    "chaganty_mean",
    "critical_value",
    "data_efficiency",
    "drift_test",
    "human_labels_needed",
    "labels_still_needed",
    "labels_still_needed_for",
    "mean_t",
    "measurable_difference",
    "metric_only_calibrated",
    "metric_only_known",
    "min_metric_accuracy",
    "mixed",
    "optimal_lambda",
    "paired_difference",
    "per_system",
    "per_system_difference",
    "per_system_posterior",
    "ppi_mean",
    "ppi_paired_difference",
    "shared_rate",
    "theoretical_data_efficiency",
    "wald_interval",
    "welch_difference",
]
