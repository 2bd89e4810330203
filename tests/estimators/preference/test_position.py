import numpy as np

from estimators.preference.position import left_bias
from tests.support.preference_worlds import world


def test_a_left_bias_is_detected_and_its_size_covered() -> None:
    rng = np.random.default_rng(21)
    prefs = world(np.array([0.3, 0.0, -0.3]), 0.4, 3000, rng, left_bias=0.15)
    bias = left_bias(prefs)
    assert bias.detected
    # left wins: 15 % forced + 85 % × ½ on average (sides random) = 0.575
    assert bias.low <= 0.575 <= bias.high
    assert "position bias detected" in bias.text()
    assert 0.45 < bias.share_a_left < 0.55


def test_no_bias_without_one() -> None:
    rng = np.random.default_rng(22)
    prefs = world(np.array([0.3, 0.0, -0.3]), 0.4, 3000, rng)
    bias = left_bias(prefs)
    assert not bias.detected and bias.low <= 0.5 <= bias.high
    assert "not detected" in bias.text()


def test_few_judgments_say_so() -> None:
    rng = np.random.default_rng(23)
    bias = left_bias(world(np.zeros(2), 0.0, 10, rng))
    assert not bias.detected and "too few judgments yet (10)" in bias.text()
