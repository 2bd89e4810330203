"""DA / SQM slider scores with known truth, at full size: the numbers
docs/statistics-notes.md quotes. tests/estimators/test_da_score.py runs
the same generators lighter.

1. fixed-n coverage of a system mean and a paired difference at n = 50, 60 and 100 labels,
   2,000 replications each (target [0.94, 0.96]);
2. per-annotator z-scores at a null: coverage of Δz = 0 by the paired t interval, 2,000
   replications at n = 60 items;
3. anytime false claims of the live monitor at a null, raw (betting, [0, 1]) and z-scored
   (asympcs): 500 campaigns each (target ≤ 0.05);
4. the score planner's power at its planned n (target 0.8), 4,000 replications.

Run: .venv/bin/python bench/da_score_bench.py  (about 2–4 minutes on one core)
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.estimators.test_da_score import (
    fixed_n_coverage,
    null_false_claims,
    planned_power,
    zscore_null_coverage,
)


def _ci(p: float, n: int) -> str:
    h = 1.96 * math.sqrt(p * (1 - p) / n)
    return f"{p:.4f} [{p - h:.4f}, {p + h:.4f}]"


def main() -> None:
    t0 = time.perf_counter()
    for n in (50, 60, 100):
        cover = fixed_n_coverage(seed=300 + n, reps=2000, n_labels=n)
        print(f"fixed-n coverage, n = {n}, 2,000 reps: mean_t {_ci(cover[0], 2000)}, "
              f"paired {_ci(cover[1], 2000)}")  # fmt: skip
    z = zscore_null_coverage(seed=400, reps=2000)
    print(f"z-scored paired difference at a null, n = 60, 2,000 reps: coverage {_ci(z, 2000)}")
    raw = null_false_claims(seed=500, reps=500, zscores=False)
    zz = null_false_claims(seed=501, reps=500, zscores=True)
    print(f"anytime false claims at a null, 500 campaigns: raw (betting) {_ci(raw, 500)}, "
          f"z-scored (asympcs) {_ci(zz, 500)}")  # fmt: skip
    n, power = planned_power(seed=600, reps=4000)
    print(f"score plan (sd 0.2, δ 0.05): n = {n} per system, power {_ci(power, 4000)}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
