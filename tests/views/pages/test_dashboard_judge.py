"""Dashboard (AppTest): a preference campaign with a judge's preferences imported shows the
judge as the pair verdicts' control, in a caption and the pair table's Control column."""

from __future__ import annotations

import pytest

from db.reads.campaign import campaign_id
from db.scores.judge_preferences import JudgeRow, store_judge_preferences
from tests.commands.test_verdict_preference import _judged
from tests.views.conftest import admin_page


@pytest.mark.slow  # 300 judgments through the annotator path
def test_the_dashboard_names_the_judge_as_the_control(app_engine) -> None:  # type: ignore[no-untyped-def]
    _judged(app_engine, "split", 0.05, "alternate")
    cid = campaign_id(app_engine, "split")
    rows = [JudgeRow(f"i{j}", "A", "B", 0.5 if j % 5 == 0 else 1.0) for j in range(100)]
    rows += [JudgeRow(f"i{j}", "B", "C", float(j % 2)) for j in range(100)]
    store_judge_preferences(app_engine, cid, "gpt-x", rows)
    at = admin_page("views/pages/dashboard.py", "split")
    captions = "\n".join(str(c.value) for c in at.caption)
    assert "gpt\\-x's preferences are the control of the pairs marked below" in captions  # escaped
    tables = [d.value for d in at.dataframe if "Control" in d.value.columns]
    (pairs,) = tables
    control = dict(zip(pairs["A"] + "-" + pairs["B"], pairs["Control"], strict=True))
    # A–C has no judge preferences: the humans alone
    assert control == {"A-B": "gpt-x", "A-C": "—", "B-C": "gpt-x"}
