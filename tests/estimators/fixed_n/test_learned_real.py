"""The learned control on real data: MLQE-PE test20 ro-en (one NMT system, 1,000 segments,
DA by 6 professionals), with the model's own sentence score `nmt_model_score` (a real
reference-free metric) and the cheap text features as inputs. Nothing derived from the
post-edit or the DA enters the features."""

from __future__ import annotations

import numpy as np
import pandas as pd

from estimators.fixed_n import control_variates as cv
from estimators.fixed_n import learned as lr
from metrics.features import FEATURE_KEYS, text_features
from tests.conftest import shared_file


def test_learned_control_on_mlqe_ro_en_saves_labels_and_covers():
    df = pd.read_csv(shared_file("mlqe-pe-test20/mlqe_pe_test20.csv"))
    part = df[df["lang_pair"] == "ro-en"]
    feats = [text_features(s, None, o) for s, o in zip(part["source"], part["output"],
                                                       strict=True)]  # fmt: skip
    x = np.column_stack([part["nmt_model_score"].to_numpy(float),
                         [[f[k] for k in FEATURE_KEYS] for f in feats]])  # fmt: skip
    y = part["human_score"].to_numpy(float)
    truth = y.mean()  # the finite pool's mean DA: what a campaign on this test set asks
    rng = np.random.default_rng(0)
    n, reps = 150, 300
    hits, de_learned, de_nmt = 0, [], []
    for r in range(reps):
        order = rng.permutation(y.size)
        lab, unl = order[:n], order[n:]
        res = lr.learned_ppi_mean(y[lab], x[lab], x[unl], spec=lr.CrossFitSpec(seed=r))
        hits += res.low <= truth <= res.high
        de_learned.append(res.diagnostics["de"])
        de_nmt.append(cv.ppi_mean(y[lab], x[lab, 0], x[unl, 0]).diagnostics["de"])
    cover = hits / reps
    print(
        f"\nro-en DA, n={n}: coverage {cover:.3f}; median DE learned "
        f"{np.median(de_learned):.3f}, nmt_model_score alone {np.median(de_nmt):.3f}"
    )
    assert cover >= 0.93
    assert np.median(de_learned) > 1.4
