import numpy as np

from estimators.preference.data import Preferences
from estimators.preference.graph import check_graph


def _prefs(systems, a, b, x) -> Preferences:  # type: ignore[no-untyped-def]
    a, b, x = np.array(a), np.array(b), np.array(x, dtype=float)
    return Preferences(tuple(systems), a, b, x, np.ones(a.size, bool))


def test_a_well_mixed_graph_has_no_problem() -> None:
    a = [0, 0, 1] * 20
    b = [1, 2, 2] * 20
    x = [1.0, 0.0, 0.5] * 20
    check = check_graph(_prefs("ABC", a, b, x))
    assert check.ok and check.connected and check.strongly_connected
    assert check.per_system == {"A": 40, "B": 40, "C": 40}
    assert (check.pairs_judged, check.pairs_total) == (3, 3)


def test_two_groups_never_compared_are_named() -> None:
    a, b = [0, 2] * 30, [1, 3] * 30
    check = check_graph(_prefs("ABCD", a, b, [1.0, 0.0] * 30))
    assert not check.connected
    (problem,) = check.problems
    assert "2 groups never compared with each other ({A, B}; {C, D})" in problem
    assert "judge pairs across the groups" in problem


def test_a_system_that_won_everything_is_said_to_have_no_finite_score() -> None:
    a = [0, 0, 1] * 20
    b = [1, 2, 2] * 20
    x = [1.0, 1.0, 0.5] * 20  # A beat B and C every time; B and C tied
    check = check_graph(_prefs("ABC", a, b, x))
    assert check.connected and not check.strongly_connected
    (problem,) = check.problems
    assert problem.startswith("A won every comparison")


def test_never_judged_and_thin_systems_are_named() -> None:
    a, b = [0] * 40 + [0] * 5, [1] * 40 + [2] * 5
    check = check_graph(_prefs("ABCD", a, b, [1.0, 0.0] * 20 + [0.5] * 5))
    assert any(p.startswith("never judged: D") for p in check.problems)
    assert any(p.startswith("few judgments for C (under 30 each)") for p in check.problems)
