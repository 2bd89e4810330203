"""Cost of reading an adaptive preference campaign: the pair verdicts from
inverse-probability-weighted increments over every eligible step
(estimators.preference.adaptive) ÷ the uniform design's per-pair streams, measured in the
same run on the same worlds. A benchmark, not a test.

World: 13 systems (78 pairs), Davidson ν = 0.2, scores evenly spread over [0, 2]; n
judgments drawn by the uniform policy and by the adaptive one (annotation.queue.pair_policy,
γ = 0.3, π recomputed every 10 sources: tests/support/preference_adaptive.py).
Figure: CPU-seconds of estimators.preference.pairs.pair_preferences (best of ``--repeat``),
and their ratio adaptive ÷ uniform.

    .venv/bin/python bench/preference_adaptive_bench.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from estimators.preference.pairs import pair_preferences
from tests.support.preference_adaptive import simulate


def _cpu(prefs, repeat: int) -> float:  # type: ignore[no-untyped-def]
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        pair_preferences(prefs)
        best = min(best, time.process_time() - start)
    return float(best)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    theta = np.linspace(0.0, 2.0, 13)
    print("judgments  uniform CPU-s  adaptive CPU-s  ratio")
    for n in (2_000, 5_000, 10_000, 20_000):
        uniform = _cpu(simulate(theta, 0.2, n, "uniform", rng), args.repeat)
        adaptive = _cpu(simulate(theta, 0.2, n, "adaptive", rng), args.repeat)
        print(f"{n:>9,}  {uniform:>13.2f}  {adaptive:>14.2f}  {adaptive / uniform:>5.2f}")


if __name__ == "__main__":
    main()
