"""Malformed scores files against a real database: every rejection is a CampaignFileError
naming the file, and every table's row count is unchanged (SQLite and PostgreSQL)."""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

import pytest
from sqlalchemy import Engine

from annotation.imports.importer import import_campaign
from annotation.imports.scores_import import import_scores
from formats.problems import CampaignFileError
from tests.annotation.imports.test_importer_fuzz import _damage_bytes, _delimited, _jsonl, _parquet
from tests.annotation.imports.test_importer_validation import table_counts

pytestmark = pytest.mark.slow  # Hypothesis over whole imports on both databases

FORMATS = ("csv", "tsv", "jsonl", "parquet")
COLUMNS = ["item_id", "system", "metric", "score", "higher_is_better", "version"]
N_ITEMS = 8
CAMPAIGN = "item_id,source,reference,system,output\n" + "".join(
    f"{i},s{i},r{i},{s},o{i}{s}\n" for i in range(N_ITEMS) for s in "AB"
)


def _rows(rng: random.Random, seed: int) -> list[dict[str, Any]]:
    metrics = [f"m{seed}", f"m{seed}x"][: rng.randint(1, 2)]
    rows = []
    for m in metrics:
        lower = rng.random() < 0.3
        for i in rng.sample(range(N_ITEMS), rng.randint(1, N_ITEMS)):
            for s in rng.sample("AB", rng.randint(1, 2)):
                rows.append({"item_id": str(i), "system": s, "metric": m,
                             "score": round(rng.gauss(0, 1), 4),
                             "higher_is_better": "false" if lower else rng.choice(["true", ""]),
                             "version": "v1"})  # fmt: skip
    return rows


def _mutate(rng: random.Random, columns: list[str], rows: list[dict[str, Any]]) -> str:
    kind = rng.choice(
        ["none"] * 6
        + ["unknown_item", "unknown_system", "bad_score", "nan", "inf", "empty_score", "dup",
           "bad_direction", "flip_direction", "bad_name", "builtin_name", "missing_column",
           "extra_column", "no_rows", "long_id", "other_version", "empty_key", "odd_value"]
    )  # fmt: skip
    r = rng.choice(rows)
    if kind == "unknown_item":
        r["item_id"] = "nope"
    elif kind == "unknown_system":
        r["system"] = "Z"
    elif kind == "bad_score":
        r["score"] = rng.choice(["abc", "1,5", "--1", "0x1g"])
    elif kind == "nan":
        r["score"] = rng.choice(["nan", "NaN"])
    elif kind == "inf":
        r["score"] = rng.choice(["inf", "-Infinity", "1e999"])
    elif kind == "empty_score":
        r["score"] = rng.choice(["", "  "])
    elif kind == "dup":
        rows.append(dict(r))
    elif kind == "bad_direction":
        r["higher_is_better"] = rng.choice(["maybe", "2", "up"])
    elif kind == "flip_direction":
        rows.append(dict(r, item_id=str(N_ITEMS - 1), system="B", higher_is_better="true"))
        rows.append(dict(r, item_id=str(N_ITEMS - 1), system="A", higher_is_better="false"))
    elif kind == "bad_name":
        r["metric"] = rng.choice(["a b", "x|y", "", "-lead", "é"])
    elif kind == "builtin_name":
        r["metric"] = rng.choice(["bleu", "chrf", "TER", "bertscore_f"])
    elif kind == "missing_column":
        columns.remove(rng.choice(COLUMNS[:4]))
    elif kind == "extra_column":
        columns.append("note")
    elif kind == "no_rows":
        rows.clear()
    elif kind == "long_id":
        r["item_id"] = "i" * 301
    elif kind == "other_version":
        rows.append(dict(r, version="v2", system="A" if r["system"] == "B" else "B"))
    elif kind == "empty_key":
        r[rng.choice(["item_id", "system"])] = ""
    elif kind == "odd_value":
        r["score"] = rng.choice([True, None, [1], {"a": 1}])
    return kind


def make_file(seed: int) -> tuple[bytes, str, str]:
    rng = random.Random(seed)
    fmt = FORMATS[seed % len(FORMATS)]
    columns = list(COLUMNS)
    rows = _rows(rng, seed)
    content = _mutate(rng, columns, rows)
    if fmt == "parquet":
        data = _parquet(columns, rows, rng)
    elif fmt == "jsonl":
        data = _jsonl(columns, rows, rng).encode()
    else:
        data = _delimited(columns, rows, "," if fmt == "csv" else "\t").encode()
    data, damage = _damage_bytes(rng, data, fmt)
    return data, f"scores{seed}.{fmt}", f"{fmt}/{content}/{damage}"


def run_fuzz(engine: Engine, seeds: range) -> Counter[str]:
    import_campaign(engine, CAMPAIGN.encode(), "c", filename="c.csv")
    outcome: Counter[str] = Counter()
    for seed in seeds:
        data, filename, what = make_file(seed)
        before = table_counts(engine)
        try:
            import_scores(engine, data, "c", filename=filename, max_mb=5)
        except CampaignFileError as exc:
            assert filename in str(exc), f"seed {seed} ({what}): message does not name the file"
            assert table_counts(engine) == before, f"seed {seed} ({what}) changed the database"
            outcome["rejected"] += 1
        except Exception as exc:
            pytest.fail(f"seed {seed} ({what}): {type(exc).__name__} escaped: {exc}")
        else:
            outcome["imported"] += 1
    return outcome


@pytest.mark.parametrize("n", [400])
def test_fuzz_scores_import(engine: Engine, n: int) -> None:
    started = time.perf_counter()
    outcome = run_fuzz(engine, range(n))
    print(f"\nscores fuzz {engine.dialect.name}: {dict(outcome)} in "
          f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    assert sum(outcome.values()) == n
    assert outcome["imported"] >= 20 and outcome["rejected"] >= 200  # both paths exercised
