"""A pair's stream (estimators.live.pools.CampaignPool.pair_stream): the items both systems
have, in the order the pair completed them (the later of the two labels; equal positions
by item), checked against the definition written out with numpy's set intersection over
hostile streams — items in any order, missing on either side, positions tied."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from estimators.live.pools import CampaignPool, Stream


def _by_definition(a: Stream, b: Stream) -> tuple[np.ndarray, np.ndarray]:
    common, xa, xb = np.intersect1d(a.items, b.items, assume_unique=True, return_indices=True)
    order = np.argsort(np.maximum(a.pos[xa], b.pos[xb]), kind="stable")
    return common[order], a.y[xa][order] - b.y[xb][order]


@st.composite
def _streams(draw, n_items: int = 40):  # type: ignore[no-untyped-def]
    def one() -> Stream:
        items = np.array(draw(st.permutations(range(n_items)))[: draw(st.integers(0, n_items))])
        # positions in arrival order; few distinct values, so ties are common
        steps = draw(st.lists(st.integers(0, 2), min_size=items.size, max_size=items.size))
        pos = np.cumsum(np.array(steps, dtype=float))
        y = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=items.size,
                                   max_size=items.size)))  # fmt: skip
        return Stream(items.astype(np.intp), y, pos)

    return one(), one()


@settings(max_examples=300, deadline=None)
@given(_streams())
def test_a_pair_stream_is_its_definition(streams):  # type: ignore[no-untyped-def]
    a, b = streams
    pool = CampaignPool([None, None], np.ones((2, 40), dtype=bool), None, "difference")
    got = pool.pair_stream(a, b, 0, 1)
    items, d = _by_definition(a, b)
    np.testing.assert_array_equal(got.d, d)
    assert got.g is None and got.pool.size == 40
    if items.size:  # the differences follow the definition's item order
        ya = dict(zip(a.items.tolist(), a.y.tolist(), strict=True))
        yb = dict(zip(b.items.tolist(), b.y.tolist(), strict=True))
        assert got.d.tolist() == [ya[i] - yb[i] for i in items.tolist()]
