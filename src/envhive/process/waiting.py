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
import math
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


CROWD_CHECK_S = 0.02  # how often a waiter re-reads the machine's runnable count
CROWDED_CAP_S = 50e-6  # the spin cap while other processes (or the trainer's threads) are runnable
CALM_S = 1.0  # how long every read must show nothing else runnable before the full cap is back
SPIN_EMA = 0.25  # weight of the newest wait in the running mean


def runnable_now() -> int:
    """Threads runnable on the machine right now (``/proc/loadavg``'s fourth field; 0 when it
    cannot be read)."""
    try:
        with open("/proc/loadavg", "rb") as f:
            return int(f.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return 0


class Spinner:
    """When one waiter spins, and for how long.

    The window comes from a running mean of the waiter's recent waits: twice the mean (a wait
    about as long as the last ones ends inside it), at least ``SPIN_FLOOR_S``, at most the cap --
    and none when waits have lately outlasted the cap (blocking at once leaves the core to whoever
    has work). The cap is ``spin_us`` while the pool's processes have the machine to themselves,
    and at most ``CROWDED_CAP_S`` while anything else is runnable: the machine's runnable count
    (``/proc/loadavg``, re-read every ``CROWD_CHECK_S``) was above the pool's own processes in the
    last ``CALM_S`` (a trainer's thread pool, say, shows up in some reads and not others). Other
    processes (or the trainer's own threads) then take the cores between the pool's steps, and a
    long yielding spin loses to them: a ``sched_yield`` hands the core to one of them for its whole
    time slice (milliseconds), while a blocked waiter runs as soon as it is woken."""

    __slots__ = ("calm_since", "cap_s", "checked", "crowd_limit", "crowded", "mean_s")

    def __init__(self, cap_s: float, pool_processes: int) -> None:
        self.cap_s = cap_s
        self.mean_s = 0.0  # seconds, running mean of recent waits
        self.crowd_limit = pool_processes
        self.crowded = False
        self.checked = -math.inf  # when the runnable count was last read (perf_counter)
        self.calm_since = -math.inf  # since when no read showed anything else runnable

    def window(self, now: float) -> float:
        """Seconds to spin before blocking on the wait that starts at ``now`` (0: block at once)."""
        if now - self.checked >= CROWD_CHECK_S:
            self.checked = now
            if runnable_now() > self.crowd_limit:
                self.calm_since = now
            self.crowded = now - self.calm_since < CALM_S
        cap = min(self.cap_s, CROWDED_CAP_S) if self.crowded else self.cap_s
        if cap <= 0 or self.mean_s > cap:
            return 0.0
        return min(cap, max(SPIN_FLOOR_S, 2.0 * self.mean_s))

    def spin(self, ready: Callable[[], bool], deadline: float) -> bool:
        """Re-check ``ready()`` until ``deadline`` (``time.perf_counter`` seconds), giving up the
        core on every round (``sched_yield``: a runnable process on this core -- a worker still
        stepping, or the trainer -- runs first); True once ready, False at the deadline."""
        clock = time.perf_counter
        pause = os.sched_yield if YIELD_SPIN else None
        while True:
            if ready():
                return True
            if clock() >= deadline:
                return False
            if pause is not None:
                pause()

    def record(self, wait_s: float) -> None:
        """Fold a finished wait (seconds) into the running mean."""
        self.mean_s += SPIN_EMA * (min(wait_s, 1.0) - self.mean_s)
