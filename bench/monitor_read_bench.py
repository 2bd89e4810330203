"""The live monitor's read after one new label: the full recomputation (every pair's whole
path, what the dashboard did before) against the monitor with its analyses carried between
reads (estimators.caches.monitor), measured in the same run. A benchmark, not a test.

Campaigns (synthetic, binary labels, paired queue, every system's output of an item in a
random order, the app's default live plan: betting design, test-set estimand, Holm):
- 15 systems × 1,875 items, all labelled (the size of a 1,875-item WMT22 pool);
  adequacy rates evenly spread over 0.55–0.80;
- 60 systems × 2,000 items (``--wmt60``), modelled on a WMT25-like spread of quality:
  adequacy rates 0.35 + 0.5·B_s, B_s the (s + ½)/60 quantiles of a Beta(2, 2) — dense in
  the middle (many systems within a point or two of each other, as in the WMT25 human
  rankings), thin at the ends — labelled up to 1,000 items.

Timings: "full" = ``CampaignMonitor(...).report()`` on all labels without a cache (the
reference, every pair's whole path); "after one label" = the same report with the cache
warmed by the read before the last label (the carried states extended by one label,
estimators.live.carry); "undo" = the read after that label is withdrawn again (the
states roll back one read), "redo" = given again; "cold" = the first read with an empty
cache (what the dashboard pays once per server process and campaign; its pairs spread over
the cores when some are idle, MonitorCache.warm: the thread count it chose is printed), and
the same on one thread and on every core whatever the load. Each is printed with its ratio
to "full" measured in the same run, and the load average at the end (threads only help on
idle cores). The reports are checked equal (every pair's p-value and interval: after the
label, after the undo, and the three cold reads), and "carried" says no stream had to be
analysed from its first label again.

    .venv/bin/python bench/monitor_read_bench.py            # 15 × 1,875
    .venv/bin/python bench/monitor_read_bench.py --wmt60    # also 60 × 2,000 (slow: the
                                                            # full read takes minutes)
    .venv/bin/python bench/monitor_read_bench.py --scores --design asympcs_mix [--metric]
                                          # an ESA-like 15 × 1,875 campaign under a design
                                          # (--metric: with imported metric scores)

``--saved N1,N2,...`` (e.g. ``--saved 200,2000``): a replica's reads with the carried states
kept in the database (estimators.live.saved, db.reads.monitor_state; a temporary SQLite
file), 60 systems × N items all labelled, in CPU-seconds of this process (one thread):
"cold" = today's first read in a new process (every stream from its first label);
"save" = the records of that read written to the database; "from saved" = another
process's first read (an empty cache) that loads the rows and resumes every stream from
them; "one label" = that process's read after one more label (median of 5 labels, ``--labels N``
for N, each saved after its read: "save/label"). The resumed reads are checked equal to the cold
process's reads of the same labels (every pair's p-value and interval, to 1e-12), whose
carried reads equal the full recomputation (tests/estimators/live/). Ratios: from saved /
cold, and one label at N / one label at the smallest N given. ``--labelled 0.5``: the same
with half of the items labelled (reads half-way through a campaign; the default, every item
labelled, times the census reads, where the last labels complete each pair's pool).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

from estimators.caches.monitor import MAX_THREADS, MonitorCache, default_threads  # noqa: E402
from estimators.live.monitor import CampaignMonitor  # noqa: E402


def campaign(k: int, n: int, n_labelled: int, rates: np.ndarray, seed: int):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    y = (rng.random((k, n)) < rates[:, None]).astype(float)
    order = rng.permutation(n)[:n_labelled]
    items = np.repeat(order, k)
    sys_ = np.concatenate([rng.permutation(k) for _ in range(n_labelled)])
    return y, items, sys_


def wmt_like_rates(k: int) -> np.ndarray:
    return 0.35 + 0.5 * stats.beta(2, 2).ppf((np.arange(k) + 0.5) / k)


DESIGN = "betting"
#: per system the pool's metric scores (``--metric``: the score + noise), or None
METRIC: list | None = None


def monitor(y, items, sys_, t: int, cache=None) -> CampaignMonitor:  # type: ignore[no-untyped-def]
    k, n = y.shape
    return CampaignMonitor(
        METRIC or [None] * k, items[:t], sys_[:t], y[sys_[:t], items[:t]],
        np.arange(t, dtype=float), np.ones(t), present=np.ones((k, n), dtype=bool),
        design=DESIGN, finite_pool=True, cache=cache,
    )  # fmt: skip


def score_campaign(k: int, n: int, seed: int):  # type: ignore[no-untyped-def]
    """An ESA-like campaign: scores on [0, 1] crowding the top (1 − an exponential penalty,
    whole points), system means spread over 0.03 below the best."""
    rng = np.random.default_rng(seed)
    base = 1 - rng.exponential(0.08, n)
    y = np.clip(base[None, :] - np.linspace(0, 0.03, k)[:, None]
                - rng.exponential(0.04, (k, n)), 0, 1)  # fmt: skip
    y = np.round(y * 100) / 100
    order = rng.permutation(n)
    items = np.repeat(order, k)
    sys_ = np.concatenate([rng.permutation(k) for _ in range(n)])
    return y, items, sys_


def timed(fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run(name: str, k: int, n: int, n_labelled: int, rates: np.ndarray | None) -> None:
    y, items, sys_ = (
        score_campaign(k, n, seed=k) if rates is None else campaign(k, n, n_labelled, rates, seed=k)
    )  # fmt: skip
    t_all = items.size
    one, every = MonitorCache(threads=1), MonitorCache(threads=min(MAX_THREADS, os.cpu_count()))
    alone, cold1 = timed(lambda: monitor(y, items, sys_, t_all - 1, one).report())
    spread, cold_all = timed(lambda: monitor(y, items, sys_, t_all - 1, every).report())
    policy = default_threads()
    cache = MonitorCache()
    first, cold = timed(lambda: monitor(y, items, sys_, t_all - 1, cache).report())
    built = cache.rebuilt
    carried, warm = timed(lambda: monitor(y, items, sys_, t_all, cache).report())
    extended = cache.rebuilt == built  # the new label extended the carried states
    undone, undo = timed(lambda: monitor(y, items, sys_, t_all - 1, cache).report())
    _, redo = timed(lambda: monitor(y, items, sys_, t_all, cache).report())
    rolled = cache.rebuilt == built  # the undo rolled back, the redo extended again
    full, whole = timed(lambda: monitor(y, items, sys_, t_all).report())
    before = monitor(y, items, sys_, t_all - 1).report()
    same = all(
        a.p_value == b.p_value and a.result.ci == b.result.ci
        for x, z in (
            (carried, full),
            (undone, before),
            (first, before),
            (alone, before),
            (spread, before),
        )
        for a, b in zip(x.pairs, z.pairs, strict=True)
    )
    print(f"{name:28s} pairs {len(full.pairs):>5d}  full {whole:7.2f} s | after one label "
          f"{warm:6.3f} s (ratio {warm / whole:.4f})  undo {undo:6.3f} s (ratio "
          f"{undo / whole:.4f})  redo {redo:6.3f} s | cold {cold:7.2f} s (ratio "
          f"{cold / whole:.2f}, {policy} thread(s); one thread {cold1:.2f} s, "
          f"{every.threads} threads {cold_all:.2f} s) | equal {same}, carried "
          f"{extended and rolled} | load {' '.join(f'{x:.1f}' for x in os.getloadavg())}",
          flush=True)  # fmt: skip


def cpu(fn):  # type: ignore[no-untyped-def]
    t0 = time.process_time()
    out = fn()
    return out, time.process_time() - t0


def _database(tmp: str):  # type: ignore[no-untyped-def]
    """A migrated SQLite file with one (empty) campaign for the states' rows."""
    from annotation.imports.importer import import_campaign
    from db.engine import make_engine
    from db.migrate import upgrade

    engine = make_engine(f"sqlite:///{tmp}/bench.db")
    upgrade(engine)
    csv = b"item_id,source,reference,system,output\ni0,s,r,sys0,o\n"
    return engine, import_campaign(engine, csv, "bench", filename="bench.csv").campaign_id


def _equal(x, z) -> bool:  # type: ignore[no-untyped-def]
    return all(
        abs(a.p_value - b.p_value) <= 1e-12
        and all(
            abs(u - v) <= 1e-12 or u == v for u, v in zip(a.result.ci, b.result.ci, strict=True)
        )
        for a, b in zip(x.pairs, z.pairs, strict=True)
    )


def run_saved(  # type: ignore[no-untyped-def]
    n: int, engine, cid: int, k: int = 60, extra: int = 5, share: float = 1.0
) -> dict[str, float]:
    """One size of the ``--saved`` bench (module docstring); its figures. ``share``: the
    share of the items labelled."""
    from db.reads.monitor_state import keep_from, resume_into

    y, items, sys_ = campaign(k, n, max(1, round(share * n)), wmt_like_rates(k), seed=k)
    t0 = items.size - extra
    scope = f"bench-{n}-{share}"
    cold_cache = MonitorCache(threads=1)
    cold, t_cold = cpu(lambda: monitor(y, items, sys_, t0, cold_cache).report())
    written, t_save = cpu(lambda: keep_from(engine, cid, scope, cold_cache, whole_path=False))
    replica = MonitorCache(threads=1)

    def first_read():  # type: ignore[no-untyped-def]
        resume_into(engine, cid, scope, replica)
        return monitor(y, items, sys_, t0, replica).report()

    first, t_first = cpu(first_read)
    keep_from(engine, cid, scope, replica, whole_path=False)  # nothing changed: no row
    same = _equal(first, cold) and replica.resumed == k + k * (k - 1) // 2
    one, saves = [], []
    for t in range(t0 + 1, items.size + 1):
        rep, dt = cpu(lambda t=t: monitor(y, items, sys_, t, replica).report())
        _, ds = cpu(lambda: keep_from(engine, cid, scope, replica, whole_path=False))
        one.append(dt)
        saves.append(ds)
        ref = monitor(y, items, sys_, t, cold_cache).report()  # the cold process, warm
        same = same and _equal(rep, ref)
    size = sum(int(r) for (r,) in _payload_sizes(engine, cid, scope))
    return dict(n=n, pairs=len(cold.pairs), cold=t_cold, save=t_save, rows=written,
                first=t_first, one=float(np.median(one)), save_label=float(np.median(saves)),
                mb=size / 2**20, equal=same, rebuilt=replica.rebuilt)  # fmt: skip


def _payload_sizes(engine, cid: int, scope: str):  # type: ignore[no-untyped-def]
    from sqlalchemy import func, select

    from db.engine import session_scope
    from db.schema.admin_models import MonitorState

    t = MonitorState.__table__
    with session_scope(engine) as s:
        where = (t.c.campaign_id == cid, t.c.scope == scope)
        return s.execute(select(func.length(t.c.payload)).where(*where)).all()


def main_saved(sizes: list[int], share: float = 1.0, extra: int = 5) -> None:
    import tempfile

    labelled = "all labelled" if share == 1.0 else f"{share:.0%} labelled"
    with tempfile.TemporaryDirectory() as tmp:
        engine, cid = _database(tmp)
        base = None
        for n in sizes:
            r = run_saved(n, engine, cid, extra=extra, share=share)
            base = base or r["one"]
            print(f"60 × {n:,} {labelled} ({r['pairs']:,} pairs) | cold {r['cold']:7.2f} "
                  f"CPU-s | save {r['save']:5.2f} s ({r['rows']} rows, {r['mb']:.1f} MB) | "
                  f"from saved {r['first']:6.2f} CPU-s (ratio to cold {r['first'] / r['cold']:.3f})"
                  f" | one label {r['one']:.3f} CPU-s (ratio to the smallest size "
                  f"{r['one'] / base:.2f}), save/label {r['save_label']:.3f} s | equal "
                  f"{r['equal']}, rebuilt {r['rebuilt']} | load "
                  f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wmt60", action="store_true", help="also 60 systems × 2,000 items")
    ap.add_argument("--items60", type=int, default=1000, help="items labelled at 60 systems")
    ap.add_argument("--design", default="betting", help="the live design (default betting)")
    ap.add_argument(
        "--scores",
        action="store_true",
        help="an ESA-like score campaign (15 × 1,875) instead of binary labels",
    )
    ap.add_argument(
        "--metric",
        action="store_true",
        help="with --scores: imported metric scores (the score + N(0, 0.05²))",
    )
    ap.add_argument(
        "--labels",
        type=int,
        default=5,
        help="with --saved: the new labels whose reads' median is 'one label' "
        "(which pairs a label touches moves a 5-label median by about ±0.02 CPU-s)",
    )
    ap.add_argument("--saved", default=None,
                    help="items per campaign (comma-separated) for the replica bench with "
                         "the states kept in the database, at 60 systems")  # fmt: skip
    ap.add_argument("--labelled", type=float, default=1.0,
                    help="with --saved: the share of the items labelled (default 1: all, "
                         "the census reads; 0.5: reads half-way through)")  # fmt: skip
    args = ap.parse_args(argv)
    if args.saved:
        main_saved([int(x) for x in args.saved.split(",")], args.labelled, args.labels)
        return 0
    global DESIGN, METRIC
    DESIGN = args.design
    if args.scores:
        if args.metric:
            y = score_campaign(15, 1875, seed=15)[0]
            noise = np.random.default_rng(1).normal(0.0, 0.05, y.shape)
            METRIC = list(y + noise)
        tag = ", metric control" if args.metric else ""
        run(f"15 × 1,875 ESA-like, {DESIGN}{tag}", 15, 1875, 1875, None)
        return 0
    run("15 × 1,875, all labelled", 15, 1875, 1875, np.linspace(0.55, 0.80, 15))
    if args.wmt60:
        run(f"60 × 2,000, {args.items60:,} labelled", 60, 2000, args.items60, wmt_like_rates(60))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
