"""Oracle: Holm-adjusted p-values and rejections equal statsmodels' multipletests."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from estimators.base.multiple import holm


@pytest.fixture(autouse=True)
def _no_full_gc_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """multipletests(method="holm") ends with gc.collect() (imported inside the function),
    which only frees its temporary: no effect on its result, but a full collection of the
    whole test process per call (~50 ms alone, seconds late in a long xdist worker). A no-op
    for these tests only (monkeypatch restores it)."""
    monkeypatch.setattr(gc, "collect", lambda *a: 0)


@pytest.mark.parametrize("seed", range(30))
def test_holm_equals_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 40))
    # A mix of tiny, moderate and exactly tied p-values.
    p = np.concatenate([rng.uniform(0, 0.02, m // 3), rng.uniform(0, 1, m - m // 3)])
    p[rng.integers(0, m, m // 4)] = p[0]
    alpha = float(rng.choice([0.01, 0.05, 0.1]))
    ours = holm(p, alpha)
    reject, corrected, _, _ = multipletests(p, alpha=alpha, method="holm")
    np.testing.assert_allclose(ours.adjusted, corrected, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(ours.reject, reject)


def test_holm_batches_equal_statsmodels_row_by_row() -> None:
    p = np.random.default_rng(7).uniform(0, 0.2, (12, 10))
    ours = holm(p).adjusted
    for row, adjusted in zip(p, ours, strict=True):
        np.testing.assert_allclose(adjusted, multipletests(row, method="holm")[1], atol=1e-15)
