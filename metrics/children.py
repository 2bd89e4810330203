"""Worker-pool children that die with their parent (Linux).

A ``kill -9`` of a process gives its children no chance to be told: a process pool's
workers are reparented to PID 1 and live on (and a resumed job starts a second pool beside
them). :func:`die_with_parent` is the pool's initializer; in each child it

1. asks the kernel for ``SIGKILL`` when the parent dies (``prctl(PR_SET_PDEATHSIG)``
   through ``ctypes``; immediate, but Linux only and tied to the thread that started the
   child), and
2. starts a daemon thread that polls ``os.getppid()`` every :data:`POLL_S` seconds and
   exits the process when the parent is no longer the one that started it (any POSIX
   system; also covers a parent that died before step 1 ran).

The pool's resource tracker holds only a pipe from the parent and the children: when they
are all gone it reads end-of-file and exits by itself.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import threading

PR_SET_PDEATHSIG = 1
POLL_S = 0.5


def _set_pdeathsig() -> bool:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux: the watchdog alone
        return False


def _watch(parent_pid: int) -> None:
    while True:
        if os.getppid() != parent_pid:
            os._exit(1)
        threading.Event().wait(POLL_S)


def die_with_parent(parent_pid: int) -> None:
    """Pool initializer: this process ends when ``parent_pid`` (its starter) dies."""
    _set_pdeathsig()
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(target=_watch, args=(parent_pid,), daemon=True, name="parent-watch").start()
