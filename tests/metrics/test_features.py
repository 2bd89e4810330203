"""Cheap text features (metrics/features.py): definitions, and storage through the scoring
pipeline on real SQLite and PostgreSQL."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from db.engine import session_scope
from db.reads.campaign import read_campaign
from db.schema.models import Item
from db.scores import metric_scores as store
from metrics.features import FEATURE_KEYS, FeaturesMetric, text_features
from metrics.registry import HIGHER_IS_BETTER, parse_metric_names
from metrics.scoring import score_campaign
from tests.metrics.conftest import make_campaign


def test_each_feature_on_hand_made_cases():
    f = text_features("The 3 cats cost 1,000 euros.", "Die 3 Katzen kosten 1.000 Euro.",
                      "Die 3 Katzen kosten 100 Euro.")  # fmt: skip
    assert f["num_mismatch"] == 2  # 1000 missing, 100 extra; '1,000' and '1.000' match
    assert f["src_len"] == 23 and f["out_len"] == 24
    assert f["log_len_ratio"] == math.log(25 / 27)
    assert f["copy_src"] == 0 and f["empty_out"] == 0
    copy = text_features("Hello  World", None, "hello world")
    assert copy["copy_src"] == 1 and copy["log_len_ratio"] == 0.0  # source stands in
    empty = text_features("Guten Tag", "Good day", "  ")
    assert empty["empty_out"] == 1 and empty["copy_src"] == 0 and empty["out_len"] == 0
    cjk = text_features("我有2只猫", "I have 2 cats", "我有两只猫")
    assert cjk["out_len"] == 5 and cjk["num_mismatch"] == 1


@given(st.text(), st.one_of(st.none(), st.text()), st.text())
def test_features_are_finite_for_any_text(src, ref, out):
    f = text_features(src, ref, out)
    assert set(f) == set(FEATURE_KEYS)
    assert all(math.isfinite(v) for v in f.values())


def test_registry_knows_the_features():
    assert parse_metric_names("chrf, num_mismatch") == ["chrf", "features"]
    assert HIGHER_IS_BETTER["num_mismatch"] is False
    sigs = FeaturesMetric().signatures()
    assert len(set(sigs.values())) == len(FEATURE_KEYS)


def test_features_are_stored_with_signatures_and_cached(engine):  # type: ignore[no-untyped-def]
    rows = [
        ("s1", "Es kostet 5 Euro.", "A", "Es kostet 6 Euro."),
        ("s1", "Es kostet 5 Euro.", "B", "It costs 5 euros."),
        ("s2", None, "A", "Ohne Referenz."),  # no reference: features still computed
        ("s2", None, "B", "   "),
    ]
    cid, ids = make_campaign(engine, rows)
    with session_scope(engine) as s:
        for item in s.scalars(select(Item).where(Item.campaign_id == cid)):
            item.source = {"s1": "It costs 5 euros.", "s2": "Without a reference."}[
                item.external_id
            ]
    report = score_campaign(engine, cid, "features", workers=1)
    assert all(r.n_scored == 4 for r in report.runs)
    got = store.output_scores(engine, ids.values())
    by = {key: {r.metric: r.value for r in got[oid]} for key, oid in ids.items()}
    assert by[("s1", "A")]["num_mismatch"] == 2
    assert by[("s1", "B")]["copy_src"] == 1
    assert by[("s2", "B")]["empty_out"] == 1
    data = read_campaign(engine, cid)
    assert {m.metric for m in data.metrics} == set(FEATURE_KEYS)
    again = score_campaign(engine, cid, "features", workers=1)
    assert all(r.n_scored == 0 and r.n_already == 4 for r in again.runs)
