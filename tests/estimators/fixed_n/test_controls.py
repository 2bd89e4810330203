"""estimators.fixed_n.controls: fixed-n results with chosen controls (the learned ŷ among them),
per-control efficiency, and `cli.py evaluate` on a real database."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from estimators.base.multiple import holm
from estimators.fixed_n import control_variates as cv
from estimators.fixed_n import human
from estimators.fixed_n.controls import (
    LEARNED,
    control_efficiency,
    evaluate,
    label_grid,
    learned_control,
)
from tests.estimators.report.test_campaign_report import SIG, fake_campaign


def test_rows_equal_the_estimators_they_name():
    data, _ = fake_campaign(n_items=300, labelled=150)
    kind = "label"
    learned = learned_control(data, kind)
    ev = evaluate(data, kind, [SIG, LEARNED], learned=learned)
    y_grid, labelled = label_grid(data, kind)
    g = np.stack([data.scores[SIG], learned.values], axis=-1)
    rows = {(name, m): r for name, m, r in ev.systems}
    for s, name in enumerate(data.systems):
        lab = labelled[s]
        y = y_grid[s, lab]
        assert rows[(name, "human")].estimate == human.binary_beta(y.sum(), y.size).estimate
        ref = cv.ppi_mean(y, g[s, lab], g[s, ~lab], ddof=2)
        assert rows[(name, "ppi")].ci == pytest.approx(ref.ci)
    ppi_pairs = [p for p in ev.pairs if p["method"] == "ppi"]
    assert len(ppi_pairs) == 3
    adj = holm([p["p"] for p in ppi_pairs]).adjusted
    assert [p["p_holm"] for p in ppi_pairs] == pytest.approx(list(adj))
    # deltas 0.9, 0, −0.9 with 150 labels each: the extreme pair is decided
    assert any(p["verdict"] == "S0 better" for p in ppi_pairs)


def test_learned_grid_is_reused_until_the_labels_double():
    data, _ = fake_campaign(n_items=300, labelled=150)
    first = learned_control(data, "label")
    assert first is not None and first.n_labels == 450 and first.model == "logistic"
    assert learned_control(data, "label", previous=first) is first
    more, _ = fake_campaign(n_items=300, labelled=300)  # twice the labels: refit
    assert learned_control(more, "label", previous=first) is not first


def test_learned_prediction_ignores_its_own_items_labels():
    """Flipping every label of one item leaves that item's ŷ (all systems) unchanged."""
    data, _ = fake_campaign(n_items=300, labelled=150)
    base = learned_control(data, "label")
    j = data.judgments
    target = int(j.item[0])
    flipped = np.where(j.item == target, 1.0 - j.label, j.label)
    other = dataclasses.replace(data, judgments=dataclasses.replace(j, label=flipped))
    again = learned_control(other, "label")
    np.testing.assert_array_equal(again.values[:, target], base.values[:, target])
    assert not np.allclose(again.values, base.values)


def test_efficiency_says_when_no_control_helps():
    data, _ = fake_campaign(n_items=600, labelled=150)  # metric r = 0.8: it helps
    eff = {e.name: e for e in control_efficiency(data, "label", learned_control(data, "label"))}
    assert eff[SIG].helps and eff[SIG].de > 1.1 and eff[SIG].rho > 0.3
    assert eff[LEARNED].helps and eff[LEARNED].rho > 0.3
    rng = np.random.default_rng(0)
    noise = dataclasses.replace(data, scores={SIG: rng.standard_normal(data.scores[SIG].shape)})
    eff = control_efficiency(noise, "label", learned_control(noise, "label"))
    assert not any(e.helps for e in eff)


def test_unknown_control_is_a_clear_error():
    data, _ = fake_campaign(n_items=100, labelled=40)
    with pytest.raises(ValueError, match="no metric signature 'comet'"):
        evaluate(data, "label", ["comet"])
    # a learned control that could not be fitted is dropped with the reason, not an error
    ev = evaluate(data, "label", [LEARNED], learned=None)
    assert ev.controls == [] and any("learned control cannot run" in n for n in ev.notes)


def test_cli_evaluate(sqlite_engine, monkeypatch):  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    import cli
    from db.engine import get_engine
    from tests.db.reads.test_campaign import seed_campaign

    seed_campaign(sqlite_engine, "camp", n_items=80, labelled=60, overlap=0)
    monkeypatch.setenv("DATABASE_URL", str(sqlite_engine.url))
    get_engine.cache_clear()
    runner = CliRunner()
    try:
        res = runner.invoke(cli.app, ["evaluate", "--campaign", "camp",
                                      "--controls", "chrf,learned"])  # fmt: skip
        assert res.exit_code == 0, res.output
        out = res.output
        assert "controls: chrf + learned ŷ" in out and "cross-fitted on 180 labels" in out
        assert out.count("sys0 ") >= 2 and "sys0 – sys2" in out and "p (Holm)" in out
        assert "learned ŷ" in out.split("control ")[-1]
        res = runner.invoke(cli.app, ["evaluate", "--campaign", "camp", "--controls", "comet"])
        assert res.exit_code == 1 and "Unknown control 'comet'" in res.output
        assert "bleu, chrf, learned" in res.output
        res = runner.invoke(cli.app, ["evaluate", "--campaign", "camp", "--label-kind", "score"])
        assert res.exit_code == 1 and "No 'score' judgments" in res.output
    finally:
        get_engine.cache_clear()


def test_nearly_a_census_gives_human_only_with_a_note():
    """Two unlabelled items per system: too few for PPI++ with ŷ (residual ddof 2)."""
    data, _ = fake_campaign(n_items=40, labelled=38)
    learned = learned_control(data, "label")
    ev = evaluate(data, "label", [SIG, LEARNED], learned=learned)
    assert all(r.available for _, m, r in ev.systems if m == "human")
    assert all(r.unavailable == "census" for _, m, r in ev.systems if m == "ppi")
    assert all(p["result"].unavailable == "census" for p in ev.pairs if p["method"] == "ppi")
    assert all(p["verdict"].startswith("no interval: every output is labelled")
               for p in ev.pairs if p["method"] == "ppi")  # fmt: skip
    assert all(e.de is None for e in control_efficiency(data, "label", learned))
