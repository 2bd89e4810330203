"""Calibration on the learned control ŷ (issue 14, item 3): the campaign's cross-fitted ŷ is
calibrated through the same path as a stored metric, and a labelled output's ŷ never comes
from a model that saw its own label."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from annotation.results.calibration import campaign_calibration, with_learned_control
from db.reads.campaign import read_campaign
from estimators.data.campaign import LabelKind
from estimators.fixed_n.controls import LEARNED, learned_control
from tests.test_reads import seed_campaign


def test_learned_control_is_one_more_metric_on_the_label_scale(engine) -> None:
    cid = seed_campaign(engine, n_items=60, labelled=50, overlap=0)
    data = read_campaign(engine, cid)
    with_y = with_learned_control(data)
    fit = learned_control(data, LabelKind.LABEL)
    assert fit is not None
    grid = with_y.scores[LEARNED]
    present = data.output_ids >= 0
    np.testing.assert_allclose(grid[present], (fit.values + fit.offset)[present])
    assert np.isnan(grid[~present]).all()
    info = with_y.metric(LEARNED)
    assert info is not None and info.higher_is_better is True
    assert info.n_scores == int(present.sum())
    assert data.metric(LEARNED) is None and LEARNED not in data.scores  # input untouched

    cal, arrays = campaign_calibration(with_y, LEARNED)
    assert cal.higher_is_better is True
    assert len(arrays) == 150  # every binary-labelled output
    # ŷ is built from chrF and BLEU, both informative in the simulation: better than chance
    assert cal.overall.accuracy > 0.55


def test_a_labelled_outputs_prediction_ignores_its_own_label(engine) -> None:
    """Flip every label of one item: the ŷ of that item's outputs does not move (the model
    that predicts them was fitted without their fold); an in-sample fit would move."""
    cid = seed_campaign(engine, n_items=60, labelled=50, overlap=0)
    data = read_campaign(engine, cid)
    j = data.judgments
    item = int(j.item[np.isfinite(j.label)][0])
    flipped = j.label.copy()
    rows = (j.item == item) & np.isfinite(j.label)
    flipped[rows] = 1.0 - flipped[rows]
    other = replace(data, judgments=replace(j, label=flipped))

    before = learned_control(data, LabelKind.LABEL)
    after = learned_control(other, LabelKind.LABEL)
    assert before is not None and after is not None
    np.testing.assert_allclose(after.values[:, item], before.values[:, item], atol=1e-9)
    assert not np.allclose(after.values, before.values)  # the other folds' models did move


def test_without_enough_labels_nothing_is_added(engine) -> None:
    cid = seed_campaign(engine, n_items=30, labelled=2, overlap=0)
    data = read_campaign(engine, cid)
    assert with_learned_control(data) is data
