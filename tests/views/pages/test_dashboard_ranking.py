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


def test_pair_table_is_as_tall_as_its_rows(app_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """4 systems, 6 pairs: the pair table's height fits its 6 rows and header (no empty
    rows under them), and again after a search leaves 3."""
    import streamlit as st

    from views.common import TABLE_HEADER_PX, TABLE_ROW_PX

    heights: list[tuple[list[str], object]] = []
    drawn = st.dataframe

    def spy(data=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        heights.append((list(getattr(data, "columns", [])), kwargs.get("height")))
        return drawn(data, *args, **kwargs)

    monkeypatch.setattr(st, "dataframe", spy)
    seed_campaign(app_engine, "six", n_items=60, labelled=60, overlap=0,
                  deltas=(1.0, 0.0, -1.0, -0.5))  # fmt: skip
    at = _dashboard("six")
    assert not at.exception
    [pairs] = [d.value for d in at.dataframe if "labelled items" in d.value.columns]
    assert len(pairs) == 6
    table = [h for cols, h in heights if "labelled items" in cols]
    assert table[-1] == TABLE_HEADER_PX + 6 * TABLE_ROW_PX, table
    heights.clear()
    at.text_input(key="dash-pair-find").input("sys0").run()
    table = [h for cols, h in heights if "labelled items" in cols]
    assert table[-1] == TABLE_HEADER_PX + 3 * TABLE_ROW_PX, table
