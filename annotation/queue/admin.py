"""The queue seen from the admin side: its status, the campaign's annotation settings (and
their log), and each annotator's work."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.queue import racing
from db import Engine
from db.campaign.campaigns import existing_systems
from db.campaign.context import document_count
from db.judging import annotator_stats as dbstats
from db.queue import active_rounds as dbrounds
from db.queue import claim as dbq
from db.queue import settings as dbset
from db.queue import slot_counts as dbcount
from db.schema.vocabulary import CampaignMode, Estimand, Sampling, documents_in_order
from estimators.sequences.designs import LiveDesign


@dataclass(frozen=True)
class QueueStatus:
    """A campaign's queue at a glance (all slots, attention checks included in ``total``)."""

    open: int
    claimed: int
    done: int
    skipped: int
    regular: int
    attention: int
    builds: int
    seed: int | None

    @property
    def total(self) -> int:
        return self.regular + self.attention


def queue_status(engine: Engine, campaign_id: int) -> QueueStatus:
    with dbq.queue_transaction(engine) as s:
        counts = dbcount.queue_counts(s, campaign_id)
        kinds = dbcount.kind_counts(s, campaign_id)
        settings = dbset.campaign_settings(s, campaign_id)
    return QueueStatus(
        open=counts[dbq.OPEN],
        claimed=counts[dbq.CLAIMED],
        done=counts[dbq.DONE],
        skipped=counts[dbq.SKIPPED],
        regular=kinds.get(dbq.REGULAR, 0),
        attention=kinds.get(dbq.ATTENTION, 0),
        builds=int((settings["meta"] or {}).get("queue_builds", 0)),
        seed=settings["queue_seed"],
    )


def queue_settings(engine: Engine, campaign_id: int) -> dict[str, Any]:
    """The campaign's annotation settings (mode, paired, overlap, attention_rate, …)."""
    with dbq.queue_transaction(engine) as s:
        values = dbset.campaign_settings(s, campaign_id)
    return {k: values[k] for k in dbset.QUEUE_SETTINGS}


def _preference_stays(stored: dict[str, Any], values: dict[str, Any]) -> None:
    """A preference campaign's queue holds pairs of outputs: its mode stays, the other
    modes do not become it, and it stays unpaired (each pair is claimed alone)."""
    was = CampaignMode(stored["mode"]).asks_preference
    if "mode" in values and CampaignMode(values["mode"]).asks_preference != was:
        raise ValueError(
            "a campaign becomes a preference campaign (or stops being one) only by a new "
            "import: its queue holds pairs of outputs, the other modes' single outputs"
        )
    if was and values.get("paired"):
        raise ValueError("a preference campaign stays unpaired: each of its slots is one pair")


def update_queue_settings(engine: Engine, campaign_id: int, **values: Any) -> None:
    """Change annotation settings. ``paired`` and ``overlap`` shape the next build only;
    ``attention_rate`` is capped at 0.5; ``claim_timeout_s`` is at least 30 s."""
    unknown = set(values) - set(dbset.QUEUE_SETTINGS)
    if unknown:
        raise ValueError(f"unknown settings {sorted(unknown)}")
    if "mode" in values and values["mode"] not in tuple(CampaignMode):
        raise ValueError("mode must be binary, post_edit or both")
    for key, lo, hi in (("overlap", 0.0, 1.0), ("attention_rate", 0.0, 0.5)):
        if key in values and not lo <= float(values[key]) <= hi:
            raise ValueError(f"{key} must be between {lo} and {hi}")
    if "claim_timeout_s" in values and int(values["claim_timeout_s"]) < 30:
        raise ValueError("claim_timeout_s must be at least 30 seconds")
    planned = values.get("planned_labels")
    if planned is not None and int(planned) < 1:
        raise ValueError("planned_labels must be a positive number of labels (or unset)")
    for key, kinds in (("estimand", Estimand), ("sampling", Sampling), ("live_design", LiveDesign)):
        if values.get(key) is not None and values[key] not in tuple(kinds):
            raise ValueError(f"{key} must be one of {', '.join(kinds)} (or unset)")
    tau = values.get("active_tau")
    if tau is not None and not 0.0 < float(tau) <= 1.0:
        raise ValueError("active_tau (the uniform share of active sampling) must be in (0, 1]")
    with dbq.queue_transaction(engine) as s:
        stored = dbset.campaign_settings(s, campaign_id)
        _preference_stays(stored, values)
        raced = racing.is_on(stored["meta"])
        if raced and (values.get("sampling") == Sampling.ACTIVE or values.get("paired") is False):
            raise ValueError(
                "racing is on: it needs uniform sampling and the paired design; switch racing "
                "off first"
            )
        if values.get("sampling") == Sampling.ACTIVE and documents_in_order(stored["meta"]):
            raise ValueError(
                "documents are judged in order: the queue draws whole documents, and active "
                "sampling draws single items; switch document order off first"
            )
        if values.get("sampling") == Sampling.ACTIVE:
            paired = values.get("paired", stored["paired"])
            if not paired:
                raise ValueError(
                    "active sampling draws items with all their systems' outputs: it needs "
                    "the paired design (set paired first)"
                )
        dbset.update_campaign_settings(s, campaign_id, values)
        if values.get("sampling") == Sampling.ACTIVE:
            # the queue's untouched tail is drawn in rounds from now on (a mixed history:
            # the labels so far keep π = 1, the monitor weights the rest)
            dbrounds.pend_untouched_tail(s, campaign_id)


def cost_shape(engine: Engine, campaign_id: int) -> dict[str, Any]:
    """What else shapes the checks' cost (annotation.campaign.quality.qc_cost): the document blocks
    when documents are judged in order, the outputs per screen in comparative mode."""
    from annotation.queue.build import per_screen

    with dbq.queue_transaction(engine) as s:
        stored = dbset.campaign_settings(s, campaign_id)
        meta = dict(stored["meta"] or {})
        blocks = None
        if documents_in_order(meta):
            docs = document_count(s, campaign_id)
            blocks = docs if stored["paired"] else docs * len(existing_systems(s, campaign_id))
        return {"blocks": blocks or None, "per_screen": per_screen(meta, stored["paired"])}


def setting_changes(engine: Engine, campaign_id: int) -> list[dbset.SettingChange]:
    """Every logged settings change of the campaign, oldest first, with the number of labels
    that existed then (``labels_before`` > 0: changed after looking at data)."""
    with dbq.queue_transaction(engine) as s:
        return dbset.setting_changes(s, campaign_id)


def annotator_overview(engine: Engine, campaign_id: int) -> list[dbstats.AnnotatorWork]:
    """Per annotator: current labels, skips, undos, seconds per item, attention-check pass
    rate, items held now (the admin's Annotators page and the dashboard)."""
    with dbq.queue_transaction(engine) as s:
        return dbstats.annotator_work(s, campaign_id)
