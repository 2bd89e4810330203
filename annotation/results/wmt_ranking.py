"""WMT's ranking of a campaign beside Tandem's valid clusters (the dashboard's panel,
``cli.py export-ranking --procedure wmt25|wmt24`` and ``cli.py wmt-ranking``).

The numbers are estimators.report.wmt's; this module reads what they need: the campaign's
arrays and report, and for WMT24 each item's domain (the campaign file's ``domain``
column, db.reads.domains)."""

from __future__ import annotations

from collections.abc import Sequence

from annotation.results.exports import campaign_id_or_fail
from db import Engine
from db.reads.campaign import read_campaign
from db.reads.domains import item_domains
from estimators.data.campaign import CampaignData
from estimators.report.campaign_report import CampaignReport, campaign_report, default_signatures
from estimators.report.wmt import WmtComparison, wmt_comparison

#: ``--procedure`` values: Tandem's own table and WMT's two.
PROCEDURES = ("tandem", "wmt25", "wmt24")


def comparison(
    engine: Engine,
    data: CampaignData,
    report: CampaignReport,
    procedure: str = "wmt25",
    settings: dict | None = None,
    kind: str | None = None,
) -> WmtComparison | None:
    """WMT's ``procedure`` on the judgments of ``kind`` (default: the kind ``report``
    analysed), beside the report's live clusters; ``None`` without live verdicts or a kind."""
    kind = kind or report.label_kind
    if report.monitor is None or kind is None:
        return None
    domains = None
    if procedure == "wmt24":
        by_id = item_domains(engine, data.campaign_id)
        domains = [by_id.get(t) for t in data.item_ids] if by_id else None
    return wmt_comparison(
        data, kind, report.monitor, higher_is_better=report.higher_is_better,
        procedure=procedure, domains=domains, settings=settings,
    )  # fmt: skip


def campaign_comparison(
    engine: Engine,
    campaign: str,
    procedure: str = "wmt25",
    *,
    label_kind: str | None = None,
    signatures: Sequence[str] | None = None,
    alpha: float | None = None,
    settings: dict | None = None,
) -> tuple[CampaignReport, WmtComparison | None]:
    """Read ``campaign``, build its report and WMT's table beside it (the CLI's path)."""
    data = read_campaign(engine, campaign_id_or_fail(engine, campaign))
    sigs = default_signatures(data) if signatures is None else list(signatures)
    report = campaign_report(data, label_kind=label_kind, signatures=sigs, alpha=alpha)
    return report, comparison(engine, data, report, procedure, settings)
