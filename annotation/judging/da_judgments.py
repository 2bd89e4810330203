"""DA / SQM slider judgments: the score's scale, anchors and the one check a saved score
passes (annotation.judging.save.submit and the comparative screen call :func:`checked_score`).

Direct assessment (Graham, Baldwin, Moffat, Zobel 2013, 2017; WMT 2016–2022): a 0–100
slider per output, anchored at 0 "no meaning preserved" and 100 "perfect meaning and
grammar". SQM (scalar quality metric; Freitag et al. 2021, "Experts, errors, and context",
TACL; WMT22–23 used it with professional raters) is a seven-point scale 0–6 whose even
points carry labels. A DA campaign may instead carry a Likert scale of its own
(formats.forms.likert: n points 2–11, a label and a key per point), drawn as labelled
buttons. All are stored as one 0–100 number (``annotations.da_score``; SQM's point k as
100·k/6, a Likert point p of n as 100·(p − 1)/(n − 1)), so one label kind
(``estimators.data.campaign.LabelKind.DA``) reads them all, on [0, 1] after ÷ 100.

"The slider's units": 0–100 for DA, the point 0–6 for SQM, the point's index p − 1 (0 …
n − 1) for a Likert scale, whose screens send that index.
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


def scale(mode: CampaignMode, likert: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the slider draws: its top, step and anchors, on the slider's own units (0–100
    for DA, 0–6 for SQM, 0 … n − 1 for a Likert scale, every point labelled); the browser
    sends the value in those units. ``likert``: the campaign's scale (``meta["likert"]``)."""
    if likert is not None and mode == CampaignMode.DA:
        labels = list(likert["labels"])
        return {
            "top": len(labels) - 1,
            "anchors": [[k, label] for k, label in enumerate(labels)],
            "name": "Likert",
            "labels": labels,
            "keys": list(likert["keys"]),
        }
    if mode == CampaignMode.SQM:
        return {"top": SQM_TOP, "anchors": [list(a) for a in SQM_ANCHORS], "name": "SQM"}
    return {"top": DA_TOP, "anchors": [list(a) for a in DA_ANCHORS], "name": "DA"}


def checked_score(mode: CampaignMode, value: Any, likert: dict[str, Any] | None = None) -> float:
    """The 0–100 score to store for a slider value sent in the slider's units (0–100 for
    DA, a whole point 0–6 for SQM, a whole index 0 … n − 1 for a Likert scale, stored
    100·index/(n − 1)). Raises InvalidJudgment naming what is wrong."""
    if not mode.asks_slider:
        raise InvalidJudgment("this campaign does not take a slider score")
    if likert is not None and mode == CampaignMode.DA:
        return _likert_score(value, len(likert["labels"]))
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


def _likert_score(value: Any, n: int) -> float:
    """A Likert point's index (0 … n − 1) → its stored score 100·index/(n − 1)."""
    if value is None:
        raise InvalidJudgment(f"choose one of the {n} points, then save")
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not whole or not 0 <= value <= n - 1:
        raise InvalidJudgment(f"a Likert judgment is one of the points 1–{n}, not {value!r}")
    return 100.0 * int(value) / (n - 1)


def slider_value(
    mode: CampaignMode, stored: float | None, likert: dict[str, Any] | None = None
) -> float | None:
    """A stored 0–100 score back in the slider's units (for a screen brought back)."""
    if stored is None:
        return None
    if likert is not None and mode == CampaignMode.DA:
        return round(stored * (len(likert["labels"]) - 1) / 100.0)
    return round(stored * SQM_TOP / 100.0) if mode == CampaignMode.SQM else stored
