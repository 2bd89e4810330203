"""The live monitor's carried states kept outside the process (estimators.live.saved): a new
process (an empty cache) given the records the last read left resumes every stream from
them, and every read of replayed campaigns agrees with the full recomputation to 1e-12 —
with the whole path kept or only its end; a record for another plan, for labels that have
changed, or broken, is discarded and the stream analysed from its first label."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from estimators.caches.monitor import MonitorCache
from estimators.caches.packing import pack, unpack
from estimators.live.carry import offer, records
from estimators.live.monitor import CampaignMonitor
from estimators.live.saved import SavedState, stream_name, stream_of
from estimators.report.live import width_paths
from tests.estimators.caches.test_monitor import _same
from tests.estimators.live.test_carry import _labels, _queue


def _campaign(k, n, seed, *, paired=True, continuous=False):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    y = _labels(k, n, rng, continuous)
    items, sys_ = _queue(k, n, rng, paired)
    return y, items, sys_


def _monitor(y, items, sys_, idx, cache=None, **kw):  # type: ignore[no-untyped-def]
    k, n = y.shape
    idx = np.asarray(idx, dtype=int)
    common = dict(present=np.ones((k, n), dtype=bool), design="betting", **kw)
    return CampaignMonitor([None] * k, items[idx], sys_[idx], y[sys_[idx], items[idx]],
                           idx.astype(float), np.ones(idx.size), cache=cache, **common)  # fmt: skip


def _through_bytes(kept: dict[str, SavedState]) -> list[SavedState]:
    """The records as a database row gives them back: bytes in, bytes out."""
    return [dataclasses.replace(r, payload=bytes(bytearray(r.payload))) for r in kept.values()]


def _replay(k, n, seed, *, whole_path, paired=True, continuous=False, every=1, **kw):  # type: ignore[no-untyped-def]
    """Label the queue one label at a time; every ``every`` labels a new process (an empty
    cache) resumes from the records kept so far. Every read is compared with a fresh
    monitor's. Returns (resumed, rebuilt) summed over the new processes."""
    y, items, sys_ = _campaign(k, n, seed, paired=paired, continuous=continuous)
    kept: dict[str, SavedState] = {}
    cache = MonitorCache()
    resumed = rebuilt = 0
    for t in range(1, items.size + 1):
        if t % every == 0:
            resumed, rebuilt = resumed + cache.resumed, rebuilt + cache.rebuilt
            cache = MonitorCache()
            offer(cache, _through_bytes(kept))
        carried_mon = _monitor(y, items, sys_, range(t), cache, **kw)
        full_mon = _monitor(y, items, sys_, range(t), **kw)
        _same(carried_mon.report(), full_mon.report())
        if t % 7 == 0:  # the width chart's paths too
            for a in range(k):
                for b in range(a + 1, k):
                    _same(carried_mon.pair_sequence(a, b), full_mon.pair_sequence(a, b))
        kept.update((r.stream, r) for r in records(cache, whole_path=whole_path))
    return resumed + cache.resumed, rebuilt + cache.rebuilt


@pytest.mark.parametrize(
    "case",
    [
        dict(finite_pool=True, error_rate="holm", whole_path=False),
        dict(finite_pool=True, error_rate="holm", whole_path=True),
        dict(finite_pool=True, error_rate="ebh", whole_path=False),
        dict(finite_pool=False, error_rate="holm", continuous=True, whole_path=False),
        dict(finite_pool=False, error_rate="ebh", paired=False, whole_path=False, every=3),
        dict(k=2, n=110, finite_pool=True, error_rate="holm", t_star=60, whole_path=False),
    ],
    ids=[
        "wor-holm",
        "wor-holm-whole",
        "wor-ebh",
        "iid-cont",
        "iid-ebh-unpaired-every3",
        "long-wor",
    ],
)
def test_every_read_resumed_in_a_new_process_agrees_with_the_full_recomputation(case):
    case = dict(case)
    k, n = case.pop("k", 4), case.pop("n", 16)
    resumed, rebuilt = _replay(k, n, seed=len(str(case)), **case)
    streams = k + k * (k - 1) // 2
    # each stream is built from its first label once, in the process that saw its first
    # label; every later process resumes it
    assert rebuilt == streams, rebuilt
    assert resumed > 0


def test_a_record_for_another_plan_or_other_labels_is_discarded():
    k, n = 3, 30
    y, items, sys_ = _campaign(k, n, seed=5)
    cache = MonitorCache()
    t = items.size - 4
    _monitor(y, items, sys_, range(t), cache, finite_pool=True).report()
    kept = records(cache, whole_path=False)
    assert len(kept) == k + k * (k - 1) // 2
    # another plan: t* changes every stream's tuning, so no record is used
    fresh = MonitorCache()
    offer(fresh, kept)
    got = _monitor(y, items, sys_, range(t), fresh, finite_pool=True, t_star=12).report()
    _same(got, _monitor(y, items, sys_, range(t), finite_pool=True, t_star=12).report())
    assert fresh.resumed == 0 and fresh.rebuilt == len(kept)
    # a label of the first item's first system changed since: its streams start over
    y2 = y.copy()
    y2[sys_[0], items[0]] = 1 - y2[sys_[0], items[0]]
    fresh = MonitorCache()
    offer(fresh, kept)
    got = _monitor(y2, items, sys_, range(t), fresh, finite_pool=True).report()
    _same(got, _monitor(y2, items, sys_, range(t), finite_pool=True).report())
    assert fresh.rebuilt == k and fresh.resumed == len(kept) - k  # the system, its 2 pairs
    # a broken record: discarded, the stream analysed again
    broken = [dataclasses.replace(r, payload=r.payload[:40]) for r in kept]
    fresh = MonitorCache()
    offer(fresh, broken)
    got = _monitor(y, items, sys_, range(t), fresh, finite_pool=True).report()
    _same(got, _monitor(y, items, sys_, range(t), finite_pool=True).report())
    assert fresh.resumed == 0


def _resumed_before_the_last_label(k: int, n: int):  # type: ignore[no-untyped-def]
    """A campaign read up to its last label but one, and a fresh cache offered that read's
    records without whole paths (another process's): (y, items, sys_, t, fresh cache)."""
    y, items, sys_ = _campaign(k, n, seed=3)
    cache = MonitorCache()
    t = items.size - 1
    _monitor(y, items, sys_, range(t), cache, finite_pool=True).report()
    fresh = MonitorCache()
    offer(fresh, records(cache, whole_path=False))
    return y, items, sys_, t, fresh


def test_a_new_label_after_a_resume_extends_the_resumed_states():
    k, n = 4, 40
    y, items, sys_, t, fresh = _resumed_before_the_last_label(k, n)
    got = _monitor(y, items, sys_, range(t + 1), fresh, finite_pool=True).report()
    _same(got, _monitor(y, items, sys_, range(t + 1), finite_pool=True).report())
    assert fresh.rebuilt == 0 and fresh.resumed == k + k * (k - 1) // 2
    # only the streams the new label touched are saved again: its system and its pairs
    again = {stream_of(r.stream) for r in records(fresh, whole_path=False)}
    s = int(sys_[t])
    assert again == {("system", s), *(("pair", min(s, b), max(s, b)) for b in range(k) if b != s)}
    _monitor(y, items, sys_, range(t + 1), fresh, finite_pool=True).report()
    assert records(fresh, whole_path=False) == []


def test_a_resumed_process_searches_no_more_means_than_the_process_that_saved(monkeypatch):
    # the probe (the capitals of the means the last end search kept) is part of the record:
    # a resumed pair's first read after a new label extends them instead of searching its
    # ends from the grid again — half-way through a campaign, where the ends move each label
    from estimators.sequences.betting_carry import CarriedBetting

    k, n = 4, 60
    y, items, sys_ = _campaign(k, n, seed=11)
    t = items.size // 2
    saver = MonitorCache()
    _monitor(y, items, sys_, range(t), saver, finite_pool=True).report()
    kept = _through_bytes({r.stream: r for r in records(saver, whole_path=False)})
    assert any(unpack(r.payload)["probe"] is not None for r in kept)
    fresh_means = []
    make_fresh = CarriedBetting._fresh

    def counted(self, points):  # type: ignore[no-untyped-def]
        fresh_means.append(points.shape[0])
        return make_fresh(self, points)

    monkeypatch.setattr(CarriedBetting, "_fresh", counted)
    tested = {}
    for name, cache in (("saver", saver), ("resumed", MonitorCache())):
        if name == "resumed":
            offer(cache, kept)
        fresh_means.clear()
        for u in range(t + 1, t + 6):  # five new labels, each read
            got = _monitor(y, items, sys_, range(u), cache, finite_pool=True).report()
            _same(got, _monitor(y, items, sys_, range(u), finite_pool=True).report())
        tested[name] = sum(fresh_means)
    assert tested["saver"] > 0
    assert tested["resumed"] == tested["saver"], tested
    # a probe that does not fit its state (another tuning) is dropped, the read the same
    tree = unpack(kept[-1].payload)
    tree["probe"]["caps"][0]["tuning"] = (0.5, 1.0, 2, 1)
    broken = [*kept[:-1], dataclasses.replace(kept[-1], payload=pack(tree))]
    cache = MonitorCache()
    offer(cache, broken)
    got = _monitor(y, items, sys_, range(t + 1), cache, finite_pool=True).report()
    _same(got, _monitor(y, items, sys_, range(t + 1), finite_pool=True).report())
    assert cache.rebuilt == 0


def test_a_resumed_process_reads_the_pairs_last_intervals_from_the_kept_ends(monkeypatch):
    # the width rows of a campaign too large for the chart are each pair's last interval:
    # a process resumed from records without whole paths reads them from the kept ends
    # (analysing them again from their first label is ≈ 8 CPU-s a read at 1,770 pairs)
    k, n = 4, 40
    y, items, sys_, t, fresh = _resumed_before_the_last_label(k, n)
    resumed_mon = _monitor(y, items, sys_, range(t + 1), fresh, finite_pool=True)
    resumed_mon.report()
    full_mon = _monitor(y, items, sys_, range(t + 1), finite_pool=True)
    full_mon.report()
    analyse_again = resumed_mon._analysis.pair_sequence

    def refused(a: int, b: int) -> None:
        raise AssertionError(f"pair {a}-{b} analysed again from its first label")

    monkeypatch.setattr(resumed_mon._analysis, "pair_sequence", refused)
    ends, want = width_paths(resumed_mon, points=0), width_paths(full_mon, points=0)
    assert [(r["pair"], r["t"]) for r in ends] == [(r["pair"], r["t"]) for r in want]
    assert len(ends) == k * (k - 1) // 2
    for got, ref in zip(ends, want, strict=True):
        assert got["low"] == pytest.approx(ref["low"], abs=1e-12)
        assert got["high"] == pytest.approx(ref["high"], abs=1e-12)
    # the whole paths (the chart's) are not the NaN-headed ends: analysed again
    monkeypatch.setattr(resumed_mon._analysis, "pair_sequence", analyse_again)
    for a in range(k):
        for b in range(a + 1, k):
            _same(resumed_mon.pair_sequence(a, b), full_mon.pair_sequence(a, b))


def test_packing_round_trips_and_refuses_what_it_cannot_read():
    tree = {
        "a": np.arange(6.0).reshape(2, 3),
        "b": (1, None, [True, "x"]),
        "c": -np.inf,
        "d": np.array([True, False]),
        "e": np.float64(0.1),
        "f": np.int64(7),
    }
    back = unpack(pack(tree))
    np.testing.assert_array_equal(back["a"], tree["a"])
    assert back["b"] == (1, None, [True, "x"]) and back["c"] == -np.inf
    assert back["d"].dtype == bool and back["e"] == 0.1 and back["f"] == 7
    with pytest.raises(ValueError, match="dtype"):
        pack(np.array([object()]))
    with pytest.raises(ValueError, match="cannot pack"):
        pack({"x": object()})
    for bad in (b"", b"nope", pack(tree)[:-3], b"TMS1" + b"\xff" * 20):
        with pytest.raises(ValueError):
            unpack(bad)
    assert stream_of(stream_name(("pair", 3, 17))) == ("pair", 3, 17)
