"""Oracle: our ROC curve is scikit-learn's, point for point, on random and tied scores."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from metrics.calibration import roc_curve


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("higher_is_better", [True, False])
def test_roc_equals_sklearn(seed: int, higher_is_better: bool) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    labels = rng.integers(0, 2, n)
    labels[:2] = [0, 1]  # both classes present
    # Rounded scores give ties, which is where hand-written ROC code usually goes wrong.
    scores = np.round(rng.normal(labels * 0.7, 1.0), int(rng.integers(0, 3)))
    ours = roc_curve(scores, labels, higher_is_better)
    key = scores if higher_is_better else -scores
    fpr, tpr, thresholds = sk_roc_curve(labels, key, drop_intermediate=False)
    np.testing.assert_array_equal(ours.fpr, fpr)
    np.testing.assert_array_equal(ours.tpr, tpr)
    expected = thresholds if higher_is_better else -thresholds
    np.testing.assert_array_equal(ours.thresholds[1:], expected[1:])
    auc = np.trapezoid(ours.tpr, ours.fpr)
    assert auc == pytest.approx(roc_auc_score(labels, key), abs=1e-12)
