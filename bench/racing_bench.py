"""Racing vs uniform: total human labels to settle every pair, on the shipped WMT21 en-de data.

A benchmark, not a test. The pool: the 13 MT systems of ../shared/data/wmt21-ted-mqm
(529 items, the recorded binary MQM label ``human_label_binary`` of each output is the label
it gets). For each random item order (a seed), the queue is replayed twice
(:func:`tests.support.racing_replay.replay`): uniform (every system labelled on every drawn
item) and racing (a system is dropped for good once all its pairs are settled). The live
verdicts are read every ``--every`` items with the app's route: the campaign monitor with
the default live design (betting), the test-set estimand (finite pool), Holm over the 78
pairs at α = 0.05 and a plan the user could make (t* = the planner's labels per pair for a
smallest difference of ε = 0.10 with 13 systems, clipped to the pool by the monitor).

"Settled" is the monitor's own three-way outcome (:func:`estimators.live.status.settled_pairs`,
what racing reads in the app): "A better" / "B better" (Holm on the anytime p-values), or
"no difference larger than ε" (the pair's simultaneous interval lies inside [−ε, ε]).

Labels to settle = the labels given at the first read where every pair is settled; when
some pair never settles within the pool, the campaign runs to the end of the pool, and that
total is reported (with the number of pairs left unsettled). Ratio = racing / uniform,
per order, measured in the same run.

    .venv/bin/python bench/racing_bench.py [--seeds 3] [--every 13]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annotation.campaign.live_plan import forecast_planned_labels
from annotation.queue.racing import settled_pairs
from tests.support.racing_replay import replay

DATA = Path(__file__).resolve().parents[2] / "shared/data/wmt21-ted-mqm/wmt21_ted_ende.csv"
CHAGANTY = DATA.parents[1] / "chaganty2018-cnndm-summaries/items.csv"
EPSILON = 0.10


def load(path: Path = DATA) -> tuple[np.ndarray, list[str]]:
    """(systems × items binary labels, system names) of the MT systems (no human refs)."""
    df = pd.read_csv(path)
    df = df[df["is_human"] == 0]
    items = sorted(df["item_id"].unique())
    systems = sorted(df["system"].unique())
    grid = df.pivot_table(index="system", columns="item_id", values="human_label_binary")
    return grid.reindex(index=systems, columns=items).to_numpy(dtype=float), systems


def load_chaganty(path: Path = CHAGANTY) -> tuple[np.ndarray, list[str]]:
    """Chaganty et al. 2018 CNN/DM (4 systems, binary labels), the items every system has
    (as bench/labels_to_significance.py loads them)."""
    df = pd.read_csv(path)
    df = df[df["is_human"] == 0]
    systems = sorted(df["system"].unique())
    full = df.groupby("item_id")["system"].nunique()
    df = df[df["item_id"].isin(full[full == len(systems)].index)]
    grid = df.pivot_table(index="system", columns="item_id", values="human_label_binary")
    return grid.reindex(index=systems).to_numpy(dtype=float), systems


def unsettled(run) -> int:  # type: ignore[no-untyped-def]
    last = run.reports[-1]
    return len(last.pairs) - len(settled_pairs(last))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--every", type=int, default=13, help="items between two reads")
    ap.add_argument("--epsilon", type=float, nargs="+", default=[EPSILON], help="margins ε")
    ap.add_argument("--data", choices=["wmt21", "chaganty"], default="wmt21")
    ap.add_argument("--latency", type=int, default=0, help="also time N saves (SQLite)")
    ap.add_argument("--before", action="store_true",
                    help="the earlier bets: ½ plan-sized + ½ Kelly with cap ½")  # fmt: skip
    args = ap.parse_args()
    if args.before:
        from estimators.sequences import betting_capital

        betting_capital.PARTS = ((0.5, "plan"), (0.5, 0.5))  # the global the capital reads
    if args.latency:
        latency(args.latency)
    y, names = load() if args.data == "wmt21" else load_chaganty()
    label = "WMT21 en-de" if args.data == "wmt21" else "Chaganty CNN/DM"
    for eps in args.epsilon:
        bench(y, names, eps, args.seeds, args.every, label)


def bench(y: np.ndarray, names: list[str], eps: float, seeds: int, every: int, label: str) -> None:
    """Uniform vs racing at margin ε, one line per item order, then the median ratio."""
    k, n = y.shape
    t_star = forecast_planned_labels(k, eps)
    monitor = dict(
        design="betting", finite_pool=True, equivalence_margin=eps, t_star=t_star, alpha=0.05
    )
    print(
        f"{label}: {k} systems, {n} items, {k * (k - 1) // 2} pairs; ε = {eps}; "
        f"t* = {t_star} (planner, clipped to the pool); reads every {every} items"
    )
    ratios, oracles = [], []
    for seed in range(seeds):
        order = np.random.default_rng(seed).permutation(n)
        started = time.perf_counter()
        first: dict[tuple[str, str], int] = {}

        def note(rep, total, first=first) -> None:  # type: ignore[no-untyped-def]
            for pair in settled_pairs(rep):
                first.setdefault(pair, total // k)

        runs = {}
        for mode in ("uniform", "racing"):
            watch = note if mode == "uniform" else None
            runs[mode] = replay(
                y, order, racing=mode == "racing", every=every, names=names, on_read=watch,
                **monitor,
            )  # fmt: skip
        uni, rac = (runs[m].labels[-1] for m in ("uniform", "racing"))
        ratios.append(rac / uni)
        oracles.append(oracle_ratio(first, names, n))
        print(
            f"ε = {eps} seed {seed}: uniform {uni:,} labels ({unsettled(runs['uniform'])} pairs "
            f"unsettled), racing {rac:,} ({unsettled(runs['racing'])} unsettled, "
            f"{len(runs['racing'].dropped)} systems dropped), ratio {rac / uni:.3f}; "
            f"oracle racing {oracles[-1]:.3f} [{time.perf_counter() - started:.0f} s]",
            flush=True,
        )
    print(
        f"ε = {eps}: racing / uniform total labels: median {np.median(ratios):.3f} "
        f"(min {min(ratios):.3f}, max {max(ratios):.3f}) over {seeds} orders; oracle racing "
        f"(knows when each system is settled, same verdicts) {np.median(oracles):.3f}; "
        f"ideal fixed-n test (knows Δ and σ, α/m, no anytime cost) {ideal_ratio(y, eps):.3f}",
        flush=True,
    )


def oracle_ratio(first: dict[tuple[str, str], int], names: list[str], n: int) -> float:
    """Racing that knows when each system is settled, on the uniform run's own verdicts:
    system s is labelled on the items up to its last pair's settling (the pool's end when a
    pair never settles), over all systems labelled up to the last pair's settling."""
    ends = [max((first.get((a, b), n) for a, b in _pairs(names) if s in (a, b)), default=0)
            for s in names]  # fmt: skip
    return float(np.sum(ends) / (len(names) * max(ends)))


def _pairs(names: list[str]) -> list[tuple[str, str]]:
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


def ideal_ratio(y: np.ndarray, eps: float, alpha: float = 0.05, floor: int = 30) -> float:
    """Racing ÷ uniform if every pair settled when a fixed-n z-test that knows the pair's
    Δ and σ would (Bonferroni α/m, finite-pool correction, the 30-label floor): the pair
    settles at the first n ≥ 30 with z·σ·sqrt((N − n)/(N n)) < |Δ| (a sign) or < ε − |Δ|
    (no difference larger than ε). No anytime-valid test settles pairs sooner in the
    median, so no racing on these pairs' verdicts does better than this ratio (up to the
    approximations named in bench/racing_wide_bench.py, "The ideal")."""
    ends = ideal_ends(y, eps, alpha, floor)
    return float(ends.sum() / (len(ends) * ends.max()))


def ideal_ends(y: np.ndarray, eps: float, alpha: float = 0.05, floor: int = 30) -> np.ndarray:
    """(k,) items to each system's last pair settling for the ideal test of
    :func:`ideal_ratio` (its racing labels are the sum, its uniform labels k × the max)."""
    from scipy import stats

    k, n = y.shape
    m = k * (k - 1) // 2
    z = stats.norm.ppf(1 - alpha / (2 * m))
    t = np.arange(1, n + 1)
    ends = np.zeros(k)
    for a in range(k):
        for b in range(a + 1, k):
            d = y[a] - y[b]
            half = z * d.std() * np.sqrt((n - t) / (n * t))
            ok = ((half < abs(d.mean())) | (half < eps - abs(d.mean()))) & (t >= floor)
            end = int(t[np.argmax(ok)]) if ok.any() else n
            ends[[a, b]] = np.maximum(ends[[a, b]], end)
    return ends


if __name__ == "__main__":
    main()


def latency(n_labels: int = 2_000) -> None:
    """Save latency with racing on vs off (SQLite, the WMT21 pool, one annotator labelling
    in queue order with the recorded labels): median, p99 and max seconds per save, and
    the share of saves that recomputed the systems in play."""
    import tempfile

    from accounts.invites import create_annotator
    from annotation.imports.importer import import_campaign
    from annotation.judging import save as judging
    from annotation.judging import session
    from annotation.queue import build as queue_build
    from annotation.queue import racing
    from db.engine import make_engine
    from db.migrate import upgrade

    df = pd.read_csv(DATA)
    df = df[df["is_human"] == 0]
    label = {(r.item_id, r.system): r.human_label_binary for r in df.itertuples()}
    csv = df[["item_id", "source", "reference", "system", "output"]].to_csv(index=False)
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{tmp}/bench.db")
        upgrade(engine)
        for mode in ("uniform", "racing"):
            import_campaign(engine, csv.encode(), mode, filename="wmt21.csv",
                            settings={"attention_rate": 0.0, "overlap": 0.0})  # fmt: skip
            cid = _cid(engine, mode)
            if mode == "racing":
                racing.set_racing(engine, cid, True)
            queue_build.build_queue(engine, cid, seed=0)
            who = create_annotator(engine, cid, "a").annotator_id
            keys = _output_keys(engine, cid)
            times = []
            view = session.next_view(engine, who)
            while view.slot is not None and len(times) < n_labels:
                t0 = time.perf_counter()
                view = judging.submit(engine, who, view.slot.assignment_id,
                                      view.slot.claim_version,
                                      label=int(label[keys[view.slot.output_id]]))  # fmt: skip
                times.append(time.perf_counter() - t0)
            t = np.array(times)
            print(f"[latency] {mode}: {t.size:,} saves, median {np.median(t) * 1e3:.1f} ms, "
                  f"p99 {np.quantile(t, 0.99) * 1e3:.0f} ms, max {t.max() * 1e3:.0f} ms, "
                  f"{racing.dropped_systems(engine, cid)!r:.80}")  # fmt: skip


def _cid(engine, name: str) -> int:  # type: ignore[no-untyped-def]
    from db.reads.campaign import campaign_id

    cid = campaign_id(engine, name)
    assert cid is not None
    return cid


def _output_keys(engine, cid: int) -> dict[int, tuple[str, str]]:  # type: ignore[no-untyped-def]
    from db.reads.campaign import read_campaign

    data = read_campaign(engine, cid)
    return {
        int(data.output_ids[s, j]): (data.item_ids[j], data.systems[s])
        for s in range(len(data.systems))
        for j in range(len(data.item_ids))
        if data.output_ids[s, j] >= 0
    }
