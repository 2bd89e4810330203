"""The dashboard's WMT panel (AppTest): WMT's table beside Tandem's clusters, labelled fixed-n
with no multiplicity correction, the procedure switch, and the disagreement list."""

from __future__ import annotations

import pytest

from tests.db.reads.test_campaign import seed_campaign
from tests.views.pages.test_dashboard import _dashboard


@pytest.mark.slow  # two dashboard runs: 20-50 s on the shared 2 cores
def test_wmt_table_beside_tandems(app_engine) -> None:
    seed_campaign(app_engine, "w", n_items=60, labelled=60, overlap=8,
                  deltas=(1.0, 0.9, -1.0))  # fmt: skip
    at = _dashboard("w")
    assert not at.exception
    heads = [h.value for h in at.subheader]
    assert "WMT's ranking beside Tandem's (fixed-n, no multiplicity correction)" in heads
    # right after Tandem's own ranking
    ranking = next(i for i, h in enumerate(heads) if h.startswith("Ranking:"))
    assert heads[ranking + 1].startswith("WMT's ranking")
    [table] = [d.value for d in at.dataframe if "WMT cluster" in d.value.columns]
    assert table["system"].iloc[0] in {"sys0", "sys1"} and len(table) == 3
    assert set(table["Tandem cluster"]) <= {1, 2, 3}
    text = " ".join(m.value for m in at.markdown)
    assert "Pairs where the two disagree:" in text and "2 wave(s)" in text
    at.radio(key="dash-wmt-procedure").set_value("wmt24").run()
    assert not at.exception
    assert "1 domain(s)" in " ".join(m.value for m in at.markdown)
