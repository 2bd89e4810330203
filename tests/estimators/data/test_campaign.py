"""estimators.data.campaign: the rules every estimator shares, written once."""

from __future__ import annotations

import numpy as np

from estimators.data.campaign import (
    CampaignData,
    Judgments,
    LabelKind,
    available_label_kinds,
    binarise,
    default_label_kind,
)
from estimators.fixed_n.vondaniken import rates_from_counts


def _data(item, system, label, hter=None) -> CampaignData:  # type: ignore[no-untyped-def]
    n = len(item)
    nan = np.full(n, np.nan)
    j = Judgments(
        annotation_id=np.arange(n), item=np.array(item), system=np.array(system),
        annotator=np.zeros(n, int), label=np.array(label, float),
        score=nan, hter=nan if hter is None else np.array(hter, float), seconds=nan,
        position=np.arange(n, dtype=float), inclusion_prob=nan,
        created_at=np.zeros(n, dtype="datetime64[us]"),
    )  # fmt: skip
    return CampaignData(
        campaign_id=1, name="c", mode="binary", systems=["A", "B"], is_human=np.zeros(2, bool),
        item_ids=["i0", "i1", "i2"], output_ids=np.ones((2, 3), int), metrics=[], scores={},
        judgments=j, annotators=["a"],
    )  # fmt: skip


def test_first_judgment_per_output_skips_rows_without_the_kind() -> None:
    # rows: (A,i0) twice, (B,i0), (A,i1) without a label then with one, (B,i2)
    data = _data([0, 0, 0, 1, 1, 2], [0, 0, 1, 0, 0, 1], [1, 0, 1, np.nan, 0, 1])
    assert data.first_judgments(LabelKind.LABEL).tolist() == [0, 2, 4, 5]
    assert data.first_judgments("label").tolist() == [0, 2, 4, 5]  # plain strings work
    assert data.first_judgments(LabelKind.ONE_MINUS_HTER).size == 0


def test_label_kinds_and_defaults() -> None:
    data = _data([0, 1], [0, 1], [1, np.nan], hter=[np.nan, 0.25])
    kinds = available_label_kinds(data.judgments)
    assert kinds == [LabelKind.LABEL, LabelKind.ONE_MINUS_HTER]
    assert default_label_kind("binary", data.judgments) == "label"
    assert default_label_kind("post_edit", data.judgments) == "one_minus_hter"
    assert data.judgments.values("one_minus_hter")[1] == 0.75


def test_binarise_and_rates_from_counts() -> None:
    assert binarise([0.1, 0.5, 0.9], 0.5).tolist() == [False, True, True]
    assert binarise([0.1, 0.5, 0.9], 0.5, higher_is_better=False).tolist() == [True, True, False]
    rho, eta = rates_from_counts(80, 20, 30, 10)
    assert (float(rho), float(eta)) == (0.8, 0.75)
    rho, eta = rates_from_counts(np.array([1, 0]), np.array([1, 0]), np.array([0, 3]), 1)
    assert rho[0] == 0.5 and np.isnan(rho[1]) and eta.tolist() == [0.0, 0.75]
