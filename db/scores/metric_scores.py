"""Storage of automatic metric scores, BERTScore baselines, thresholds and calibration data.

The repository functions :mod:`metrics.scoring` and the pages call; the only module of the
metrics feature that imports SQLAlchemy. A score is stored once per (output, signature)
(unique constraint); inserting an existing pair is a no-op, so two concurrent scoring runs
cannot duplicate or overwrite scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import Engine, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from db.engine import session_scope
from db.schema.models import Campaign, Item, MetricBaseline, MetricScore, Output, System, Threshold

__all__ = [
    "IMPORTED_MARK",
    "CampaignInfo",
    "OutputText",
    "ScoreRow",
    "StoredBaseline",
    "StoredThreshold",
    "campaign_info",
    "campaign_signatures",
    "count_outputs",
    "get_baseline",
    "imported_score_rows",
    "imported_signatures",
    "insert_scores",
    "insert_scores_in",
    "item_references",
    "lock_campaign",
    "output_scores",
    "outputs_with_references",
    "save_baseline",
    "save_threshold",
    "scored_output_ids",
]

_INSERT_CHUNK = 5000
#: What marks the signature of an imported metric (:mod:`metrics.imported` builds them):
#: ``NAME|src:imported|version:…|higher:…|file:…|sha256:…``.
IMPORTED_MARK = "|src:imported|"


@dataclass(frozen=True)
class CampaignInfo:
    id: int
    name: str
    target_lang: str | None


@dataclass(frozen=True)
class OutputText:
    """An output with what reference-based metrics need."""

    output_id: int
    item_id: int
    system: str
    text: str
    reference: str | None


@dataclass(frozen=True)
class ScoreRow:
    output_id: int
    metric: str
    signature: str
    value: float | None


@dataclass(frozen=True)
class StoredBaseline:
    precision: float
    recall: float
    f1: float
    n_pairs: int
    seed: int


@dataclass(frozen=True)
class StoredThreshold:
    signature: str
    threshold: float
    higher_is_better: bool
    method: str


def campaign_info(engine: Engine, campaign: int | str) -> CampaignInfo | None:
    """A campaign by id or by name (None when there is none)."""
    cond = Campaign.id == campaign if isinstance(campaign, int) else Campaign.name == campaign
    with session_scope(engine) as s:
        q = select(Campaign.id, Campaign.name, Campaign.target_lang).where(cond)
        row = s.execute(q).first()
    return None if row is None else CampaignInfo(*row)


def outputs_with_references(
    engine: Engine, campaign_id: int, output_ids: Iterable[int] | None = None
) -> list[OutputText]:
    """Outputs of a campaign (all, or ``output_ids``) with their item's reference.

    Ordered by item then system, so the outputs that share a reference are adjacent.
    """
    q = (
        select(Output.id, Output.item_id, System.name, Output.text, Item.reference)
        .join(Item, Item.id == Output.item_id)
        .join(System, System.id == Output.system_id)
        .where(Item.campaign_id == campaign_id)
        .order_by(Output.item_id, Output.system_id)
    )
    wanted = None if output_ids is None else set(output_ids)
    with session_scope(engine) as s:
        rows = [OutputText(*r) for r in s.execute(q)]
    return rows if wanted is None else [r for r in rows if r.output_id in wanted]


def item_references(engine: Engine, campaign_id: int) -> list[str | None]:
    """Every item's reference (None where an item has none), in item order."""
    with session_scope(engine) as s:
        return list(
            s.scalars(
                select(Item.reference).where(Item.campaign_id == campaign_id).order_by(Item.id)
            )
        )


def scored_output_ids(engine: Engine, campaign_id: int, signature: str) -> set[int]:
    """Ids of the campaign's outputs that already have a score for ``signature``."""
    q = (
        select(MetricScore.output_id)
        .join(Output, Output.id == MetricScore.output_id)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == campaign_id, MetricScore.signature == signature)
    )
    with session_scope(engine) as s:
        return set(s.scalars(q))


def insert_scores(engine: Engine, rows: Sequence[ScoreRow]) -> int:
    """Store scores; pairs (output, signature) that exist already are left as they are.

    Returns the number of rows offered (not necessarily new).
    """
    if not rows:
        return 0
    with session_scope(engine) as s:
        insert_scores_in(s, rows)
    return len(rows)


def insert_scores_in(s: Session, rows: Sequence[ScoreRow]) -> None:
    """:func:`insert_scores` inside the caller's transaction (an import writes its outputs
    and their imported scores all or nothing)."""
    dialect = s.get_bind().dialect.name
    if dialect not in ("postgresql", "sqlite"):  # pragma: no cover - only these two are used
        raise ValueError(
            f"Tandem stores scores in SQLite or PostgreSQL; DATABASE_URL names {dialect}"
        )
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(MetricScore).on_conflict_do_nothing(index_elements=["output_id", "signature"])
    for start in range(0, len(rows), _INSERT_CHUNK):
        s.execute(
            stmt,
            [
                {
                    "output_id": r.output_id,
                    "metric": r.metric,
                    "signature": r.signature,
                    "value": r.value,
                }
                for r in rows[start : start + _INSERT_CHUNK]
            ],
        )


def lock_campaign(s: Session, campaign_id: int) -> bool:
    """Lock the campaign row for the rest of the transaction (PostgreSQL; SQLite's writers
    are serialised by BEGIN IMMEDIATE already); False when there is no such campaign."""
    q = select(Campaign.id).where(Campaign.id == campaign_id).with_for_update()
    return s.execute(q).first() is not None


def count_outputs(engine: Engine, campaign_id: int) -> int:
    """How many outputs a campaign has."""
    with session_scope(engine) as s:
        return count_outputs_in(s, campaign_id)


def count_outputs_in(s: Session, campaign_id: int) -> int:
    """:func:`count_outputs` in the caller's transaction."""
    q = (
        select(func.count())
        .select_from(Output)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == campaign_id)
    )
    return int(s.scalar(q) or 0)


def output_ids_of(s: Session, campaign_id: int, items: Iterable[str]) -> dict[tuple[str, str], int]:
    """(item external id, system name) → output id, for the outputs of ``items`` only (an
    import matches its rows a chunk at a time instead of loading every output)."""
    wanted = list(items)
    if not wanted:
        return {}
    rows = s.execute(
        select(Item.external_id, System.name, Output.id)
        .join(Output, Output.item_id == Item.id)
        .join(System, System.id == Output.system_id)
        .where(Item.campaign_id == campaign_id, Item.external_id.in_(wanted))
    )
    return {(ext, name): oid for ext, name, oid in rows}


def output_names(s: Session, output_ids: Iterable[int]) -> dict[int, tuple[str, str]]:
    """Output id → (item external id, system name)."""
    ids = list(output_ids)
    if not ids:
        return {}
    rows = s.execute(
        select(Output.id, Item.external_id, System.name)
        .join(Item, Item.id == Output.item_id)
        .join(System, System.id == Output.system_id)
        .where(Output.id.in_(ids))
    )
    return {oid: (ext, name) for oid, ext, name in rows}


def imported_score_rows(engine: Engine, campaign_id: int) -> list[tuple[str, str, str, str, float]]:
    """(item id, system, metric, signature, value) of every imported score of a campaign,
    ordered by metric, item and system (what a scores-file export writes)."""
    q = (
        select(Item.external_id, System.name, MetricScore.metric, MetricScore.signature,
               MetricScore.value)
        .join(Output, Output.id == MetricScore.output_id)
        .join(Item, Item.id == Output.item_id)
        .join(System, System.id == Output.system_id)
        .where(
            Item.campaign_id == campaign_id,
            MetricScore.signature.contains(IMPORTED_MARK, autoescape=True),
            MetricScore.value.is_not(None),
        )
        .order_by(MetricScore.metric, MetricScore.signature, Item.id, System.id)
    )  # fmt: skip
    with session_scope(engine) as s:
        return [tuple(r) for r in s.execute(q)]  # type: ignore[misc]


def imported_signatures(s: Session, campaign_id: int) -> dict[str, tuple[str, int]]:
    """signature → (metric name, number of scores) of the campaign's imported metrics."""
    q = (
        select(MetricScore.signature, MetricScore.metric, func.count())
        .join(Output, Output.id == MetricScore.output_id)
        .join(Item, Item.id == Output.item_id)
        .where(
            Item.campaign_id == campaign_id,
            MetricScore.signature.contains(IMPORTED_MARK, autoescape=True),
        )
        .group_by(MetricScore.signature, MetricScore.metric)
    )
    return {sig: (metric, int(n)) for sig, metric, n in s.execute(q)}


def output_scores(engine: Engine, output_ids: Iterable[int]) -> dict[int, list[ScoreRow]]:
    """All stored scores of some outputs (what the annotation page shows beside an item)."""
    ids = list(set(output_ids))
    out: dict[int, list[ScoreRow]] = {i: [] for i in ids}
    if not ids:
        return out
    with session_scope(engine) as s:
        for start in range(0, len(ids), 1000):
            q = (
                select(
                    MetricScore.output_id,
                    MetricScore.metric,
                    MetricScore.signature,
                    MetricScore.value,
                )
                .where(MetricScore.output_id.in_(ids[start : start + 1000]))
                .order_by(MetricScore.metric, MetricScore.id)
            )
            for r in s.execute(q):
                out[r[0]].append(ScoreRow(*r))
    return out


def campaign_signatures(engine: Engine, campaign_id: int) -> list[tuple[str, str, int]]:
    """(metric, signature, number of scores) of every signature scored in a campaign."""
    q = (
        select(MetricScore.metric, MetricScore.signature, func.count())
        .join(Output, Output.id == MetricScore.output_id)
        .join(Item, Item.id == Output.item_id)
        .where(Item.campaign_id == campaign_id)
        .group_by(MetricScore.metric, MetricScore.signature)
        .order_by(MetricScore.metric, MetricScore.signature)
    )
    with session_scope(engine) as s:
        return [(m, sig, int(n)) for m, sig, n in s.execute(q)]


def get_baseline(engine: Engine, campaign_id: int, model_signature: str) -> StoredBaseline | None:
    """The campaign's stored BERTScore rescale baseline for a model signature."""
    q = select(
        MetricBaseline.precision,
        MetricBaseline.recall,
        MetricBaseline.f1,
        MetricBaseline.n_pairs,
        MetricBaseline.seed,
    ).where(
        MetricBaseline.campaign_id == campaign_id,
        MetricBaseline.model_signature == model_signature,
    )
    with session_scope(engine) as s:
        row = s.execute(q).first()
    return None if row is None else StoredBaseline(*row)


def save_baseline(
    engine: Engine, campaign_id: int, model_signature: str, baseline: StoredBaseline
) -> StoredBaseline:
    """Store a baseline unless one exists; returns the stored one (first writer wins)."""
    dialect = engine.dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(MetricBaseline).on_conflict_do_nothing(
        index_elements=["campaign_id", "model_signature"]
    )
    with session_scope(engine) as s:
        s.execute(
            stmt,
            {
                "campaign_id": campaign_id,
                "model_signature": model_signature,
                "precision": baseline.precision,
                "recall": baseline.recall,
                "f1": baseline.f1,
                "n_pairs": baseline.n_pairs,
                "seed": baseline.seed,
            },
        )
    stored = get_baseline(engine, campaign_id, model_signature)
    assert stored is not None
    return stored


def save_threshold(
    engine: Engine,
    campaign_id: int,
    signature: str,
    threshold: float,
    higher_is_better: bool,
    method: str,
) -> StoredThreshold:
    """Set the binary-metric threshold of a signature in a campaign (replaces the old one).

    A threshold is a setting, not a judgment, so it is updated in place.
    """
    with session_scope(engine) as s:
        row = s.scalars(
            select(Threshold).where(
                Threshold.campaign_id == campaign_id, Threshold.signature == signature
            )
        ).first()
        if row is None:
            row = Threshold(campaign_id=campaign_id, signature=signature)
            s.add(row)
        row.threshold = float(threshold)
        row.higher_is_better = bool(higher_is_better)
        row.method = method
    return StoredThreshold(signature, float(threshold), bool(higher_is_better), method)


def item_sources(engine: Engine, campaign_id: int) -> dict[int, str]:
    """Item id → source text of a campaign's items (for the cheap text features)."""
    q = select(Item.id, Item.source).where(Item.campaign_id == campaign_id)
    with session_scope(engine) as s:
        return {i: src for i, src in s.execute(q)}
