"""Waiting without starving anyone: a short yielding spin, then a block on an eventfd.

Both sides publish progress in shared counters and wake the other through an ``os.eventfd``:
the parent writes a worker's command eventfd after queueing work for it, a worker writes the
shared completion eventfd after publishing results -- each only when the other side has said it
is about to block (a flag in the arena, with a fence on both sides, see ``fence``), so a
process that is spinning or busy costs its waker no system call. A waiter first re-reads the counters for a
short window (``spin_us``), calling ``sched_yield`` between reads so that a runnable process on
the same core -- a worker still stepping, or the trainer -- takes the core at once; then it
blocks in ``poll`` on the eventfd together with everything that can end the wait early: the
workers' process sentinels (a dead worker), their pipes (messages to drain), or the owner's pidfd
(a worker whose parent died). The eventfd counts writes, so a wake-up sent before the waiter
blocks is never lost: ``poll`` returns at once and the waiter re-reads the counters.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import platform
import select
import signal
import threading
import time
from collections.abc import Callable, Iterable

PR_SET_PDEATHSIG = 1

# A waker skips the eventfd write when the waiter is not blocked. That needs a full memory fence
# between "store my counter" and "load the other side's sleeping flag" on both sides (Dekker):
# an uncontended lock round trip is one on x86-64 (glibc's semaphores and CPython's mutexes use
# locked read-modify-write instructions). Elsewhere every wake-up goes through the eventfd.
SKIP_WAKEUPS = platform.machine().lower() in ("x86_64", "amd64")
_FENCE = threading.Lock()


def fence() -> None:
    """A full memory fence (a locked instruction), ordering earlier stores before later loads."""
    _FENCE.acquire()
    _FENCE.release()


class EventFd:
    """A non-blocking eventfd: ``notify`` adds one, ``drain`` resets it to zero."""

    def __init__(self, fd: int | None = None) -> None:
        self.fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC) if fd is None else fd

    def notify(self) -> None:
        os.eventfd_write(self.fd, 1)

    def drain(self) -> None:
        with contextlib.suppress(BlockingIOError):
            os.eventfd_read(self.fd)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def block(fds: Iterable[int], timeout_s: float | None) -> list[int]:
    """Wait until one of ``fds`` is readable (or hung up); returns those that are."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
    ms = None if timeout_s is None else max(0, int(timeout_s * 1000 + 0.999))
    return [fd for fd, _ in poller.poll(ms)]


def die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when the thread that forked it exits (Linux)."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return
    libc = ctypes.CDLL(libc_name, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def owner_watch(owner_pid: int) -> int | None:
    """A pidfd that becomes readable when ``owner_pid`` exits; None if the owner is gone already
    (or pidfds are unavailable, then -1 and callers fall back to polling ``os.getppid``)."""
    try:
        return os.pidfd_open(owner_pid)
    except ProcessLookupError:
        return None
    except (OSError, AttributeError):
        return -1


def on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


YIELD_SPIN = os.environ.get("ENVHIVE_YIELD_SPIN", "1") == "1"
SIGNAL_CHECK_MS = 200  # the longest a main-thread wait blocks before letting Python run signal handlers
SPIN_FLOOR_S = 20e-6  # the shortest spin worth making


def spin_window(cap_s: float, mean_s: float) -> float:
    """How long to spin before blocking, from the running mean of recent waits: twice the mean
    (a wait about as long as the last ones ends inside it), at least ``SPIN_FLOOR_S``, at most the
    ``spin_us`` cap -- and not at all when waits have lately outlasted the cap (blocking at once
    leaves the core to whoever has work)."""
    if cap_s <= 0 or mean_s > cap_s:
        return 0.0
    return min(cap_s, max(SPIN_FLOOR_S, 2.0 * mean_s))


def spin_yield(ready: Callable[[], bool], deadline: float) -> bool:
    """Re-check ``ready()`` until ``deadline`` (``time.perf_counter`` seconds), giving up the core
    on every round (``sched_yield``: a runnable process on this core -- a worker still stepping, or
    the trainer -- runs first); True once ready, False at the deadline."""
    clock = time.perf_counter
    pause = os.sched_yield if YIELD_SPIN else None
    while True:
        if ready():
            return True
        if clock() >= deadline:
            return False
        if pause is not None:
            pause()
