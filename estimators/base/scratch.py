"""Scratch arrays reused from call to call, one pool per thread.

A fresh NumPy array of a few hundred kilobytes is memory the C library takes from the
operating system and, once freed, gives back: every 4 KB page of the next one is a page
fault and a zeroing on first touch. The betting capital (:mod:`estimators.sequences.betting`) works
on
about fifteen (null means × labels) temporaries per stream; at the monitor's cold start
(60 systems, 1,770 pairs, 500 labels) that was 2 million page faults and a quarter of the
time. Drawing the temporaries from a pool of buffers kept between calls costs none.

Only temporaries may come from here: an array taken inside :meth:`Scratch.arrays` is
handed back when the block ends, so nothing taken (nor a view of it) may be returned.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

#: Buffers kept per thread, and the headroom a new one gets (a slightly longer stream,
#: e.g. the next pair's, reuses it).
KEEP = 32
HEADROOM = 1.125
#: Arrays smaller than this come from the C library's heap as usual (no page faults there;
#: a stream extended by one label works on such arrays).
SMALL = 32 * 1024


class Scratch(threading.local):
    """A per-thread pool of flat byte buffers (module docstring)."""

    def __init__(self) -> None:
        self.free: list[np.ndarray] = []

    @contextmanager
    def arrays(self) -> Iterator[Callable[..., np.ndarray]]:
        """``take(shape, dtype=float)``: an uninitialised array of that shape, valid until
        the block ends."""
        taken: list[np.ndarray] = []

        def take(shape: tuple[int, ...], dtype=float) -> np.ndarray:  # type: ignore[no-untyped-def]
            kind = _FLOAT if dtype is float else np.dtype(dtype)
            nbytes = math.prod(shape) * kind.itemsize
            if nbytes < SMALL:
                return np.empty(shape, kind)
            buf = self._pop(nbytes)
            taken.append(buf)
            return np.ndarray(shape, kind, buffer=buf)

        try:
            yield take
        finally:
            self.free.extend(reversed(taken))
            if len(self.free) > KEEP:  # keep the largest
                self.free.sort(key=len)
                del self.free[: len(self.free) - KEEP]

    def _pop(self, nbytes: int) -> np.ndarray:
        """The most recently returned buffer of at least ``nbytes`` bytes (the arrays of one
        stream are mostly of one size), else a new one."""
        free = self.free
        for i in range(len(free) - 1, -1, -1):
            if free[i].size >= nbytes:
                return free.pop(i)
        return np.empty(max(int(nbytes * HEADROOM), 64), dtype=np.uint8)


_FLOAT = np.dtype(float)


#: The process's pool (one per thread).
SCRATCH = Scratch()
