"""The calibration-set file: portable JSON of one binary metric's ρ/η calibration.

Read (:func:`parse`, which validates) and written (:func:`dumps`); what the numbers mean and
how a set is built and checked against a campaign is in :mod:`metrics.calibration_sets`.

Format (``schema_version`` 1)::

    {"schema": "tandem.calibration_set", "schema_version": 1,
     "name": ..., "metric": "chrf", "signature": "chrf|nrefs:1|…",
     "threshold": 52.3, "higher_is_better": true, "threshold_method": "youden",
     "counts": {"tp": 80, "fn": 20, "tn": 30, "fp": 10},
     "posteriors": {"rho": {"distribution": "beta", "a": 81, "b": 21, "mean": …,
                            "interval": [lo, hi], "level": 0.95},
                    "eta": {…}},
     "per_system": {"sysA": {"tp": …, "fn": …, "tn": …, "fp": …,
                             "rho": [est, lo, hi], "eta": [est, lo, hi]}, …},
     "drift_test": {"p_rho": …, "p_eta": …, "p_value": …},
     "source": {"campaign": "…", "n_items": 160, "created_at": "…", "tandem": "…"}}

The item-level rows behind it (item, system, metric value, metric verdict, human label,
cell) are a separate CSV with the columns :data:`ITEM_COLUMNS`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from formats.cells import text_problem

SCHEMA = "tandem.calibration_set"
SCHEMA_VERSION = 1
COUNT_KEYS = ("tp", "fn", "tn", "fp")
#: Columns of the item-level CSV behind a set (metrics.calibration_sets.calibration_items).
ITEM_COLUMNS = ["item_id", "system", "metric_value", "metric_positive", "human_label", "cell"]


#: Limits of a calibration-set file (a real one is a few kilobytes: counts, posteriors and a
#: row of counts per system). Checked before the file is stored, so nothing is written.
MAX_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 8  # the format nests 4 deep (posteriors → rho → interval → number)
MAX_SYSTEMS = 1000
#: Counts are stored in 32-bit INTEGER columns (and a count beyond this is no real set).
MAX_COUNT = 2**31 - 1
#: Text columns' lengths (db.schema.models.CalibrationSet).
MAX_NAME, MAX_SIGNATURE = 200, 500


class CalibrationSetError(ValueError):
    """A calibration-set file that cannot be used, with the reason in plain words."""


@dataclass(frozen=True)
class CalibrationSet:
    """A validated calibration set (what :func:`parse` returns)."""

    name: str
    metric: str
    signature: str
    threshold: float
    higher_is_better: bool
    tp: int
    fn: int
    tn: int
    fp: int
    per_system: dict[str, dict[str, int]]
    payload: dict[str, Any]

    @property
    def counts(self) -> tuple[int, int, int, int]:
        return (self.tp, self.fn, self.tn, self.fp)


def dumps(payload: dict[str, Any]) -> bytes:
    """The payload as UTF-8 JSON (NaN written as null: strict JSON readers reject NaN)."""

    def clean(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [clean(x) for x in v]
        return v

    return (json.dumps(clean(payload), ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CalibrationSetError(
            f"{where} must be a non-negative whole number, not {_shown(value)}"
        )
    if value > MAX_COUNT:
        raise CalibrationSetError(f"{where} is {value:.3g}, over the limit of {MAX_COUNT:,}")
    return value


def _shown(value: Any) -> str:
    """A value for a message, cut short (a hostile file may hold a megabyte string)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"


def _counts(obj: Any, where: str) -> dict[str, int]:
    if not isinstance(obj, dict):
        raise CalibrationSetError(f"{where} must be an object with {', '.join(COUNT_KEYS)}")
    missing = [k for k in COUNT_KEYS if k not in obj]
    if missing:
        raise CalibrationSetError(f"{where} lacks {', '.join(missing)}")
    return {k: _count(obj[k], f"{where}.{k}") for k in COUNT_KEYS}


def parse(data: bytes | str | dict[str, Any]) -> CalibrationSet:
    """Read and validate a calibration set; :class:`CalibrationSetError` says what is wrong.

    Checks the schema name and version, types, non-negative counts, that per-system counts
    add up to the overall counts, and that the stated Beta posteriors are the ones the
    counts imply (a hand-edited count would otherwise silently disagree with its ρ, η).
    """
    payload = _load(data)
    _check_tree(payload)
    _check_schema(payload)
    for key, limit in (("metric", MAX_SIGNATURE), ("signature", MAX_SIGNATURE)):
        if not isinstance(payload.get(key), str) or not payload[key]:
            raise CalibrationSetError(f"{key} must be a non-empty string")
        if len(payload[key]) > limit:
            raise CalibrationSetError(
                f"{key} has {len(payload[key]):,} characters; the limit is {limit}"
            )
    if payload.get("name") is not None and (
        not isinstance(payload["name"], str) or len(payload["name"]) > MAX_NAME
    ):
        raise CalibrationSetError(f"name must be a string of at most {MAX_NAME} characters")
    threshold = _threshold(payload.get("threshold"))
    higher = payload.get("higher_is_better")
    if not isinstance(higher, bool):
        raise CalibrationSetError("higher_is_better must be true or false")
    counts = _counts(payload.get("counts"), "counts")
    if sum(counts.values()) == 0:
        raise CalibrationSetError("counts are all zero: the set has no labelled items")
    per_system = _per_system(payload.get("per_system", {}), counts)
    _check_posteriors(payload.get("posteriors"), counts)
    name = payload.get("name") or f"{payload['metric']} ≥ {threshold:g}"
    return CalibrationSet(
        name=str(name),
        metric=payload["metric"],
        signature=payload["signature"],
        threshold=float(threshold),
        higher_is_better=higher,
        per_system=per_system,
        payload=payload,
        **counts,
    )


def _load(data: bytes | str | dict[str, Any]) -> Any:
    if isinstance(data, dict):
        return data
    if len(data) > MAX_BYTES:
        raise CalibrationSetError(
            f"the file has {len(data):,} bytes; a calibration set is at most {MAX_BYTES:,} "
            "(a real one is a few kilobytes): is this the right file?"
        )
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CalibrationSetError(f"not a JSON file: {exc}") from None
    except RecursionError:  # json's C decoder recurses per nesting level
        raise CalibrationSetError(
            f"the JSON nests deeper than a calibration set does (at most {MAX_DEPTH} levels)"
        ) from None


def _check_tree(payload: Any) -> None:
    """Depth, size and text of the whole document, walked without recursion: nesting of at
    most :data:`MAX_DEPTH`, no NUL character in any key or string (PostgreSQL's JSON and
    text columns cannot hold one), and integers within 64 bits."""
    stack: list[tuple[Any, int, str]] = [(payload, 1, "the file")]
    while stack:
        node, depth, where = stack.pop()
        if depth > MAX_DEPTH:
            raise CalibrationSetError(
                f"{where} nests deeper than a calibration set does (at most {MAX_DEPTH} levels)"
            )
        if isinstance(node, dict):
            for key, value in node.items():
                if text_problem(key) is not None:
                    raise CalibrationSetError(f"a key in {where} {text_problem(key)[0]}")
                stack.append((value, depth + 1, key))
        elif isinstance(node, list):
            stack.extend((value, depth + 1, f"{where}[{k}]") for k, value in enumerate(node))
        elif isinstance(node, str) and text_problem(node) is not None:
            raise CalibrationSetError(f"{where} {text_problem(node)[0]}")
        elif isinstance(node, int) and not isinstance(node, bool) and abs(node) >= 2**63:
            raise CalibrationSetError(f"{where} is {_shown(node)}: a whole number out of range")


def _check_schema(payload: Any) -> None:
    if not isinstance(payload, dict) or payload.get("schema") != SCHEMA:
        raise CalibrationSetError(f'not a Tandem calibration set (expected "schema": "{SCHEMA}")')
    version = payload.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise CalibrationSetError("schema_version is missing or not a whole number")
    if version > SCHEMA_VERSION:
        raise CalibrationSetError(
            f"schema_version {version} was written by a newer Tandem; this one reads up to "
            f"{SCHEMA_VERSION}"
        )
    if version < 1:
        raise CalibrationSetError(f"unknown schema_version {version}")


def _threshold(threshold: Any) -> float:
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not math.isfinite(threshold)
    ):
        raise CalibrationSetError(f"threshold must be a finite number, not {_shown(threshold)}")
    return threshold


def _per_system(per_raw: Any, counts: dict[str, int]) -> dict[str, dict[str, int]]:
    """Per-system counts, which must add up to the overall ``counts``."""
    if not isinstance(per_raw, dict):
        raise CalibrationSetError("per_system must be an object keyed by system name")
    if len(per_raw) > MAX_SYSTEMS:
        raise CalibrationSetError(
            f"per_system lists {len(per_raw):,} systems; the limit is {MAX_SYSTEMS:,}"
        )
    per_system = {str(k): _counts(v, f"per_system[{k!r}]") for k, v in per_raw.items()}
    if per_system:
        sums = {k: sum(v[k] for v in per_system.values()) for k in COUNT_KEYS}
        if sums != counts:
            raise CalibrationSetError(
                f"per-system counts add up to {sums}, but the overall counts are {counts}"
            )
    return per_system


def _check_posteriors(post: Any, counts: dict[str, int]) -> None:
    """Stated posteriors (optional) must be the Beta ones the counts imply."""
    if post is None:
        return
    expect = {
        "rho": (counts["tp"] + 1, counts["fn"] + 1),
        "eta": (counts["tn"] + 1, counts["fp"] + 1),
    }
    for rate, (a, b) in expect.items():
        p = post.get(rate) if isinstance(post, dict) else None
        if not isinstance(p, dict) or (p.get("a"), p.get("b")) != (a, b):
            raise CalibrationSetError(
                f"posteriors.{rate} should be Beta({a}, {b}) for these counts; the file "
                "was edited or is damaged"
            )
