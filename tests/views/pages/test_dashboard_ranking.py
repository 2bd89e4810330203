"""Dashboard (AppTest) with many systems: the ranking with significance clusters and the
searchable pair table replace the verdict heat map (issue 29)."""

from __future__ import annotations

import numpy as np

from tests.db.reads.test_campaign import seed_campaign
from tests.views.pages.test_dashboard import _dashboard


def test_many_systems_get_a_ranking_and_a_searchable_pair_table(app_engine) -> None:
    deltas = tuple(np.linspace(1.5, -1.5, 16))
    seed_campaign(app_engine, "many", n_items=60, labelled=60, overlap=0, deltas=deltas)
    at = _dashboard("many")
    assert not at.exception
    [ranking] = [d.value for d in at.dataframe if "cluster" in d.value.columns]
    assert len(ranking) == 16 and list(ranking["#"]) == list(range(1, 17))
    assert ranking["cluster"].is_monotonic_increasing and ranking["cluster"].iloc[-1] > 1
    assert not at.get("vega_lite_chart") or all(
        "verdict" not in str(c.proto) for c in at.get("vega_lite_chart")
    )  # no 16 × 16 heat map
    [pairs] = [d.value for d in at.dataframe if "labelled items" in d.value.columns]
    assert len(pairs) == 16 * 15 // 2
    at.text_input(key="dash-pair-find").input("sys3").run()
    [pairs] = [d.value for d in at.dataframe if "labelled items" in d.value.columns]
    assert len(pairs) == 15 and pairs["pair"].str.contains("sys3").all()
    at.selectbox(key="dash-pair-filter").select("one system better").run()
    [pairs] = [d.value for d in at.dataframe if "labelled items" in d.value.columns]
    assert pairs["verdict"].str.endswith("better").all()
