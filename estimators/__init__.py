"""Estimators: human labels and metric scores in, estimates, intervals and verdicts out
(numpy/scipy only; no storage, no drawing). Formulas and their sources are in each function's
docstring and in docs/statistics-notes.md.

The rooms, each importing only the rooms after it in this list:

- ``report/``: the dashboard's numbers (every estimator on a campaign, as tables);
- ``live/``: the live monitor, its verdicts, forecasts and the ranking;
- ``planning/``: detectable differences and labels needed;
- ``documents/``: documents as the sampling unit;
- ``fixed_n/``: fixed-n estimates (human-only, double sampling, von Däniken, control variates
  = PPI++, learned controls, data efficiency);
- ``judgments/``: agreement, annotator noise, z-scores, position bias;
- ``caches/``: what the monitor and the report carry between reads;
- ``data/``: a campaign as arrays (:class:`estimators.data.campaign.CampaignData`);
- ``sampling/``: active labelling;
- ``sequences/``: confidence sequences, betting, group-sequential designs;
- ``base/``: the result type, multiplicity, pair verdicts, scratch arrays.

Library surface the app does not call (kept on purpose: each is tested, most serve the
benchmarks or are the textbook baseline a default is compared with):
:func:`~estimators.fixed_n.human.binary_wilson`, :func:`~estimators.fixed_n.human.binary_z`,
:func:`~estimators.fixed_n.human.welch_difference`,
:func:`~estimators.fixed_n.control_variates.chaganty_mean`,
:func:`~estimators.fixed_n.control_variates.data_efficiency`,
:func:`~estimators.judgments.annotator_noise.annotator_noise_ratio`,
:func:`~estimators.fixed_n.vondaniken.metric_only_known`,
:func:`~estimators.fixed_n.vondaniken.metric_only_calibrated`,
:func:`~estimators.fixed_n.double_sampling.per_system_difference`,
:func:`~estimators.fixed_n.vondaniken.shared_rate`,
:func:`~estimators.planning.labels_needed.labels_still_needed_for`,
:func:`~estimators.sequences.confidence_sequences.naive_running_z` (the invalid "peeking"
interval, a negative control) and :func:`~estimators.base.multiple.bonferroni_cs`.
"""
