"""ProcessPool: worker processes over one shared-memory arena, queues in, completions out.

The pool is the mechanism under ``ProcessVectorEnv``: it starts the workers (each owns a
contiguous block of env ids), maps the arena, queues env commands, waits for completions (all of
them, or the first ``n``), drains the workers' pipes, detects worker deaths and restarts workers
when asked to. It knows nothing about observations or autoreset modes beyond what it forwards.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import pickle
import select
import signal
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.reduction import send_handle
from typing import Any

import numpy as np
from gymnasium import spaces

import envhive._procwire as _procwire
from envhive.errors import EnvError, PoolBusyError, PoolClosedError
from envhive.process import worker as worker_module
from envhive.process.arena import LINE_WORDS, Arena, Leaf, leaves
from envhive.process.factory import Factory, Shipped
from envhive.process.infos import WORKER_SHIFT, InfoReader
from envhive.process.protocol import CLOSE, CONTROL, OP_BITS, STEP_BLOCK, build_layout, ring_capacity
from envhive.process.waiting import (
    SIGNAL_CHECK_MS,
    SKIP_WAKEUPS,
    EventFd,
    Spinner,
    fence,
    on_main_thread,
)

CLOSE_GRACE_S = 2.0  # how long close() lets workers finish and exit before SIGTERM, then SIGKILL
BUSY_MESSAGE = (
    "this envhive pool is in use by another thread (a call is waiting in it); a pool serves one "
    "thread at a time: give each thread its own pool, or serialise the calls"
)
CLOSED_MESSAGE = "this envhive pool is closed"


class WorkerDiedError(EnvError):
    """A worker process died (segfault, ``os._exit``, a signal); ``env_ids`` are its envs."""

    def __init__(self, message: str, env_id: int, env_ids: list[int], restarted: bool) -> None:
        super().__init__(message, env_id, env_ids)
        self.restarted = restarted


@dataclass
class WorkerHandle:
    index: int
    lo: int
    hi: int
    process: Any = None
    conn: Connection | None = None
    commands: EventFd | None = None
    queued: int = 0  # ring entries written (env commands and control)
    expected: int = 0  # env completions queued
    taken: int = 0  # env completions consumed
    alive: bool = False
    restarts: int = 0
    replies: list[Any] = field(default_factory=list)

    @property
    def env_ids(self) -> list[int]:
        return list(range(self.lo, self.hi))


def split_blocks(num_envs: int, num_workers: int) -> list[tuple[int, int]]:
    """Contiguous blocks whose sizes differ by at most one."""
    base, extra = divmod(num_envs, num_workers)
    out, lo = [], 0
    for w in range(num_workers):
        hi = lo + base + (1 if w < extra else 0)
        out.append((lo, hi))
        lo = hi
    return out


def describe_exit(code: int | None) -> str:
    if code is None:
        return "stopped"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


class _Resources:
    """Everything close() must release; kept apart from the pool so a finalizer can run it."""

    def __init__(self) -> None:
        self.workers: list[WorkerHandle] = []
        self.arena: Arena | None = None
        self.done: EventFd | None = None
        self.closed = False

    def shutdown(self) -> None:
        if self.closed:
            return
        self.closed = True
        live = [h for h in self.workers if h.process is not None and h.process.is_alive()]
        for h in live:  # ask politely first: each worker closes its envs and exits
            self._ask_to_close(h)
        _join(live, CLOSE_GRACE_S)
        for h in live:
            if h.process.is_alive():
                h.process.terminate()
        _join(live, 1.0)
        for h in live:
            if h.process.is_alive():
                h.process.kill()
        _join(live, None)
        for h in self.workers:
            if h.process is not None:
                h.process.close()
                h.process = None
            if h.conn is not None:
                h.conn.close()
                h.conn = None
            if h.commands is not None:
                h.commands.close()
        if self.done is not None:
            self.done.close()
        if self.arena is not None:
            self.arena.close()

    def _ask_to_close(self, h: WorkerHandle) -> None:
        if h.conn is None or h.commands is None or self.arena is None:
            return
        try:
            ring = self.arena.arrays["cmd_ring"][h.index]
            ring[h.queued % len(ring)] = CLOSE
            h.queued += 1
            self.arena.arrays["cmd_head"][h.index * LINE_WORDS] = h.queued
            h.commands.notify()
        except (OSError, ValueError):
            pass


def _join(handles: Sequence[WorkerHandle], timeout: float | None) -> None:
    deadline = None if timeout is None else time.monotonic() + timeout
    for h in handles:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        h.process.join(left)


class ProcessPool:
    """``num_envs`` envs from ``factory`` in ``num_workers`` processes sharing one arena."""

    def __init__(
        self,
        factory: Factory,
        num_envs: int,
        num_workers: int,
        autoreset: int,
        *,
        start_method: str | None = None,
        spin_us: float = 200.0,
        info_bytes: int = 256,
        seeds: Sequence[int | None] | None = None,
        restart_workers: bool = False,
        affinity_offset: int = -1,
    ) -> None:
        self.context: Any = multiprocessing.get_context(start_method)
        self.start_method = self.context.get_start_method()
        self.num_envs = num_envs
        self.restart_workers = restart_workers
        self.spin_s = max(0.0, spin_us) * 1e-6
        self.autoreset = autoreset
        self.info_bytes = info_bytes
        self.seeds: list[int | None] = list(seeds) if seeds is not None else [None] * num_envs
        self.shipped = Shipped(factory, self.start_method)
        self.res = _Resources()
        self._finalizer = weakref.finalize(self, self.res.shutdown)
        self.owner = os.getpid()
        self.affinity_offset = affinity_offset
        blocks = split_blocks(num_envs, num_workers)
        self.workers = [WorkerHandle(w, lo, hi) for w, (lo, hi) in enumerate(blocks)]
        self.res.workers = self.workers
        self.head_words = [w * LINE_WORDS for w in range(num_workers)]
        self.worker_of = np.repeat(np.arange(num_workers), [hi - lo for lo, hi in blocks])
        self.broken: EnvError | None = None
        self.infos_in: dict[tuple[int, int], dict[str, Any]] = {}  # (env_id, area) -> pickled info
        self.errors: dict[int, str] = {}  # env_id -> traceback text
        self.objects: dict[tuple[int, str], Any] = {}  # (env_id, region) -> an object leaf too big for its slot
        try:
            for h in self.workers:
                self._start(h)
            found = [self._await_spaces(h) for h in self.workers]
            self.observation_space, self.action_space, self.metadata, self.render_mode = found[0]
            for h, other in zip(self.workers[1:], found[1:], strict=True):
                if other[:2] != found[0][:2]:
                    raise ValueError(
                        f"worker {h.index}'s envs have other spaces than worker 0's: "
                        f"{other[0]} / {other[1]} vs {found[0][0]} / {found[0][1]}"
                    )
            self.obs_leaves = leaves(self.observation_space, "observation", objects=True)
            self.act_leaves = leaves(self.action_space, "action")
            capacity = ring_capacity(max(hi - lo for lo, hi in blocks))
            same = autoreset == worker_module.SAME_STEP
            self.layout = build_layout(
                num_envs, num_workers, capacity, self.obs_leaves, self.act_leaves, info_bytes, same
            )
            self.arena = Arena(self.layout)
            self.res.arena = self.arena
            self.done = EventFd()
            self.res.done = self.done
            a = self.arena.arrays
            self.arrays = a
            self.cmd_ring = a["cmd_ring"]
            self.cmd_head = a["cmd_head"]
            self.done_ring = a["done_ring"]
            self.done_head = self.arena.words("done_head")
            self.parent_waiting = self.arena.words("parent_waiting")
            self.want_total = self.arena.words("want_total")
            self.batch_flags = self.arena.words("batch_flags")
            self.worker_sleeping = self.arena.words("worker_sleeping")
            self.step_all = np.arange(num_envs, dtype=np.int64) << OP_BITS
            self.cmd_words = self.arena.words("cmd_ring")
            self.cmd_head_words = self.arena.words("cmd_head")
            self.capacity = capacity
            self.infos = InfoReader([a["info"], a["final_info"]] if same else [a["info"]], info_bytes)
            for h in self.workers:
                self._attach(h)
        except BaseException:
            self.res.shutdown()
            raise
        self._poller: select.poll | None = None
        self._fd_owner: dict[int, tuple[str, WorkerHandle | None]] = {}
        self._rotate = 0
        self._spinner = Spinner(self.spin_s, len(self.workers) + 1)  # when the parent's waits spin
        self._busy = threading.Lock()  # held by the call in flight
        self._owner: int | None = None  # the thread of that call
        self.closing = False  # close() began (maybe in another thread): calls raise PoolClosedError
        self.waiting_call = ""  # what the call in flight waits in ("recv", "step", ...), for messages
        self.use_wire = True  # False: sync steps take the Python path (tests compare the two)
        self._wire: Any = None  # the C++ sync step (sync_wire), built on first use, dropped when workers change

    # ------------------------------------------------------------------ workers
    def _start(self, h: WorkerHandle) -> None:
        parent_end, child_end = self.context.Pipe(duplex=True)
        pending = {i: s for i in range(h.lo, h.hi) if (s := self.seeds[i]) is not None}
        # PR_SET_PDEATHSIG fires when the *thread* that forked the worker exits: only a worker
        # started from the main thread (not by a restart on a trainer thread) may use it, and not
        # under forkserver (the forkserver is its parent). The pidfd watch covers the rest.
        kill_with_parent = on_main_thread() and self.start_method != "forkserver"
        args = worker_module.WorkerArgs(
            h.index, h.lo, h.hi, self.shipped, self.owner, kill_with_parent, pending, self._cpu_of(h.index)
        )
        process = self.context.Process(
            target=worker_module.main, args=(args, child_end), name=f"envhive-worker-{h.index}", daemon=True
        )
        process.start()
        child_end.close()
        h.process, h.conn, h.alive = process, parent_end, True
        h.queued = h.expected = h.taken = 0
        h.replies = []

    def _cpu_of(self, index: int) -> int | None:
        """The core worker ``index`` is pinned to (``thread_affinity_offset`` >= 0: the core at
        ``offset + index`` of those this process may run on, wrapping around), or None."""
        if self.affinity_offset < 0:
            return None
        cores = sorted(os.sched_getaffinity(0))
        return cores[(self.affinity_offset + index) % len(cores)]

    def _await_spaces(self, h: WorkerHandle) -> tuple[spaces.Space[Any], spaces.Space[Any], dict[str, Any], Any]:
        assert h.conn is not None
        while True:
            ready = select.select([h.conn, h.process.sentinel], [], [])[0]
            if h.conn in ready:
                try:
                    message = h.conn.recv()
                except EOFError:
                    message = None
                if message is not None and message[0] == "spaces":
                    return message[1], message[2], message[3], message[4]
                if message is not None and message[0] == "fatal":
                    env_id, text = message[1], message[2]
                    raise EnvError(
                        f"env {env_id} could not be built in worker {h.index}: {_first_line(text)}\n{text}",
                        env_id,
                        [env_id],
                    )
            if h.process.sentinel in ready or not h.process.is_alive():
                h.process.join(1.0)
                raise EnvError(
                    f"worker {h.index} (envs {h.lo}-{h.hi - 1}) {describe_exit(h.process.exitcode)} "
                    "while building its envs",
                    h.lo,
                    h.env_ids,
                )

    def _attach(self, h: WorkerHandle) -> None:
        """Hand a started worker the arena and its eventfds (over its pipe, SCM_RIGHTS)."""
        assert h.conn is not None
        h.commands = EventFd()
        self._wire = None  # it holds the old command eventfd
        self.cmd_head[h.index * LINE_WORDS] = 0
        self.done_head[h.index * LINE_WORDS] = 0
        settings = worker_module.Settings(self.autoreset, self.spin_s, self.info_bytes)
        h.conn.send(("arena", self.layout, settings))
        for fd in (self.arena.fd, h.commands.fd, self.done.fd):
            send_handle(h.conn, fd, h.process.pid)
        self._poller = None

    def _restart(self, h: WorkerHandle) -> None:
        h.restarts += 1
        if h.process is not None:
            h.process.close()
        if h.conn is not None:
            h.conn.close()
        if h.commands is not None:
            h.commands.close()
        self.infos.forget_worker(h.index)
        for i in range(h.lo, h.hi):  # fresh, distinct seeds for the new envs when the pool is seeded
            base = self.seeds[i]
            self.seeds[i] = (
                None if base is None else int(np.random.SeedSequence([base, h.restarts]).generate_state(1)[0])
            )
        self._start(h)
        self._await_spaces(h)
        self._attach(h)

    def _died(self, h: WorkerHandle) -> WorkerDiedError:
        """Handle a worker found dead: reap it, restart it if asked, and describe it."""
        h.alive = False
        self._poller = None
        self._wire = None
        h.process.join(1.0)
        h.expected = h.taken = int(self.done_head[h.index * LINE_WORDS])
        what = describe_exit(h.process.exitcode)
        for i in range(h.lo, h.hi):
            self.errors.pop(i, None)
            self.infos_in.pop((i, 0), None)
            self.infos_in.pop((i, 1), None)
        message = f"worker {h.index} (envs {h.lo}-{h.hi - 1}) {what}"
        restarted = False
        if self.restart_workers:
            try:
                self._restart(h)
            except EnvError as error:
                message += f"; restarting it failed: {error}"
                self.broken = EnvError(message, h.lo, h.env_ids)
            else:
                restarted = True
                message += "; restarted with new envs, which start a new episode on their next step"
        else:
            message += "; the pool cannot step its envs any more: close it (restart_workers=True restarts workers)"
            self.broken = EnvError(message, h.lo, h.env_ids)
        return WorkerDiedError(message, h.lo, h.env_ids, restarted)

    def check_usable(self) -> None:
        if self.res.closed:
            raise PoolClosedError(CLOSED_MESSAGE)
        if self.closing:
            raise PoolClosedError(f"{CLOSED_MESSAGE} (closed by another thread while a call was in flight)")
        if self.broken is not None:
            raise EnvError(str(self.broken), self.broken.env_id, self.broken.env_ids)

    # ------------------------------------------------------------------ one caller at a time
    def enter(self) -> None:
        """Start a call: refused while another thread's call is in the pool, or when closed."""
        if not self._busy.acquire(blocking=False):
            if self.closing:
                raise PoolClosedError(CLOSED_MESSAGE)
            raise PoolBusyError(BUSY_MESSAGE)
        if self.res.closed or self.closing:
            self._busy.release()
            raise PoolClosedError(CLOSED_MESSAGE)
        self._owner = threading.get_ident()

    def leave(self) -> None:
        self._owner = None
        self._busy.release()

    # ------------------------------------------------------------------ commands
    def queue(self, env_ids: np.ndarray, ops: np.ndarray | int) -> None:
        """Queue one command per env (``ops``: one code, or one per env) and wake its worker."""
        entries = (env_ids.astype(np.int64) << OP_BITS) | ops
        workers = self.workers
        if not self.pending():
            self._clear_flags()
        if len(workers) == 1:
            self._push(workers[0], entries)
            self._wake(workers)
            return
        owner = self.worker_of[env_ids]
        lo = int(owner.min())
        hi = int(owner.max())
        if lo == hi:
            self._push(workers[lo], entries)
            self._wake(workers[lo : lo + 1])
            return
        order = np.argsort(owner, kind="stable")
        owner_sorted = owner[order]
        cuts = np.searchsorted(owner_sorted, np.arange(lo, hi + 2))
        entries = entries[order]
        for w in range(lo, hi + 1):
            a, b = cuts[w - lo], cuts[w - lo + 1]
            if b > a:
                self._push(workers[w], entries[a:b])
        self._wake(workers[lo : hi + 1])

    def queue_all(self, ops: int) -> None:
        """Every env, in id order, one command each: each worker gets its block."""
        entries = self.step_all if ops == 0 else self.step_all | ops
        if not self.pending():
            self._clear_flags()
        for h in self.workers:
            self._push(h, entries[h.lo : h.hi])
        self._wake(self.workers)

    def queue_block_steps(self) -> None:
        """A sync step: one ``STEP_BLOCK`` entry per worker (nothing may be in flight)."""
        flags, ring, heads, capacity = self.batch_flags, self.cmd_words, self.cmd_head_words, self.capacity
        for h in self.workers:
            at = h.index * LINE_WORDS
            flags[at] = 0
            ring[h.index * capacity + h.queued % capacity] = STEP_BLOCK
            h.queued += 1
            h.expected += h.hi - h.lo
            heads[at] = h.queued
        self._wake(self.workers)

    def _clear_flags(self) -> None:
        flags = self.batch_flags
        for i in self.head_words:
            flags[i] = 0

    def flags(self) -> int:
        """What the workers wrote since nothing was in flight (FLAG_* bits, OR-ed)."""
        out = 0
        flags = self.batch_flags
        for i in self.head_words:
            out |= flags[i]
        return out

    def _wake(self, handles: Sequence[WorkerHandle]) -> None:
        """Write the eventfd of each worker that is blocked (all of them without SKIP_WAKEUPS)."""
        if SKIP_WAKEUPS:
            fence()  # the heads are visible before we read the sleeping flags
            sleeping = self.worker_sleeping
            for h in handles:
                if sleeping[h.index * LINE_WORDS]:
                    h.commands.notify()  # type: ignore[union-attr]
        else:
            for h in handles:
                h.commands.notify()  # type: ignore[union-attr]

    def _push(self, h: WorkerHandle, entries: np.ndarray) -> None:
        n = len(entries)
        ring = self.cmd_ring[h.index]
        start = h.queued % self.capacity
        first = min(n, self.capacity - start)
        ring[start : start + first] = entries[:first]
        if first < n:
            ring[: n - first] = entries[first:]
        h.queued += n
        h.expected += n
        self.cmd_head[h.index * LINE_WORDS] = h.queued

    def control(self, message: tuple[Any, ...]) -> list[Any]:
        """Send a control message to every worker, in order after what is queued; their replies."""
        assert self.arena is not None
        for h in self.workers:
            assert h.conn is not None and h.commands is not None
            h.conn.send(message)
            ring = self.cmd_ring[h.index]
            ring[h.queued % self.capacity] = CONTROL
            h.queued += 1
            self.cmd_head[h.index * LINE_WORDS] = h.queued
            h.commands.notify()
        replies = []
        for h in self.workers:
            self._wait(functools.partial(_has_replies, h), None, 1 << 62)
            kind, value = h.replies.pop(0)
            if kind == "failed":
                raise EnvError(f"worker {h.index}: {message[0]} raised:\n{value}", h.lo, h.env_ids)
            replies.append(value)
        return replies

    def send_options(self, per_worker: dict[int, dict[int, Any]]) -> None:
        for w, options in per_worker.items():
            conn = self.workers[w].conn
            assert conn is not None
            conn.send(("options", options))

    def sync_wire(self) -> Any:
        """The C++ sync step over this pool's arena (``envhive._procwire.SyncWire``), or None
        where it cannot serve: an action space of several leaves (or nested), a worker not alive,
        a broken or closing pool, ``use_wire`` off. Built on first use, dropped when a worker dies
        or restarts (new eventfds) and at close."""
        wire = self._wire
        if wire is not None or not self.use_wire or len(self.act_leaves) != 1 or self.act_leaves[0].path:
            return wire
        if self.res.closed or self.closing or self.broken is not None or not all(h.alive for h in self.workers):
            return None
        low, high = action_bounds(self.act_leaves[0])
        a = self.arrays
        self._wire = _procwire.SyncWire(
            a["cmd_head"],
            a["cmd_ring"].reshape(-1),
            a["done_head"],
            a["batch_flags"],
            a["worker_sleeping"],
            a["act0"],
            low,
            high,
            list(self.workers),
            [h.commands.fd for h in self.workers if h.commands is not None],
            self.capacity,
            LINE_WORDS,
            STEP_BLOCK,
            SKIP_WAKEUPS,
        )
        return self._wire

    def wire_step(self, actions: Any) -> int:
        """A sync step through the C++ path (``sync_wire``): check, write and queue the actions,
        then spin for the completions for the spinner's window. The workers' OR-ed batch flags
        once done; -1 if they did not finish within it (queued: the caller waits in Python);
        -2 if it did not take the actions or something is in flight (nothing queued: the caller
        takes the Python path, which reports what is wrong)."""
        wire = self._wire
        if wire is None:
            wire = self.sync_wire()
            if wire is None:
                return -2
        spinner = self._spinner
        flags: int = wire.step(actions, spinner.window(time.perf_counter()))
        if flags >= 0:
            spinner.record(wire.waited_s)
        return flags

    # ------------------------------------------------------------------ completions
    def pending(self) -> int:
        """Env commands queued whose completions were not consumed yet."""
        workers = self.workers
        if len(workers) == 2:
            a, b = workers
            return a.expected - a.taken + b.expected - b.taken
        return sum(h.expected - h.taken for h in workers)

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
                self._wait(ready, timeout, target, spin)
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

        self._wait(ready, timeout, target)
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
        if self.pending():
            with contextlib.suppress(WorkerDiedError):
                self.wait_all()
        self.errors.clear()

    def _wait(self, ready: Callable[[], bool], timeout: float | None, target: int, spin: bool = True) -> None:
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
        spinner = self._spinner
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
                if self.closing:
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
                        raise self._died(h)
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
                    self.infos.learn(message[1], message[2])
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
            self.drain(self.workers[int(self.worker_of[env_id])])
        return self.infos_in.pop(key)

    def read_objects(self, name: str, env_ids: Sequence[int]) -> tuple[Any, ...]:
        """The values of object leaf region ``name`` for ``env_ids`` (a tuple, as Gymnasium batches them)."""
        data, lengths = self.arrays[name], self.arrays[f"{name}_len"]
        out = []
        for env_id in env_ids:
            n = int(lengths[env_id])
            if n >= 0:
                out.append(pickle.loads(data[env_id, :n].tobytes()))
            else:
                key = (env_id, name)
                if key not in self.objects:
                    self.drain(self.workers[int(self.worker_of[env_id])])
                out.append(self.objects.pop(key))
        return tuple(out)

    def learn_layouts(self, codes: np.ndarray) -> None:
        """Make sure every layout code in ``codes`` is known (its message precedes the row)."""
        for code in np.unique(codes[codes > 0]).tolist():
            if not self.infos.known(code):
                self.drain(self.workers[code >> WORKER_SHIFT])

    # ------------------------------------------------------------------ lifecycle
    @property
    def closed(self) -> bool:
        return self.res.closed

    def pids(self) -> list[int]:
        return [h.process.pid for h in self.workers if h.process is not None and h.process.pid is not None]

    def close(self, drop_views: Callable[[], None] | None = None) -> None:
        """Stop the workers and unmap the arena. From another thread while a call waits: that
        call raises PoolClosedError, and close() waits for it to leave first. Every view of the
        arena is dropped before it is unmapped (``drop_views``: the owner's, called once no call
        is in flight), so the mapping (and with it the memfd) goes now, not whenever the garbage
        collector runs."""
        if self.res.closed:
            return
        self.closing = True
        mine = self._owner == threading.get_ident()  # close() inside a call of this thread
        if not mine:
            while not self._busy.acquire(timeout=0.05):
                if self.res.closed:
                    return
                with contextlib.suppress(OSError, ValueError):
                    self.done.notify()  # the waiting call wakes, sees `closing` and leaves
        try:
            self._wire = None  # it holds views of the arena
            if drop_views is not None:
                drop_views()
            for name in ("arrays", "cmd_ring", "cmd_head", "done_ring"):
                if hasattr(self, name):
                    setattr(self, name, None)
            if hasattr(self, "infos"):
                self.infos.release()
            self._finalizer()
        finally:
            if not mine:
                self._busy.release()


def action_bounds(leaf: Leaf) -> tuple[np.ndarray, np.ndarray]:
    """Per-element ``[low, high)`` of an integer action leaf (one env's elements, flattened) as
    the Python check applies them -- a Discrete's, MultiDiscrete's or MultiBinary's range, none
    for an integer Box --, empty arrays for a real-valued leaf."""
    space = leaf.space
    if leaf.dtype.kind not in "iu":
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    size = int(np.prod(leaf.shape, dtype=np.int64))
    if isinstance(space, spaces.Discrete):
        low = np.full(size, int(space.start), dtype=np.int64)
        high = low + int(space.n)
    elif isinstance(space, spaces.MultiDiscrete):
        low = np.broadcast_to(np.asarray(space.start, dtype=np.int64), leaf.shape).ravel().copy()
        high = low + np.asarray(space.nvec, dtype=np.int64).ravel()
    elif isinstance(space, spaces.MultiBinary):
        low, high = np.zeros(size, dtype=np.int64), np.full(size, 2, dtype=np.int64)
    else:  # an integer Box: any value of its dtype (the Python check looks at floats only)
        info = np.iinfo(np.int64)
        low, high = np.full(size, info.min, dtype=np.int64), np.full(size, info.max, dtype=np.int64)
    return low, high


def _has_replies(h: WorkerHandle) -> bool:
    return bool(h.replies)


def _first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else text
