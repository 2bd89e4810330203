import numpy as np
import pytest

from estimators.base.verdicts import Outcome
from estimators.preference import Preferences, preference_report
from tests.support.preference_worlds import world


def test_the_report_holds_pairs_leaderboard_graph_and_position() -> None:
    rng = np.random.default_rng(41)
    prefs = world(np.array([0.6, 0.6, 0.0, -0.6]), 0.4, 2400, rng)
    report = preference_report(prefs, alpha=0.05, epsilon=0.0, correction="holm")
    assert report.n == 2400 and len(report.pairs) == 6 and report.problems == ()
    assert report.leaderboard is not None
    assert set(report.leaderboard.tied_for_first()) == {"S0", "S1"}
    assert report.leaderboard.first_text().startswith("tied for first: S")
    assert report.graph.ok and not report.position.detected
    forward, backward = report.pair("S0", "S3"), report.pair("S3", "S0")
    assert forward is not None and backward is not None
    assert forward.outcome == Outcome.A_BETTER and backward.outcome == Outcome.B_BETTER
    assert backward.win_rate == pytest.approx(1 - forward.win_rate)
    assert (backward.low, backward.high) == pytest.approx((1 - forward.high, 1 - forward.low))
    assert report.pair("S0", "nobody") is None


def test_a_disconnected_campaign_has_no_leaderboard_and_says_why() -> None:
    x = np.tile([1.0, 0.0, 0.5], 20)
    prefs = Preferences(("A", "B", "C", "D"), np.tile([0, 2, 0], 20), np.tile([1, 3, 1], 20),
                        x, np.ones(60, bool))  # fmt: skip
    report = preference_report(prefs)
    assert report.leaderboard is None
    assert any("never compared with each other" in p for p in report.problems)


@pytest.mark.parametrize(
    ("kw", "words"),
    [({"alpha": 0.0}, "alpha must lie in"), ({"epsilon": 0.5}, "epsilon is a margin"),
     ({"correction": "bh"}, "bh")],
)  # fmt: skip
def test_bad_settings_are_refused(kw, words) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(42)
    with pytest.raises(ValueError, match=words):
        preference_report(world(np.zeros(3), 0.0, 50, rng), **kw)


def test_unequal_weights_within_a_pair_are_noted() -> None:
    rng = np.random.default_rng(43)
    prefs = world(np.array([0.3, 0.0, -0.3]), 0.3, 300, rng)
    even = Preferences(prefs.systems, prefs.a, prefs.b, prefs.outcome, prefs.a_on_left,
                       np.full(prefs.n, 3.0))  # fmt: skip
    assert preference_report(even).problems == ()
    w = np.where(prefs.pair_index() == 0, np.where(np.arange(prefs.n) % 2 == 0, 2.0, 4.0), 3.0)
    uneven = Preferences(prefs.systems, prefs.a, prefs.b, prefs.outcome, prefs.a_on_left, w)
    (note,) = preference_report(uneven).problems
    assert note.startswith("the judgments of S0–S1 were drawn with unequal probabilities")


def test_no_judgments_and_a_single_system_give_a_report_that_says_so() -> None:
    empty = np.array([], dtype=int)
    none = Preferences(("A", "B", "C"), empty, empty, np.array([]), np.array([], bool))
    report = preference_report(none)
    assert report.n == 0 and report.pairs == () and report.leaderboard is None
    assert report.problems == ("never judged: A, B, C — no score can be given",)
    assert "too few judgments yet (0)" in report.position.text()
    alone = preference_report(Preferences(("A",), empty, empty, np.array([]), np.array([], bool)))
    assert alone.leaderboard is None and alone.pairs == ()
