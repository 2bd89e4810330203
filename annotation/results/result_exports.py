"""The results tables a campaign owner takes away, from an
:class:`estimators.report.campaign_report.CampaignReport`: :func:`results_csv` (per-system
estimates, every
method with its interval, n_human, n_metric and metric), :func:`pairs_csv` (pairwise
verdicts), :func:`results_latex`; each carries the campaign's statistics settings (α, the
family, the equivalence margin, racing, the plan). :func:`campaign_results` reads a campaign
and builds its report (the CLI's path; the dashboard does the same with caching).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from annotation.campaign.statistics_settings import (
    EXPORT_COLUMNS,
    StatisticsSettings,
    read_at,
    read_at_text,
)
from annotation.results.exports import campaign_id_or_fail
from db import Engine
from db.reads.campaign import read_campaign
from estimators.report.campaign_report import CampaignReport, campaign_report, default_signatures
from estimators.report.columns import METHODS
from formats.writers import to_csv


def campaign_results(
    engine: Engine,
    campaign: str,
    *,
    label_kind: str | None = None,
    signatures: Sequence[str] | None = None,
    alpha: float | None = None,
) -> CampaignReport:
    """Read ``campaign`` and run :func:`estimators.report.campaign_report.campaign_report` on it."""
    data = read_campaign(engine, campaign_id_or_fail(engine, campaign))
    sigs = default_signatures(data) if signatures is None else list(signatures)
    return campaign_report(data, label_kind=label_kind, signatures=sigs, alpha=alpha)


RESULT_COLUMNS = [
    "label_kind",  # the human judgment the estimates are of (label, one_minus_hter, esa, da…)
    "system",
    "rank",
    "method",
    "estimate",
    "low",
    "high",
    "level",
    "se",
    "n_human",
    "n_metric",
    "metric",
    "valid_for_verdict",
    # the statistics settings the verdicts were read at
    *EXPORT_COLUMNS,
]
PAIR_COLUMNS = [
    "a",
    "b",
    "estimate",
    "low",
    "high",
    "n",
    "p_value",
    "p_holm",
    "verdict",
    # the three-way outcome (A better / B better / equivalent / undecided)
    "outcome",
    "labels_needed",
    # t* the live verdicts were tuned to (their design and estimand are settings columns)
    "t_star",
    # the statistics settings they were read at: α, the family (error_rate),
    # the equivalence margin ε, racing, the plan, the design and the estimand in force
    *EXPORT_COLUMNS,
]


def _ranks(report: CampaignReport) -> dict[str, str]:
    """System name → its rank set as text (empty when the monitor did not run)."""
    return {s.name: str(s.rank) for s in report.monitor.systems} if report.monitor else {}


def result_records(
    report: CampaignReport, settings: StatisticsSettings | None = None
) -> list[dict[str, Any]]:
    """Long format: one row per (system, method) estimate, with the statistics settings."""
    ranks = _ranks(report)
    read = read_at(report.monitor, settings)
    out = []
    for name in report.systems:
        for m in report.methods:
            r = report.estimates.get((name, m))
            if r is None:
                continue
            out.append(
                {
                    "label_kind": report.label_kind or "",
                    "system": name,
                    "rank": ranks.get(name, ""),
                    "method": METHODS[m],
                    "estimate": r.estimate,
                    "low": r.low,
                    "high": r.high,
                    "level": r.level,
                    "se": r.se,
                    "n_human": r.n_human,
                    "n_metric": r.n_metric,
                    "metric": report.method_metrics.get(m, ""),
                    "valid_for_verdict": r.valid_for_verdict,
                    **read,
                }
            )
    return out


def results_csv(report: CampaignReport, settings: StatisticsSettings | None = None) -> bytes:
    return to_csv(RESULT_COLUMNS, result_records(report, settings))


def pairs_csv(report: CampaignReport, settings: StatisticsSettings | None = None) -> bytes:
    """The pair verdicts, each row with the settings it was read at (:func:`read_at`): each
    column once, a setting the pair row also carries (design, estimand) in its settings
    column, the setting in force."""
    read = read_at(report.monitor, settings)
    return to_csv(PAIR_COLUMNS, [{**r, **read} for r in report.pair_rows()])


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def results_latex(
    report: CampaignReport, digits: int = 3, settings: StatisticsSettings | None = None
) -> str:
    """A booktabs table: systems × methods, each cell ``est [low, high]``, with rank sets,
    and the statistics settings in a comment and the caption.

    Systems in the order of their live estimate (best first) when the monitor ran.
    """
    methods = report.methods
    names = list(report.systems)
    if report.monitor is not None:
        est = {s.name: s.result.estimate for s in report.monitor.systems}
        names.sort(key=lambda n: -est[n] if math.isfinite(est[n]) else math.inf)
    ranks = _ranks(report)

    def fmt(x: float) -> str:
        return "--" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"

    level = next(iter(report.estimates.values())).level if report.estimates else 0.95
    head = ["System", "Rank", *(latex_escape(METHODS[m]) for m in methods)]
    read = read_at(report.monitor, settings)
    lines = [
        "% Generated by Tandem (estimators/report/campaign_report.py); "
        "intervals as stated in the caption.",
        "% Statistics settings: " + read_at_text(read),
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{l" + "c" * (len(head) - 1) + "}",
        r"\toprule",
        " & ".join(head) + r" \\",
        r"\midrule",
    ]
    for name in names:
        cells = [latex_escape(name), latex_escape(ranks.get(name, "")).replace("–", "--")]
        for m in methods:
            r = report.estimates.get((name, m))
            cells.append("--" if r is None else f"{fmt(r.estimate)} [{fmt(r.low)}, {fmt(r.high)}]")
        lines.append(" & ".join(cells) + r" \\")
    used = "; ".join(
        f"{latex_escape(METHODS[m])}: {latex_escape(report.method_metrics[m])}"
        for m in methods
        if m in report.method_metrics
    )
    caption = (
        f"Estimates with {level * 100:.0f}\\% intervals (anytime-valid column: simultaneous "
        f"confidence sequences), n = {report.n_labelled_outputs} labelled outputs."
    )
    if used:
        caption += f" Metrics: {used}."
    if read["alpha"] != "":
        caption += (
            f" Verdicts read at error rate $\\alpha = {read['alpha']:g}$ "
            f"({latex_escape(read['error_rate'])}), equivalence margin "
            f"$\\varepsilon = {read['equivalence_margin']:g}$."
        )
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        r"\caption{" + caption + "}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"
