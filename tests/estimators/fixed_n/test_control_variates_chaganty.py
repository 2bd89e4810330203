"""Real data: Chaganty et al. (2018) CNN/DM summaries, post-edit HTER vs sentence chrF.

Human score y = HTER of a summary (mean of its 2 raters' post-edits; lower is better), metric
g = sacrebleu chrF of the summary against the reference highlights (the *_num0 columns, digits
masked alike). For each system, R random label orders of n = 100 summaries are the labelled
set and the other ~395 the unlabelled pool; we compare the human-only t interval with PPI++
(λ̂, unclipped) and measure DE = mean se²_human / mean se²_PPI++.

Run ``python -m tests.estimators.fixed_n.test_control_variates_chaganty`` to print the table.
"""

from __future__ import annotations

import csv
import functools
from collections import defaultdict

import numpy as np
import pytest

from estimators.fixed_n.control_variates import (
    ppi_mean,
    ppi_paired_difference,
    theoretical_data_efficiency,
)
from estimators.fixed_n.human import mean_t, paired_difference
from estimators.judgments.annotator_noise import annotator_noise_ratio
from tests.conftest import shared_file

SYSTEMS = ("pointer", "ml+rl", "ml", "seq2seq")  # the reference is excluded: chrF = 100
N_LABELLED, ORDERS = 100, 300


@functools.cache
def load() -> dict[str, dict[str, np.ndarray]]:
    from sacrebleu.metrics import CHRF

    folder = shared_file("chaganty2018-cnndm-summaries/items.csv").parent
    ratings: dict[tuple[str, str], list[float]] = defaultdict(list)
    with open(folder / "ratings.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            ratings[(row["item_id"], row["system"])].append(float(row["hter"]))
    chrf = CHRF()
    rows: dict[str, dict[str, tuple]] = defaultdict(dict)
    with open(folder / "items.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["system"] not in SYSTEMS:
                continue
            hters = ratings[(row["item_id"], row["system"])]
            score = chrf.sentence_score(row["output_num0"], [row["reference_num0"]]).score
            rows[row["system"]][row["item_id"]] = (float(np.mean(hters)), score, hters)
    common = sorted(set.intersection(*(set(r) for r in rows.values())))
    out = {}
    for s in SYSTEMS:
        y = np.array([rows[s][i][0] for i in common])
        g = np.array([rows[s][i][1] for i in common])
        pairs = np.array([rows[s][i][2][:2] for i in common])
        out[s] = {"y": y, "g": g, "raters": pairs}
    return out


def system_table(seed: int = 0) -> list[dict[str, float]]:
    data = load()
    rng = np.random.default_rng(seed)
    n_items = data[SYSTEMS[0]]["y"].size
    orders = [rng.permutation(n_items) for _ in range(ORDERS)]
    table = []
    for s in SYSTEMS:
        y, g = data[s]["y"], data[s]["g"]
        se_h2 = se_p2 = w_h = w_p = 0.0
        lams = []
        for k, order in enumerate(orders):
            lab, unl = order[:N_LABELLED], order[N_LABELLED:]
            h, p = mean_t(y[lab]), ppi_mean(y[lab], g[lab], g[unl])
            se_h2, se_p2 = se_h2 + h.se**2, se_p2 + p.se**2
            w_h, w_p = w_h + h.width, w_p + p.width
            lams.append(p.diagnostics["lam"])
            if k == 0:
                first_h, first_p = h, p
        rho_y = float(np.corrcoef(y, g)[0, 1])
        gamma = annotator_noise_ratio(data[s]["raters"])
        table.append(
            {
                "system": s,
                "hter_all": float(y.mean()),
                "human_ci": first_h.ci,
                "ppi_ci": first_p.ci,
                "width_ratio": w_p / w_h,
                "de": se_h2 / se_p2,
                "de_theory": theoretical_data_efficiency(rho_y, N_LABELLED, n_items - N_LABELLED),
                "rho_y": rho_y,
                "lam_median": float(np.median(lams)),
                "gamma": gamma.estimate,
            }
        )
    return table


def pair_table(seed: int = 1) -> list[dict[str, float]]:
    data = load()
    rng = np.random.default_rng(seed)
    n_items = data[SYSTEMS[0]]["y"].size
    orders = [rng.permutation(n_items) for _ in range(ORDERS)]
    out = []
    for i, a in enumerate(SYSTEMS):
        for b in SYSTEMS[i + 1 :]:
            ya, yb, ga, gb = data[a]["y"], data[b]["y"], data[a]["g"], data[b]["g"]
            se = {"human": 0.0, "difference": 0.0, "both": 0.0}
            for order in orders:
                lab, unl = order[:N_LABELLED], order[N_LABELLED:]
                se["human"] += paired_difference(ya[lab], yb[lab]).se ** 2
                for c in ("difference", "both"):
                    r = ppi_paired_difference(
                        ya[lab], yb[lab], ga[lab], gb[lab], ga[unl], gb[unl], controls=c
                    )
                    se[c] += r.se**2
            out.append(
                {
                    "pair": f"{a} − {b}",
                    "delta_all": float(ya.mean() - yb.mean()),
                    "de_difference": se["human"] / se["difference"],
                    "de_both": se["human"] / se["both"],
                }
            )
    return out


@pytest.mark.slow
def test_chaganty_hter_chrf_systems():
    table = system_table()
    for row in table:
        print(row)
        # HTER is lower-is-better and chrF higher-is-better: λ̂ < 0, unclipped
        assert row["lam_median"] < 0
        # the measured DE agrees with 1/(1 − ρ_y²·N_u/(N_u+n)) and never costs labels
        assert row["de"] == pytest.approx(row["de_theory"], rel=0.1)
        assert row["de"] > 0.97
        assert row["width_ratio"] < 1.02
        assert 0 < row["gamma"] < 10


def test_chaganty_pairs():
    for row in pair_table():
        print(row)
        assert row["de_difference"] > 0.95 and row["de_both"] > 0.95


if __name__ == "__main__":  # pragma: no cover - the report table
    for row in system_table():
        print(
            f"{row['system']:8s} HTER(all {load()[SYSTEMS[0]]['y'].size}) {row['hter_all']:.3f}  "
            "human-only n=100 "
            f"[{row['human_ci'][0]:.3f}, {row['human_ci'][1]:.3f}]  PPI++ "
            f"[{row['ppi_ci'][0]:.3f}, {row['ppi_ci'][1]:.3f}]  width ratio "
            f"{row['width_ratio']:.3f}  DE {row['de']:.3f} (theory {row['de_theory']:.3f})  "
            f"ρ_y {row['rho_y']:.3f}  λ̂ {row['lam_median']:.4f}  γ {row['gamma']:.2f}"
        )
    for row in pair_table():
        print(
            f"{row['pair']:20s} Δ(all) {row['delta_all']:+.3f}  DE g_A−g_B "
            f"{row['de_difference']:.3f}  DE (g_A, g_B) {row['de_both']:.3f}"
        )
