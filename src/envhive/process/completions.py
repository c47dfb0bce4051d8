"""Completions: what the workers of a ProcessPool have finished, and waiting for it.

Workers publish each completion in their ring of the arena and bump their counter; the parent
waits for a count (every env of a sync step, or the first ``n`` of async ones): it spins briefly
(``waiting.Spinner``), then blocks in ``poll`` on the done eventfd, the workers' pipes (infos,
errors and objects too large for the arena arrive there) and their sentinels (a death is seen at
once). Pipe messages are drained into ``errors``, ``infos_in`` and ``objects`` for the rows that
need them.
"""

from __future__ import annotations

import contextlib
import pickle
import select
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from envhive.errors import PoolClosedError
from envhive.process.arena import LINE_WORDS
from envhive.process.infos import WORKER_SHIFT, InfoReader
from envhive.process.waiting import SIGNAL_CHECK_MS, Spinner, fence, on_main_thread
from envhive.process.workers import CLOSED_MESSAGE, WorkerDiedError, WorkerHandle


class Pool(Protocol):
    """What the completion side reads of its pool (``envhive.process.pool.ProcessPool``)."""

    workers: list[WorkerHandle]
    done: Any  # the parent's eventfd (waiting.EventFd)
    done_head: Any
    done_ring: Any
    head_words: list[int]
    capacity: int
    parent_waiting: Any
    want_total: Any
    spin_s: float
    closing: bool
    arrays: Any
    worker_of: np.ndarray
    infos: InfoReader

    def pending(self) -> int: ...

    def died(self, h: WorkerHandle) -> WorkerDiedError: ...


class Completions:
    """The completion side of ``pool``: counters, rings and pipes it reads (see the module doc)."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.workers = pool.workers
        self.done = pool.done
        self.done_head = pool.done_head
        self.done_ring = pool.done_ring
        self.head_words = pool.head_words
        self.capacity = pool.capacity
        self.parent_waiting = pool.parent_waiting
        self.want_total = pool.want_total
        self.infos_in: dict[tuple[int, int], dict[str, Any]] = {}  # (env_id, area) -> pickled info
        self.errors: dict[int, str] = {}  # env_id -> traceback text
        self.objects: dict[tuple[int, str], Any] = {}  # (env_id, region) -> an object leaf too big for its slot
        self.spinner = Spinner(pool.spin_s, len(self.workers) + 1)  # when the parent's waits spin
        self._poller: select.poll | None = None
        self._fd_owner: dict[int, tuple[str, WorkerHandle | None]] = {}
        self._rotate = 0

    def drop_views(self) -> None:
        """Forget every view of the arena (before it is unmapped: close())."""
        self.done_head = self.done_ring = self.parent_waiting = self.want_total = None

    def forget_poller(self) -> None:
        """The workers' descriptors changed (a death, a restart): the next wait polls afresh."""
        self._poller = None

    def forget_worker(self, h: WorkerHandle) -> None:
        """Drop what a dead worker's envs left to be read."""
        for i in range(h.lo, h.hi):
            self.errors.pop(i, None)
            self.infos_in.pop((i, 0), None)
            self.infos_in.pop((i, 1), None)

    def wait_all(self, timeout: float | None = None, spin: bool = True) -> None:
        """Wait until every queued env command completed, and consume them (sync mode);
        TimeoutError leaves everything queued. ``spin=False``: block at once (the caller spun)."""
        heads = self.done_head
        workers = self.workers
        at = self.head_words
        death: WorkerDiedError | None = None
        while True:
            # (a dead worker's expected count was set to what it had done: the sums stay exact)
            target = 0
            for h in workers:
                target += h.expected

            def ready(target: int = target) -> bool:
                total = 0
                for i in at:
                    total += heads[i]
                return total >= target

            try:
                self.wait_until(ready, timeout, target, spin)
                break
            except WorkerDiedError as error:  # let the other workers finish, then report it
                death = death or error
        for h in workers:
            h.taken = h.expected
        if death is not None:
            raise death

    def wait_any(self, n: int, timeout: float | None) -> np.ndarray:
        """The first ``n`` env ids to complete (consumed); TimeoutError leaves everything queued."""
        heads = self.done_head
        workers = self.workers
        at = self.head_words
        target = sum(h.taken for h in workers) + n

        def ready() -> bool:
            total = 0
            for i in at:
                total += heads[i]
            return total >= target

        self.wait_until(ready, timeout, target)
        out = np.empty(n, dtype=np.int64)
        got = 0
        count = len(workers)
        start = self._rotate
        self._rotate = (start + 1) % count
        for k in range(count):
            h = workers[(start + k) % count]
            avail = heads[h.index * LINE_WORDS] - h.taken
            take = min(avail, n - got)
            if take <= 0:
                continue
            ring = self.done_ring[h.index]
            pos = h.taken % self.capacity
            first = min(take, self.capacity - pos)
            out[got : got + first] = ring[pos : pos + first]
            if first < take:
                out[got + first : got + take] = ring[: take - first]
            h.taken += take
            got += take
            if got == n:
                break
        return out

    def discard_all(self) -> None:
        """Wait for everything queued and throw the results away (before a reset)."""
        if self.pool.pending():
            with contextlib.suppress(WorkerDiedError):
                self.wait_all()
        self.errors.clear()

    def wait_until(self, ready: Callable[[], bool], timeout: float | None, target: int, spin: bool = True) -> None:
        """Spin briefly, then block until ``ready()``; EnvError if a worker dies, PoolClosedError
        if another thread closes the pool.

        The spin re-reads shared counters for at most ``spin_us``, yielding the core every round,
        and only while waits have been short lately (a running mean of how long they took): a
        wait that would outlast the spin blocks at once, leaving the core to the workers. Before
        blocking, the parent publishes the completion total it waits for (``want_total``): the
        worker whose completion reaches it writes the eventfd, so a call costs one wake-up."""
        if ready():
            return
        start = time.perf_counter()
        deadline = None if timeout is None else start + timeout
        spinner = self.spinner
        window = spinner.window(start) if spin else 0.0
        if window > 0:
            spin_end = start + window if deadline is None else min(start + window, deadline)
            if spinner.spin(ready, spin_end):
                spinner.record(time.perf_counter() - start)
                return
        poller = self._poll_set()
        waiting = self.parent_waiting
        self.want_total[0] = target
        waiting[0] = 1
        fence()  # the flag is visible before we look at the counters once more
        # A signal sent to the process (Ctrl-C) may be delivered to any of its threads (torch's,
        # a timer's); Python runs the handler on the main thread only when it next executes
        # bytecode, so a main-thread wait wakes now and then to let KeyboardInterrupt through.
        signal_ms = SIGNAL_CHECK_MS if on_main_thread() else None
        try:
            while not ready():
                if self.pool.closing:
                    raise PoolClosedError(f"{CLOSED_MESSAGE} (closed by another thread while a call waited)")
                ms = signal_ms
                if deadline is not None:
                    left = deadline - time.perf_counter()
                    if left <= 0:
                        raise TimeoutError("recv timed out before enough envs finished")
                    ms = max(1, int(left * 1000 + 0.999))
                    if signal_ms is not None:
                        ms = min(ms, signal_ms)
                for fd, _ in poller.poll(ms):
                    kind, h = self._fd_owner[fd]
                    if kind == "done":
                        self.done.drain()
                    elif kind == "pipe":
                        assert h is not None
                        self.drain(h)
                    elif kind == "sentinel" and h is not None and h.alive:
                        self.drain(h)
                        raise self.pool.died(h)
        finally:
            waiting[0] = 0
        spinner.record(time.perf_counter() - start)

    def _poll_set(self) -> select.poll:
        if self._poller is None:
            poller = select.poll()
            owners: dict[int, tuple[str, WorkerHandle | None]] = {}
            mask = select.POLLIN | select.POLLERR | select.POLLHUP
            poller.register(self.done.fd, select.POLLIN)
            owners[self.done.fd] = ("done", None)
            for h in self.workers:
                if not h.alive:
                    continue
                assert h.conn is not None
                poller.register(h.conn.fileno(), mask)
                owners[h.conn.fileno()] = ("pipe", h)
                poller.register(h.process.sentinel, mask)
                owners[h.process.sentinel] = ("sentinel", h)
            self._poller, self._fd_owner = poller, owners
        return self._poller

    def drain(self, h: WorkerHandle) -> None:
        """Read every message waiting in a worker's pipe."""
        conn = h.conn
        if conn is None:
            return
        try:
            while conn.poll():
                message = conn.recv()
                kind = message[0]
                if kind == "layout":
                    self.pool.infos.learn(message[1], message[2])
                elif kind == "info":
                    self.infos_in[(message[1], message[2])] = message[3]
                elif kind == "error":
                    self.errors[message[1]] = message[2]
                elif kind == "object":
                    self.objects[(message[1], message[2])] = message[3]
                elif kind in ("reply", "failed"):
                    h.replies.append((kind, message[1]))
        except (EOFError, OSError):
            self._poller = None  # the sentinel reports the death

    def drain_all(self) -> None:
        for h in self.workers:
            if h.alive:
                self.drain(h)

    def pickled_info(self, env_id: int, area: int) -> dict[str, Any]:
        key = (env_id, area)
        if key not in self.infos_in:
            self.drain(self.workers[int(self.pool.worker_of[env_id])])
        return self.infos_in.pop(key)

    def read_objects(self, name: str, env_ids: Sequence[int]) -> tuple[Any, ...]:
        """The values of object leaf region ``name`` for ``env_ids`` (a tuple, as Gymnasium batches them)."""
        data, lengths = self.pool.arrays[name], self.pool.arrays[f"{name}_len"]
        out = []
        for env_id in env_ids:
            n = int(lengths[env_id])
            if n >= 0:
                out.append(pickle.loads(data[env_id, :n].tobytes()))
            else:
                key = (env_id, name)
                if key not in self.objects:
                    self.drain(self.workers[int(self.pool.worker_of[env_id])])
                out.append(self.objects.pop(key))
        return tuple(out)

    def learn_layouts(self, codes: np.ndarray) -> None:
        """Make sure every layout code in ``codes`` is known (its message precedes the row)."""
        for code in np.unique(codes[codes > 0]).tolist():
            if not self.pool.infos.known(code):
                self.drain(self.workers[code >> WORKER_SHIFT])
