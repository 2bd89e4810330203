"""DA / SQM slider judgments: the score's scale, anchors and the one check a saved score
passes (annotation.judging.save.submit and the comparative screen call :func:`checked_score`).

Direct assessment (Graham, Baldwin, Moffat, Zobel 2013, 2017; WMT 2016–2022): a 0–100
slider per output, anchored at 0 "no meaning preserved" and 100 "perfect meaning and
grammar". SQM (scalar quality metric; Freitag et al. 2021, "Experts, errors, and context",
TACL; WMT22–23 used it with professional raters) is a seven-point scale 0–6 whose even
points carry labels. Both are stored as one 0–100 number (``annotations.da_score``; SQM's
point k as 100·k/6), so one label kind (``estimators.data.campaign.LabelKind.DA``) reads both.
"""

from __future__ import annotations

import math
from typing import Any

from annotation.judging.session import InvalidJudgment
from db.schema.vocabulary import CampaignMode

DA_TOP = 100
SQM_TOP = 6
#: The DA slider's anchors: (value on 0–100, text).
DA_ANCHORS = ((0, "No meaning preserved"), (100, "Perfect meaning and grammar"))
#: SQM's labelled points (Freitag et al. 2021, Appendix; WMT22 SQM): (point 0–6, text).
SQM_ANCHORS = (
    (0, "No meaning preserved"),
    (2, "Some meaning preserved"),
    (4, "Most meaning preserved and few grammar mistakes"),
    (6, "Perfect meaning and grammar"),
)


def sqm_to_score(point: int) -> float:
    """SQM point k (0–6) → the stored 0–100 score, 100·k/6."""
    return 100.0 * point / SQM_TOP


def scale(mode: CampaignMode) -> dict[str, Any]:
    """What the slider draws: its top, step and anchors, on the slider's own units (0–100
    for DA, 0–6 for SQM); the browser sends the value in those units."""
    if mode == CampaignMode.SQM:
        return {"top": SQM_TOP, "anchors": [list(a) for a in SQM_ANCHORS], "name": "SQM"}
    return {"top": DA_TOP, "anchors": [list(a) for a in DA_ANCHORS], "name": "DA"}


def checked_score(mode: CampaignMode, value: Any) -> float:
    """The 0–100 score to store for a slider value sent in the slider's units (0–100 for
    DA, a whole point 0–6 for SQM). Raises InvalidJudgment naming what is wrong."""
    if not mode.asks_slider:
        raise InvalidJudgment("this campaign does not take a slider score")
    top = SQM_TOP if mode == CampaignMode.SQM else DA_TOP
    if value is None:
        raise InvalidJudgment(f"set the score first (0–{top}), then save")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidJudgment(f"the score must be a number 0–{top}, not {value!r}")
    try:
        v = float(value)
    except OverflowError:  # an integer beyond any float: out of range like any other
        v = math.inf
    if not math.isfinite(v) or v < 0 or v > top:
        raise InvalidJudgment(f"the score must be between 0 and {top}, not {value!r}")
    if mode == CampaignMode.SQM:
        if v != int(v):
            raise InvalidJudgment(f"an SQM score is a whole point 0–6, not {value!r}")
        return sqm_to_score(int(v))
    return v


def slider_value(mode: CampaignMode, stored: float | None) -> float | None:
    """A stored 0–100 score back in the slider's units (for a screen brought back)."""
    if stored is None:
        return None
    return round(stored * SQM_TOP / 100.0) if mode == CampaignMode.SQM else stored
