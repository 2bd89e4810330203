"""Storage of ρ/η calibration sets (exported from a campaign, or imported into one).

A set exported from campaign A is stored with ``source_campaign_id = A`` (a record of what
was shared); a set imported into campaign B as its "ρ, η provided" prior is stored with
``applied_campaign_id = B`` and read back by :func:`db.reads.campaign.read_campaign`. Validation
and the signature check are in :mod:`metrics.calibration_sets`; this module only stores.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, select

from db.engine import session_scope
from db.schema.models import CalibrationSet

__all__ = ["StoredCalibrationSet", "applied_sets", "remove_set", "store_set"]


@dataclass(frozen=True)
class StoredCalibrationSet:
    id: int
    name: str
    signature: str
    threshold: float
    higher_is_better: bool
    counts: tuple[int, int, int, int]
    per_system: dict[str, Any]
    source_campaign_id: int | None
    applied_campaign_id: int | None
    payload: dict[str, Any]
    created_at: datetime


def store_set(
    engine: Engine,
    *,
    name: str,
    signature: str,
    threshold: float,
    higher_is_better: bool,
    counts: tuple[int, int, int, int],
    per_system: dict[str, Any],
    payload: dict[str, Any],
    source_campaign_id: int | None = None,
    applied_campaign_id: int | None = None,
) -> int:
    """Insert one calibration set; its id."""
    tp, fn, tn, fp = (int(c) for c in counts)
    with session_scope(engine) as s:
        row = CalibrationSet(
            name=name[:200],
            signature=signature,
            threshold=float(threshold),
            higher_is_better=bool(higher_is_better),
            tp=tp,
            fn=fn,
            tn=tn,
            fp=fp,
            per_system=per_system,
            payload=payload,
            source_campaign_id=source_campaign_id,
            applied_campaign_id=applied_campaign_id,
        )
        s.add(row)
        s.flush()
        return int(row.id)


def _stored(c: CalibrationSet) -> StoredCalibrationSet:
    return StoredCalibrationSet(
        id=c.id,
        name=c.name,
        signature=c.signature,
        threshold=c.threshold,
        higher_is_better=c.higher_is_better,
        counts=(c.tp, c.fn, c.tn, c.fp),
        per_system=dict(c.per_system or {}),
        source_campaign_id=c.source_campaign_id,
        applied_campaign_id=c.applied_campaign_id,
        payload=dict(c.payload or {}),
        created_at=c.created_at,
    )


def applied_sets(engine: Engine, campaign_id: int) -> list[StoredCalibrationSet]:
    """Sets imported into a campaign as its "ρ, η provided" prior, oldest first."""
    with session_scope(engine) as s:
        rows = s.scalars(
            select(CalibrationSet)
            .where(CalibrationSet.applied_campaign_id == campaign_id)
            .order_by(CalibrationSet.id)
        ).all()
        return [_stored(c) for c in rows]


def remove_set(engine: Engine, set_id: int, campaign_id: int) -> bool:
    """Stop using an imported set in ``campaign_id`` (deletes the row); False if absent."""
    with session_scope(engine) as s:
        result = s.execute(
            delete(CalibrationSet).where(
                CalibrationSet.id == set_id, CalibrationSet.applied_campaign_id == campaign_id
            )
        )
        return bool(result.rowcount)
