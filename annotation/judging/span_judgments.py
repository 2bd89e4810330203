"""A span-mode judgment as the annotation log stores it: validated spans, the label and MQM
score derived from them (annotation.judging.spans), and the ESA score when the campaign asks.

The campaign's span settings live in ``campaigns.meta["spans"]`` (:class:`SpanConfig`;
absent = MQM core categories, WMT weights, no ESA score).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from annotation.judging.spans import ESA_RANGE, SpanConfig, SpanError, derive, parse_spans
from db import Engine
from db.campaign import campaigns as repo
from db.campaign.lifecycle import CampaignArchived
from db.engine import session_scope
from db.judging import log
from db.schema.vocabulary import Severity
from estimators.judgments.agreement import SpanAgreement, span_f1

META_KEY = "spans"
SETTING_KEY = "span_settings"  # its key in the campaign setting log


def config_of(s: Any, campaign_id: int) -> SpanConfig:
    """The span settings of a campaign (inside the caller's transaction)."""
    return SpanConfig.from_meta(repo.campaign_meta(s, campaign_id).get(META_KEY))


def campaign_config(engine: Engine, campaign_id: int) -> SpanConfig:
    with session_scope(engine) as s:
        return config_of(s, campaign_id)


class SettingsLocked(ValueError):
    """Span settings cannot change once labels exist (they decide the stored scores)."""


def set_campaign_config(engine: Engine, campaign_id: int, config: SpanConfig) -> None:
    """Store a campaign's span settings (a change is appended to the campaign's setting log);
    refused once any label exists, because the taxonomy and the weights decide the label
    and MQM score stored with every judgment. The CLI and the Annotators page both call it."""
    from db.queue import claim as dbq
    from db.queue import settings as dbset

    with dbq.queue_transaction(engine) as s:
        try:
            dbset.campaign_for_update(s, campaign_id)
        except CampaignArchived as exc:
            raise SettingsLocked(str(exc)) from None
        n = dbset.current_label_count(s, campaign_id)
        before = config_of(s, campaign_id)
        if n and config != before:
            raise SettingsLocked(
                f"the campaign has {n:,} labels already, scored with its current span "
                "settings; set categories, weights and the ESA score before the first label "
                "(or start a new campaign)"
            )
        if config != before:  # in the campaign's setting log, like every setting
            dbset.log_setting_changes(
                s, campaign_id, {SETTING_KEY: (before.to_meta(), config.to_meta())}
            )
        repo.set_campaign_meta_key(s, campaign_id, META_KEY, config.to_meta())


def undone_spans(engine: Engine, annotator_id: int, assignment_id: int) -> list[dict[str, Any]]:
    """The spans of the annotator's newest undone judgment of a slot ([] when none)."""
    with session_scope(engine) as s:
        return list(log.undone_spans(s, annotator_id, assignment_id) or [])


def check_esa(value: float | None, config: SpanConfig) -> float | None:
    if value is None:
        if config.ask_esa:
            raise SpanError("this campaign asks for an overall score from 0 to 100")
        return None
    if not config.ask_esa:
        raise SpanError("this campaign takes no overall score; mark error spans only")
    lo, hi = ESA_RANGE
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SpanError(f"the overall score is {value!r}, not a number from {lo:g} to {hi:g}")
    if not lo <= value <= hi:
        raise SpanError(f"the overall score is {value:g}; give a number from {lo:g} to {hi:g}")
    return float(value)


def judgment_fields(
    config: SpanConfig,
    shown: str,
    source: str,
    spans: Iterable[Mapping[str, Any]],
    esa_score: float | None = None,
) -> dict[str, Any]:
    """The annotation-log fields of one span judgment (``[]`` = "no errors"):
    ``label``, ``score`` (MQM), ``spans`` (JSON) and ``esa_score``. Raises SpanError."""
    parsed = parse_spans(spans, shown, source, config.categories)
    label, score = derive(parsed, config.weights)
    return {
        "label": label,
        "score": score,
        "spans": [p.to_json() for p in parsed],
        "esa_score": check_esa(esa_score, config),
    }


def span_agreement(engine: Engine, campaign_id: int) -> tuple[SpanAgreement, SpanAgreement]:
    """Character-level span F1 between the annotators of every output judged more than once
    (target spans only: omission marks in the source have no output characters), plain and
    severity-aware (estimators.judgments.agreement.span_f1)."""
    with session_scope(engine) as s:
        judgments = log.current_span_judgments(s, campaign_id)
    units: dict[tuple[str, str], list[list[tuple[int, int, bool]]]] = {}
    for j in judgments:
        marked = [
            (sp["start"], sp["end"], Severity(sp["severity"]) is not Severity.MINOR)
            for sp in j.spans
            if sp["side"] == "target"
        ]
        units.setdefault((j.system, j.seg_id), []).append(marked)
    grouped = list(units.values())
    return span_f1(grouped), span_f1(grouped, severity_aware=True)
