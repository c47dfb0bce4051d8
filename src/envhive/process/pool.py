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
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

import envhive._procwire as _procwire
from envhive.errors import EnvError, PoolBusyError, PoolClosedError
from envhive.process import worker as worker_module
from envhive.process.arena import LINE_WORDS, Arena, Leaf, leaves
from envhive.process.commands import Commands
from envhive.process.completions import Completions
from envhive.process.factory import Factory, Shipped
from envhive.process.infos import InfoReader
from envhive.process.protocol import CONTROL, STEP_BLOCK, build_layout, ring_capacity
from envhive.process.waiting import SKIP_WAKEUPS, EventFd
from envhive.process.workers import (
    BUSY_MESSAGE,
    CLOSED_MESSAGE,
    Launcher,
    Resources,
    WorkerDiedError,
    WorkerHandle,
    describe_exit,
    split_blocks,
)

__all__ = ["ProcessPool", "WorkerDiedError", "action_bounds"]


class ProcessPool:
    """``num_envs`` envs from ``factory`` in ``num_workers`` processes sharing one arena."""

    def __init__(
        self,
        factory: Factory,
        num_envs: int,
        num_workers: int,
        autoreset: AutoresetMode,
        *,
        start_method: str | None = None,
        spin_us: float = 200.0,
        info_bytes: int = 256,
        seeds: dict[int, int] | None = None,
        restart_workers: bool = False,
        affinity_offset: int = -1,
    ) -> None:
        context: Any = multiprocessing.get_context(start_method)
        self.start_method = context.get_start_method()
        self.num_envs = num_envs
        self.restart_workers = restart_workers
        self.spin_s = max(0.0, spin_us) * 1e-6
        self.seeds: list[int | None] = [(seeds or {}).get(i) for i in range(num_envs)]  # None: OS entropy
        settings = worker_module.Settings(autoreset, self.spin_s, info_bytes)
        self.launcher = Launcher(context, Shipped(factory, self.start_method), self.seeds, settings, affinity_offset)
        self.res = Resources()
        self._finalizer = weakref.finalize(self, self.res.shutdown)
        blocks = split_blocks(num_envs, num_workers)
        self.workers = [WorkerHandle(w, lo, hi) for w, (lo, hi) in enumerate(blocks)]
        self.res.workers = self.workers
        self.head_words = [w * LINE_WORDS for w in range(num_workers)]
        self.worker_of = np.repeat(np.arange(num_workers), [hi - lo for lo, hi in blocks])
        self.broken: EnvError | None = None
        try:
            for h in self.workers:
                self.launcher.start(h)
            found = [self.launcher.await_spaces(h) for h in self.workers]
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
            same_step = autoreset == AutoresetMode.SAME_STEP  # the layout has final columns
            self.layout = build_layout(
                num_envs, num_workers, capacity, self.obs_leaves, self.act_leaves, info_bytes, same_step
            )
            self.arena = Arena(self.layout)
            self.res.arena = self.arena
            self.done = EventFd()
            self.res.done = self.done
            a = self.arena.arrays
            self.arrays = a
            self.done_ring = a["done_ring"]
            self.done_head = self.arena.words("done_head")
            self.parent_waiting = self.arena.words("parent_waiting")
            self.want_total = self.arena.words("want_total")
            self.capacity = capacity
            self.infos = InfoReader([a["info"], a["final_info"]] if same_step else [a["info"]], info_bytes)
            for h in self.workers:
                self.launcher.attach(h, self.layout, self.arena, self.done)
        except BaseException:
            self.res.shutdown()
            raise
        self.completions = Completions(self)
        self.commands = Commands(self, num_envs, self.arena)
        self._busy = threading.Lock()  # held by the call in flight
        self._owner: int | None = None  # the thread of that call
        self.closing = False  # close() began (maybe in another thread): calls raise PoolClosedError
        self.use_wire = True  # False: sync steps take the Python path (tests compare the two)
        self._wire: Any = None  # the C++ sync step (sync_wire), built on first use, dropped when workers change

    # ------------------------------------------------------------------ workers
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
        self.launcher.start(h)
        self.launcher.await_spaces(h)
        self._wire = None  # it holds the old command eventfd
        self.launcher.attach(h, self.layout, self.arena, self.done)
        self.completions.forget_poller()

    def died(self, h: WorkerHandle) -> WorkerDiedError:
        """Handle a worker found dead: reap it, restart it if asked, and describe it."""
        h.alive = False
        self.completions.forget_poller()
        self._wire = None
        h.process.join(1.0)
        h.expected = h.taken = int(self.done_head[h.index * LINE_WORDS])
        what = describe_exit(h.process.exitcode)
        self.completions.forget_worker(h)
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

    # ------------------------------------------------------------------ commands (commands.py)
    def control(self, message: tuple[Any, ...]) -> list[Any]:
        """Send a control message to every worker, in order after what is queued; their replies."""
        assert self.arena is not None
        for h in self.workers:
            assert h.conn is not None and h.commands is not None
            h.conn.send(message)
            ring = self.arrays["cmd_ring"][h.index]
            ring[h.queued % self.capacity] = CONTROL
            h.queued += 1
            self.arrays["cmd_head"][h.index * LINE_WORDS] = h.queued
            h.commands.notify()
        replies = []
        for h in self.workers:
            self.completions.wait_until(functools.partial(_has_replies, h), None, 1 << 62)
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
        spinner = self.completions.spinner
        flags: int = wire.step(actions, spinner.window(time.perf_counter()))
        if flags >= 0:
            spinner.record(wire.waited_s)
        return flags

    # ------------------------------------------------------------------ completions (completions.py)
    def pending(self) -> int:
        """Env commands queued whose completions were not consumed yet."""
        workers = self.workers
        if len(workers) == 2:
            a, b = workers
            return a.expected - a.taken + b.expected - b.taken
        return sum(h.expected - h.taken for h in workers)

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
            if hasattr(self, "completions"):
                self.completions.drop_views()
            if hasattr(self, "commands"):
                self.commands.drop_views()
            for name in ("arrays", "done_ring"):
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
