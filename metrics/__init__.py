"""Automatic metrics: registry, computation, batch scoring, binary-metric calibration.

- :mod:`metrics.base` — the :class:`~metrics.base.Metric` interface every family implements.
- :mod:`metrics.sacrebleu_metrics` — sentence BLEU, chrF, chrF++, TER (sacrebleu).
- :mod:`metrics.bertscore` — BERTScore P/R/F (bert-score; offline MiniLM by default);
  :mod:`metrics.bertscore_model` finds its model offline and loads it once.
- :mod:`metrics.registry` — metric names → configured metrics, keys, directions.
- :mod:`metrics.scoring` — batch scoring of a campaign with storage (via
:mod:`db.scores.metric_scores`);
  its result is :mod:`metrics.score_report`.
- :mod:`metrics.scoring_job` / :mod:`metrics.scoring_estimate` — scoring as a background
  job, and its time estimate.
- :mod:`metrics.hter` — HTER of an output against its post-edit.
- :mod:`metrics.calibration` / :mod:`metrics.charts` — thresholds, ρ/η, the ROC chart.

Importing this package is cheap: torch and transformers load only when BERTScore runs.
"""
