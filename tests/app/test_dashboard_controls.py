"""Dashboard controls panel (AppTest): the learned ŷ next to the single metrics."""

from __future__ import annotations

from tests.app.conftest import admin_page
from tests.test_reads import seed_campaign


def test_controls_panel_offers_the_learned_control(app_engine) -> None:
    seed_campaign(app_engine, "demo", n_items=80, labelled=60, overlap=0)
    at = admin_page("views/pages/dashboard.py", "demo")
    assert not at.exception
    assert "Controls: single metrics and the learned ŷ" in [h.value for h in at.subheader]
    frames = [d.value for d in at.dataframe]
    eff = next(f for f in frames if "ρ (judgment, control)" in f.columns)
    assert list(eff["control"]) == ["bleu", "chrf", "learned ŷ"]
    assert eff["ρ (judgment, control)"].between(-1, 1).all() and (eff["DE systems"] > 0).all()
    systems = next(f for f in frames if {"system", "method", "estimate", "DE"} <= set(f.columns))
    assert set(systems["method"]) == {"human only", "PPI++ (learned ŷ)"}
    pairs = next(f for f in frames if "p (Holm)" in f.columns)
    assert len(pairs) == 6  # 3 pairs × (human, PPI++)
    captions = "\n".join(c.value for c in at.caption)
    assert "cross-fitted (by item) on 180 labels from 2 metric" in captions
    select = next(m for m in at.multiselect if m.label == "Controls for the fixed-n comparison")
    select.set_value([]).run()
    frames = [d.value for d in at.dataframe]
    systems = next(f for f in frames if {"system", "method", "estimate", "DE"} <= set(f.columns))
    assert set(systems["method"]) == {"human only"}
