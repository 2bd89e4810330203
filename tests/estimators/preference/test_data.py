import numpy as np
import pytest

from estimators.base.multiple import pairs
from estimators.preference.data import Preferences, preferences_from_names


def test_pair_index_follows_the_pairs_order() -> None:
    k = 6
    plist = pairs(k)
    a = np.array([p[0] for p in plist])
    b = np.array([p[1] for p in plist])
    prefs = Preferences(tuple("ABCDEF"), a, b, np.ones(a.size), np.ones(a.size, bool))
    assert prefs.pair_index().tolist() == list(range(len(plist)))


@pytest.mark.parametrize(
    ("a", "b", "x", "w", "words"),
    [
        ([1], [0], [1.0], None, "judgment 0: pair (1, 0) is not a canonical pair"),
        ([0], [3], [1.0], None, "not a canonical pair of the 3 systems"),
        ([0], [0], [1.0], None, "not a canonical pair"),
        ([0, 1], [1, 2], [1.0, 0.3], None, "judgment 1: outcome 0.3 is not 1, 0.5 or 0"),
        ([0], [1], [1.0], [0.5], "judgment 0: weight 0.5 is not 1/π"),
        ([0], [1], [1.0], [float("nan")], "weight nan"),
        ([0], [1, 2], [1.0], None, "b has 2 entries, a has 1"),
    ],
)
def test_bad_arrays_are_refused_naming_the_judgment(a, b, x, w, words) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        Preferences(("A", "B", "C"), np.array(a), np.array(b), np.array(x),
                    np.ones(len(a), bool), None if w is None else np.array(w))  # fmt: skip


def test_duplicate_system_names_are_refused() -> None:
    with pytest.raises(ValueError, match="distinct"):
        Preferences(("A", "A"), np.array([0]), np.array([1]), np.array([1.0]), np.array([True]))


def test_names_as_shown_become_canonical_pairs_seen_from_the_first() -> None:
    prefs = preferences_from_names(
        ["A", "B", "C"], left=["B", "A", "C", "C"], right=["A", "C", "A", "B"],
        winner=["left", "left", "tie", "right"],
    )  # fmt: skip
    assert prefs.a.tolist() == [0, 0, 0, 1]
    assert prefs.b.tolist() == [1, 2, 2, 2]
    assert prefs.outcome.tolist() == [0.0, 1.0, 0.5, 1.0]  # B won over A: a = A lost
    assert prefs.a_on_left.tolist() == [False, True, False, False]
    assert prefs.left_won().tolist() == [1.0, 1.0, 0.5, 0.0]


def test_names_unknown_or_self_compared_are_refused() -> None:
    with pytest.raises(ValueError, match="judgment 1: unknown system 'Z'"):
        preferences_from_names(["A", "B"], ["A", "Z"], ["B", "A"], ["tie", "tie"])
    with pytest.raises(ValueError, match="compared with itself"):
        preferences_from_names(["A", "B"], ["A"], ["A"], ["tie"])
    with pytest.raises(ValueError, match="winner 'both' is not left, right or tie"):
        preferences_from_names(["A", "B"], ["A"], ["B"], ["both"])
