"""Per-annotator z-scores (estimators.judgments.zscores): the formula, and a simulation with known
truth
where annotators differ in offset and scale (WMT's reason for z-scores)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from estimators.data.campaign import CampaignData, Judgments, LabelKind
from estimators.fixed_n.controls import evaluate
from estimators.judgments.zscores import annotator_zscores, zscored_campaign
from estimators.live.monitor import CampaignMonitor

ALPHA = 0.05


def test_z_is_the_score_standardised_by_its_annotators_mean_and_sd() -> None:
    y = np.array([80.0, 60.0, 70.0, 40.0, 50.0, np.nan, 90.0, 33.0, 33.0])
    ann = np.array([0, 0, 0, 1, 1, 1, 2, 3, 3])
    z = annotator_zscores(y, ann)
    a0 = (y[:3] - 70.0) / 10.0  # mean 70, sd (ddof 1) 10
    a1 = (y[3:5] - 45.0) / math.sqrt(50.0)
    np.testing.assert_allclose(z[:5], [*a0, *a1])
    assert np.isnan(z[5])  # no score
    assert np.isnan(z[6])  # annotator 2 has one judgment: no sd
    np.testing.assert_array_equal(z[7:], [0.0, 0.0])  # all equal: sd 0 → z 0
    # scale-free: the ESA score ÷ 100 gives the same z
    np.testing.assert_allclose(annotator_zscores(y / 100, ann), z, atol=1e-12, equal_nan=True)
    with pytest.raises(ValueError, match="differ"):
        annotator_zscores(y, ann[:-1])


def _campaign(rng: np.random.Generator, delta: float, n_items: int = 80, n_ann: int = 8):  # type: ignore[no-untyped-def]
    """Two systems × n_items, each output judged once (ESA 0–100) by a random one of n_ann
    annotators, who differ in offset (sd 12 points) and scale (× 0.5–1.5): raw = 60 + b_a +
    c_a·(q_j + δ·[system A] + e). System A is better by δ in every annotator's scale; at
    δ = 0 the systems are exchangeable, so both the raw and the z estimand are 0."""
    bias, scale = rng.normal(0, 12, n_ann), rng.uniform(0.5, 1.5, n_ann)
    q = rng.normal(0, 15, n_items)
    item, system = np.tile(np.arange(n_items), 2), np.repeat([0, 1], n_items)
    ann = rng.integers(0, n_ann, item.size)
    noise = rng.normal(0, 10, item.size)
    raw = np.clip(np.round(60 + bias[ann] + scale[ann] * (q[item] + delta * (system == 0)
                                                          + noise)), 0, 100)  # fmt: skip
    n, nan = item.size, np.full(item.size, np.nan)
    o = rng.permutation(n)  # arrival order
    j = Judgments(np.arange(n), item[o], system[o], ann[o], nan, nan, nan, nan,
                  np.arange(n, dtype=float), np.ones(n), np.zeros(n, dtype="datetime64[us]"),
                  esa_score=raw[o])  # fmt: skip
    return CampaignData(
        campaign_id=1, name="z", mode="spans", systems=["A", "B"], is_human=np.zeros(2, bool),
        item_ids=[str(i) for i in range(n_items)],
        output_ids=np.arange(2 * n_items).reshape(2, n_items), metrics=[], scores={},
        judgments=j, annotators=[str(a) for a in range(n_ann)],
    )  # fmt: skip


def _annotator_share(y: np.ndarray, ann: np.ndarray) -> float:
    """Share of the judgments' variance between annotators (η² of a one-way layout)."""
    ok = np.isfinite(y)
    y, ann = y[ok], ann[ok]
    means = np.bincount(ann, y) / np.maximum(np.bincount(ann), 1)
    return float(np.var(means[ann]) / np.var(y))


def _claims(reps: int, delta: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per replication: (claimed a winner, raw / z) and (between-annotator share, raw / z),
    through the fixed-n evaluation `cli.py evaluate` prints (paired t, Holm)."""
    rng = np.random.default_rng(seed)
    claims, share = np.zeros((2, reps), bool), np.zeros((2, reps))
    for r in range(reps):
        data = _campaign(rng, delta)
        zdata = zscored_campaign(data, LabelKind.ESA)
        for m, (d, kind) in enumerate(((data, LabelKind.ESA), (zdata, LabelKind.SCORE))):
            claims[m, r] = evaluate(d, kind).pairs[0]["verdict"].endswith("better")
            share[m, r] = _annotator_share(d.judgments.values(kind), d.judgments.annotator)
    return claims, share


def test_zscores_remove_annotator_variance_and_keep_the_error_rate_at_a_null() -> None:
    reps = 1000
    claims, share = _claims(reps, 0.0, seed=40)
    rate = claims.mean(axis=1)
    bound = ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
    power, _ = _claims(300, 6.0, seed=41)
    print(f"\nnull, {reps} campaigns: false claims raw {rate[0]:.3f}, z {rate[1]:.3f}; "
          f"between-annotator share of variance raw {share[0].mean():.3f}, "
          f"z {share[1].mean():.4f}; power at δ = 6 points: raw {power[0].mean():.3f}, "
          f"z {power[1].mean():.3f}")  # fmt: skip
    assert rate[0] <= bound and rate[1] <= bound
    assert share[0].mean() > 0.2 and share[1].mean() < 0.01
    assert power[1].mean() >= power[0].mean() + 0.1


def test_a_binary_label_is_not_z_scored() -> None:
    data = _campaign(np.random.default_rng(0), 0.0)
    with pytest.raises(ValueError, match="binary label"):
        zscored_campaign(data, LabelKind.LABEL)
    z = zscored_campaign(data, LabelKind.ESA).judgments
    assert np.isfinite(z.values(LabelKind.SCORE)).all()
    assert np.isnan(data.judgments.values(LabelKind.SCORE)).all()


@pytest.mark.slow
def test_live_verdicts_on_zscores_recomputed_at_every_read_keep_the_error_rate() -> None:
    """The dashboard's z-score toggle: at every read z is recomputed from the judgments so
    far (annotator means and sds move as labels arrive) and the monitor runs on it with the
    asympcs design (z has no known range). 2 exchangeable systems × 150 items, read every 30
    judgments from the 60th: P(any false "better") ≤ α + 2 MC-SE."""
    rng = np.random.default_rng(42)
    reps, n_items = 250, 150
    false = 0
    for _ in range(reps):
        j = _campaign(rng, 0.0, n_items=n_items).judgments
        y = j.values(LabelKind.ESA)
        for stop in range(60, len(j) + 1, 30):
            z = annotator_zscores(y[:stop], j.annotator[:stop])
            ok = np.isfinite(z)
            rep = CampaignMonitor(
                [None, None], j.item[:stop][ok], j.system[:stop][ok], z[ok],
                j.position[:stop][ok], np.ones(int(ok.sum())), design="asympcs",
                label_range=None, present=np.ones((2, n_items), dtype=bool),
            ).report()  # fmt: skip
            if any(p.verdict.endswith("better") for p in rep.pairs):
                false += 1
                break
    rate = false / reps
    print(f"\nz-scores through the monitor, read every 30 judgments, {reps} campaigns: "
          f"false claims {rate:.3f}")  # fmt: skip
    assert rate <= ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / reps)
