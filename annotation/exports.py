"""What a campaign owner takes away: annotations, results tables, calibration items.

- :func:`export_annotations` — the annotation log (current judgments by default, or every
  row of the append-only log) with annotator, time and assignment position, as CSV, JSONL
  or Parquet.
- :func:`results_csv`, :func:`pairs_csv`, :func:`results_latex` — the dashboard's per-system
  estimates (every method with its interval, n_human, n_metric and metric) and pairwise
  verdicts, from an :class:`estimators.report.CampaignReport`.
- :func:`campaign_results` — read a campaign and build its report (the CLI's path; the
  dashboard does the same with caching).
- :func:`calibration_export` / :func:`import_calibration` — ρ/η calibration sets as JSON
  (schema in :mod:`metrics.calibration_sets`) plus the item-level CSV behind them; an
  import into another campaign becomes its "ρ, η provided" von Däniken prior, and is
  refused when the metric signature differs.

Every CSV cell goes through :func:`annotation.spreadsheet.neutralise` (formula injection:
cells starting with =, +, -, @ get a leading quote). JSONL and Parquet keep values as they
are: they are not opened by spreadsheet programs as formulas.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from annotation.spreadsheet import neutralise
from db.calibration import store_set
from db.reads import CampaignData, annotation_log, campaign_id, read_campaign
from db.scores import campaign_signatures
from estimators.report import METHODS, CampaignReport, campaign_report, default_signatures
from metrics import calibration_sets as cs
from metrics.calibration import Calibration, calibrate

ANNOTATION_FORMATS = ("csv", "jsonl", "parquet")
ANNOTATION_COLUMNS = [
    "annotation_id",
    "item_id",
    "system",
    "annotator",
    "kind",
    "label",
    "score",
    "hter",
    "post_edit",
    "skip_reason",
    "seconds",
    "created_at",
    "assignment_position",
    "inclusion_prob",
    "assignment_kind",
    "supersedes_id",
    "current",
]
MIME = {
    "csv": "text/csv",
    "jsonl": "application/jsonl",
    "parquet": "application/octet-stream",
    "tex": "application/x-tex",
    "json": "application/json",
}


class UnknownCampaign(KeyError):
    def __str__(self) -> str:
        return f"no campaign named {self.args[0]!r}"


def _cid(engine: Engine, campaign: str) -> int:
    cid = campaign_id(engine, campaign)
    if cid is None:
        raise UnknownCampaign(campaign)
    return cid


# ------------------------------------------------------------------------ generic writers


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return repr(value)
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def to_csv(columns: Sequence[str], records: Sequence[dict[str, Any]]) -> bytes:
    """RFC 4180 CSV, every cell neutralised against formula injection."""
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([neutralise(c) for c in columns])
    for r in records:
        writer.writerow([neutralise(_cell(r.get(c))) for c in columns])
    return buf.getvalue().encode("utf-8")


def to_jsonl(records: Sequence[dict[str, Any]]) -> bytes:
    lines = (json.dumps(r, ensure_ascii=False, default=str) for r in records)
    return "".join(line + "\n" for line in lines).encode("utf-8")


def to_parquet(columns: Sequence[str], records: Sequence[dict[str, Any]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({c: [r.get(c) for r in records] for c in columns})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


# ------------------------------------------------------------------------ annotations


def export_annotations(
    engine: Engine, campaign: str, fmt: str, *, current_only: bool = True
) -> bytes:
    """The campaign's annotations as ``csv``, ``jsonl`` or ``parquet`` bytes.

    One row per annotation: ids, item, system, annotator, kind (label/skip[/undo]), label,
    score, HTER, post-edit, skip reason, seconds, created_at (ISO 8601), the assignment's
    position in the random queue order and inclusion probability, whether it was an
    attention check, what it supersedes, and whether it is current.
    """
    if fmt not in ANNOTATION_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(ANNOTATION_FORMATS)}")
    records = annotation_log(engine, _cid(engine, campaign), current_only=current_only)
    if fmt == "csv":
        return to_csv(ANNOTATION_COLUMNS, records)
    if fmt == "jsonl":
        return to_jsonl(records)
    return to_parquet(ANNOTATION_COLUMNS, records)


# ------------------------------------------------------------------------ results


def campaign_results(
    engine: Engine,
    campaign: str,
    *,
    label_kind: str | None = None,
    signatures: Sequence[str] | None = None,
    alpha: float = 0.05,
) -> CampaignReport:
    """Read ``campaign`` and run :func:`estimators.report.campaign_report` on it."""
    data = read_campaign(engine, _cid(engine, campaign))
    sigs = default_signatures(data) if signatures is None else list(signatures)
    return campaign_report(data, label_kind=label_kind, signatures=sigs, alpha=alpha)


RESULT_COLUMNS = [
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
    "labels_needed",
]


def _ranks(report: CampaignReport) -> dict[str, str]:
    """System name → its rank set as text (empty when the monitor did not run)."""
    return {s.name: str(s.rank) for s in report.monitor.systems} if report.monitor else {}


def result_records(report: CampaignReport) -> list[dict[str, Any]]:
    """Long format: one row per (system, method) estimate."""
    ranks = _ranks(report)
    out = []
    for name in report.systems:
        for m in report.methods:
            r = report.estimates.get((name, m))
            if r is None:
                continue
            out.append(
                {
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
                }
            )
    return out


def results_csv(report: CampaignReport) -> bytes:
    return to_csv(RESULT_COLUMNS, result_records(report))


def pairs_csv(report: CampaignReport) -> bytes:
    return to_csv(PAIR_COLUMNS, report.pair_rows())


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


def results_latex(report: CampaignReport, digits: int = 3) -> str:
    """A booktabs table: systems × methods, each cell ``est [low, high]``, with rank sets.

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
    lines = [
        "% Generated by Tandem (estimators/report.py); intervals as stated in the caption.",
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
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        r"\caption{" + caption + "}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------ calibration sets


@dataclass(frozen=True)
class CalibrationExport:
    """A calibration set of one campaign: the ρ/η calibration, its JSON and item CSV."""

    calibration: Calibration
    payload: dict[str, Any]
    json: bytes
    items_csv: bytes
    items: list[dict[str, Any]]


def campaign_calibration(
    data: CampaignData,
    signature: str,
    *,
    threshold: float | None = None,
    method: str = "youden",
    level: float = 0.95,
) -> tuple[Calibration, cs.CalibrationArrays]:
    """ρ/η of ``signature`` on the campaign's binary labels (metrics.calibration).

    ``threshold`` None: the campaign's stored threshold, else the ``method``-optimal one
    (Youden); a given threshold is recorded as method "manual".
    Raises :class:`metrics.calibration_sets.CalibrationSetError` when the campaign lacks the
    labels or scores a calibration needs.
    """
    info = data.metric(signature)
    if info is None:
        raise cs.CalibrationSetError(f"campaign '{data.name}' has no scores for '{signature}'")
    arrays = cs.calibration_arrays(data, signature)
    if len(arrays) == 0:
        raise cs.CalibrationSetError(
            "no output has both a binary human label and this metric's score yet"
        )
    higher = info.higher_is_better
    if higher is None:
        from metrics.registry import HIGHER_IS_BETTER

        higher = HIGHER_IS_BETTER.get(info.metric, True)
    if threshold is None and info.threshold is not None:
        threshold, method = info.threshold, info.threshold_method or method
    elif threshold is not None:
        method = "manual"
    try:
        cal = calibrate(
            arrays.scores,
            arrays.labels,
            systems=arrays.systems,
            higher_is_better=higher,
            method=method,
            level=level,
            threshold=threshold,
        )
    except ValueError as exc:
        raise cs.CalibrationSetError(str(exc)) from None
    return cal, arrays


def calibration_export(
    engine: Engine,
    campaign: str,
    signature: str,
    *,
    threshold: float | None = None,
    method: str = "youden",
    name: str | None = None,
    record: bool = True,
    data: CampaignData | None = None,
) -> CalibrationExport:
    """The campaign's calibration set for ``signature`` as JSON and item-level CSV.

    With ``record`` the exported set is also stored (source campaign = this one).
    """
    data = data or read_campaign(engine, _cid(engine, campaign))
    cal, arrays = campaign_calibration(data, signature, threshold=threshold, method=method)
    metric = data.metric(signature).metric
    payload = cs.build_payload(
        name=name
        or f"{campaign}: {metric} {'≥' if cal.higher_is_better else '≤'} {cal.threshold:.4g}",
        metric=metric,
        signature=signature,
        calibration=cal,
        arrays=arrays,
        source_campaign=campaign,
    )
    items = cs.calibration_items(arrays, cal.threshold, cal.higher_is_better)
    if record:
        o = cal.overall
        store_set(
            engine,
            name=payload["name"],
            signature=signature,
            threshold=cal.threshold,
            higher_is_better=cal.higher_is_better,
            counts=(o.tp, o.fn, o.tn, o.fp),
            per_system=payload["per_system"],
            payload=payload,
            source_campaign_id=data.campaign_id,
        )
    return CalibrationExport(
        calibration=cal,
        payload=payload,
        json=cs.dumps(payload),
        items_csv=to_csv(cs.ITEM_COLUMNS, items),
        items=items,
    )


def import_calibration(engine: Engine, campaign: str, raw: bytes | str) -> int:
    """Use a calibration-set file as ``campaign``'s "ρ, η provided" prior; the stored id.

    Raises :class:`metrics.calibration_sets.CalibrationSetError` for an invalid file and
    :class:`metrics.calibration_sets.SignatureMismatch` when the campaign's scores do not
    carry the set's metric signature (the message names both).
    """
    cid = _cid(engine, campaign)
    cal = cs.parse(raw)
    cs.check_signature(cal, [(metric, sig) for metric, sig, _ in campaign_signatures(engine, cid)])
    return store_set(
        engine,
        name=cal.name,
        signature=cal.signature,
        threshold=cal.threshold,
        higher_is_better=cal.higher_is_better,
        counts=cal.counts,
        per_system=cal.per_system,
        payload=cal.payload,
        applied_campaign_id=cid,
    )
