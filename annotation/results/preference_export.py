"""A preference campaign's judgments as Chatbot Arena's public battle dumps lay them out:
one row per current judgment with ``question_id`` (the item), ``model_a`` and ``model_b``
(the systems shown on the left and on the right), ``winner`` (``model_a``, ``model_b`` or
``tie``), ``judge`` (the annotator), ``shown_left`` (always ``model_a``), the source, both
outputs and their ids, the optional strength and reason, ``tstamp``, the seconds spent and
the pair's inclusion probability (weight an estimate by its inverse). Written by
formats.writers (CSV with the formula-cell guard marked reversible, JSONL, Parquet), so
formats.preference.parse reads the file back as the judgments given."""

from __future__ import annotations

from annotation.results.exports import campaign_id_or_fail
from db import Engine
from db.judging.log_export import preference_log
from formats.writers import to_delimited, to_jsonl, to_parquet

PREFERENCE_FORMATS = ("csv", "jsonl", "parquet")
PREFERENCE_COLUMNS = [
    "question_id",
    "model_a",
    "model_b",
    "winner",
    "judge",
    "shown_left",
    "source",
    "output_a",
    "output_b",
    "output_a_id",
    "output_b_id",
    "strength",
    "reason",
    "tstamp",
    "seconds",
    "inclusion_prob",
    "annotation_id",
]
PREFERENCE_TYPES = {c: "string" for c in PREFERENCE_COLUMNS} | {
    "seconds": "double",
    "inclusion_prob": "double",
    "annotation_id": "int64",
}


def export_preferences(engine: Engine, campaign: str, fmt: str) -> bytes:
    """The campaign's preference judgments as ``csv``, ``jsonl`` or ``parquet`` bytes (see
    the module docstring); a campaign without any gives the header only."""
    if fmt not in PREFERENCE_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(PREFERENCE_FORMATS)}")
    records = preference_log(engine, campaign_id_or_fail(engine, campaign))
    if fmt == "csv":
        return to_delimited(PREFERENCE_COLUMNS, records, ",", reversible=True)
    if fmt == "jsonl":
        return to_jsonl(records)
    return to_parquet(PREFERENCE_COLUMNS, records, PREFERENCE_TYPES)
