"""Estimators: human labels + metric scores in, :class:`~estimators.result.EstimateResult` out
(numpy/scipy only). Import the modules (``from estimators import human``): this package
re-exports nothing. Formulas and sources: docs in each function and
../shared/docs/statistics.md.

Fixed-n estimates:
:mod:`~estimators.result` (the one result type), :mod:`~estimators.human` (human-only),
:mod:`~estimators.double_sampling` (the default with a binary metric: per-system double
sampling), :mod:`~estimators.vondaniken` and :mod:`~estimators.vondaniken_posterior` (von
Däniken's error-prone-metric model), :mod:`~estimators.control_variates` (CV = PPI++),
:mod:`~estimators.learned` and :mod:`~estimators.learned_models` (the cross-fitted learned
control ŷ), :mod:`~estimators.controls` (estimates with a chosen set of controls),
:mod:`~estimators.efficiency` (data efficiency), :mod:`~estimators.multiple` (several
systems: Holm, Bonferroni, rank sets), :mod:`~estimators.active` and
:mod:`~estimators.active_predictions` (active labelling), :mod:`~estimators.agreement`,
:mod:`~estimators.annotator_noise` and :mod:`~estimators.position_bias` (the judgments
themselves: agreement, rater noise, screen position).

Live (anytime-valid) monitoring:
:mod:`~estimators.sequential` (predictable increments), :mod:`~estimators.confidence_sequences`,
:mod:`~estimators.betting`, :mod:`~estimators.group_sequential`,
:mod:`~estimators.live_designs` (the designs a campaign can choose),
:mod:`~estimators.verdicts` (pair verdicts), :mod:`~estimators.monitor` with
:mod:`~estimators.monitor_pools`, :mod:`~estimators.monitor_analysis`,
:mod:`~estimators.monitor_forecast` and :mod:`~estimators.monitor_status`.

Planning: :mod:`~estimators.planning` (measurable difference, labels needed),
:mod:`~estimators.planning_inputs`, :mod:`~estimators.planning_tables`,
:mod:`~estimators.pool_fit`.

Documents as the sampling unit: :mod:`~estimators.clustered`,
:mod:`~estimators.document_evaluation`, :mod:`~estimators.document_planning`,
:mod:`~estimators.doc_monitor`, :mod:`~estimators.doc_simulation`.

The dashboard and the data: :mod:`~estimators.campaign` (a campaign as arrays),
:mod:`~estimators.report`, :mod:`~estimators.report_columns`, :mod:`~estimators.report_live`;
:mod:`~estimators.simulation` (synthetic pools with known truth).

Library surface the app does not call (kept on purpose: each is tested, most serve the
benchmarks or are the textbook baseline a default is compared with):
:func:`~estimators.human.binary_wilson`, :func:`~estimators.human.binary_z`,
:func:`~estimators.human.welch_difference`, :func:`~estimators.control_variates.chaganty_mean`,
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
