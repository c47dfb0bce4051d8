"""The worker processes of a ProcessPool: their handles, how they are started and handed the arena,
how a death is described, and the resources close() releases (kept apart from the pool, so a
finalizer can release them whatever happens to it).
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.reduction import send_handle
from typing import Any

from gymnasium import spaces

from envhive.errors import EnvError
from envhive.process import worker as worker_module
from envhive.process.arena import LINE_WORDS, Arena, Layout
from envhive.process.factory import Shipped
from envhive.process.protocol import CLOSE
from envhive.process.waiting import EventFd, on_main_thread

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


class Resources:
    """Everything close() must release; kept apart from the pool so a finalizer can run it."""

    def __init__(self) -> None:
        self.workers: list[WorkerHandle] = []
        self.arena: Arena | None = None
        self.done: EventFd | None = None
        self.closed = False
        self.owner = os.getpid()

    def shutdown(self) -> None:
        if self.closed:
            return
        if os.getpid() != self.owner:
            # A forked process (a later pool's worker, a user's fork) inherited this pool: its
            # workers, rings and arena are the parent's to release. Running the cleanup here would ask
            # the parent's workers to close and test processes that are not this one's children.
            self.closed = True
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


class Launcher:
    """Starts the workers of a pool (each owns envs ``lo..hi-1`` of the factory ``shipped``) and
    hands a started one the arena and its eventfds."""

    def __init__(
        self,
        context: Any,
        shipped: Shipped,
        seeds: list[int | None],
        settings: worker_module.Settings,
        affinity_offset: int,
    ) -> None:
        self.context = context
        self.start_method = context.get_start_method()
        self.shipped = shipped
        self.seeds = seeds
        self.settings = settings
        self.affinity_offset = affinity_offset
        self.owner = os.getpid()

    def start(self, h: WorkerHandle) -> None:
        parent_end, child_end = self.context.Pipe(duplex=True)
        pending = {i: s for i in range(h.lo, h.hi) if (s := self.seeds[i]) is not None}
        # PR_SET_PDEATHSIG fires when the *thread* that forked the worker exits: only a worker
        # started from the main thread (not by a restart on a trainer thread) may use it, and not
        # under forkserver (the forkserver is its parent). The pidfd watch covers the rest.
        kill_with_parent = on_main_thread() and self.start_method != "forkserver"
        args = worker_module.WorkerArgs(
            h.index, h.lo, h.hi, self.shipped, self.owner, kill_with_parent, pending, self.cpu_of(h.index)
        )
        process = self.context.Process(
            target=worker_module.main, args=(args, child_end), name=f"envhive-worker-{h.index}", daemon=True
        )
        process.start()
        child_end.close()
        h.process, h.conn, h.alive = process, parent_end, True
        h.queued = h.expected = h.taken = 0
        h.replies = []

    def cpu_of(self, index: int) -> int | None:
        """The core worker ``index`` is pinned to (``thread_affinity_offset`` >= 0: the core at
        ``offset + index`` of those this process may run on, wrapping around), or None."""
        if self.affinity_offset < 0:
            return None
        cores = sorted(os.sched_getaffinity(0))
        return cores[(self.affinity_offset + index) % len(cores)]

    def await_spaces(self, h: WorkerHandle) -> tuple[spaces.Space[Any], spaces.Space[Any], dict[str, Any], Any]:
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

    def attach(self, h: WorkerHandle, layout: Layout, arena: Arena, done: EventFd) -> None:
        """Hand a started worker the arena and its eventfds (over its pipe, SCM_RIGHTS)."""
        assert h.conn is not None
        h.commands = EventFd()
        arena.arrays["cmd_head"][h.index * LINE_WORDS] = 0
        arena.words("done_head")[h.index * LINE_WORDS] = 0
        h.conn.send(("arena", layout, self.settings))
        for fd in (arena.fd, h.commands.fd, done.fd):
            send_handle(h.conn, fd, h.process.pid)


def _first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else text
