"""ρ/η calibration sets of an ESA campaign's error-free judgments: the confusion matrix is
counted on the error-free reading (ESA ≥ the threshold and no span), not on the MQM label."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy import Engine

from annotation.results.calibration import calibration_export
from db.reads.campaign import read_campaign
from db.scores.metric_scores import ScoreRow, insert_scores
from estimators.data.campaign import LabelKind
from formats.calibration_file import CalibrationSetError
from tests.db.reads.test_campaign_error_free import _judged

SIG = "chrF2|test"


def test_the_error_free_calibration_counts_the_error_free_reading(engine: Engine) -> None:
    cid = _judged(engine)
    data = read_campaign(engine, cid)
    grid = data.output_ids
    rows = [ScoreRow(int(grid[s, j]), "chrf", SIG, float(10 * j + s))
            for s in range(grid.shape[0]) for j in range(grid.shape[1])]  # fmt: skip
    insert_scores(engine, rows)
    data = read_campaign(engine, cid)
    free = calibration_export(engine, "c", SIG, threshold=50.0, data=data, record=False,
                              kind=LabelKind.ERROR_FREE)  # fmt: skip
    j = data.judgments
    y = j.values(LabelKind.ERROR_FREE)
    m = data.scores[SIG][j.system, j.item] >= 50.0
    counts = free.payload["counts"]
    assert counts["tp"] == int(((y == 1) & m).sum()) and counts["fn"] == int(((y == 1) & ~m).sum())
    assert counts["fp"] == int(((y == 0) & m).sum()) and counts["tn"] == int(((y == 0) & ~m).sum())
    assert json.loads(free.json)["source"]["label_kind"] == "error_free"
    # the MQM label of these judgments (minor spans only) is 1 everywhere: no ρ/η from it
    assert 0 < np.nansum(y) < y.size
    with pytest.raises(CalibrationSetError, match="0 inadequate"):
        calibration_export(engine, "c", SIG, threshold=50.0, data=data, record=False)
    with pytest.raises(CalibrationSetError, match="binary"):
        calibration_export(engine, "c", SIG, data=data, record=False, kind=LabelKind.ESA)
