"""The worker process: builds a contiguous block of envs, then steps whatever the parent queues.

Started by ``envhive.process.pool``. It ignores SIGINT (Ctrl-C belongs to the trainer, which
closes the pool), asks the kernel to kill it when its parent dies (``PR_SET_PDEATHSIG``, where
the parent is the pool's owner) and watches the owner's pidfd whenever it blocks, so it never
outlives the trainer. Autoreset happens here, per env, so a batch never waits on a second round
trip for resets.

Two paths. A sync step is one ``STEP_BLOCK`` command: the worker steps its whole block at once
(``envhive.process.block_step``), publishes one completion count and wakes the parent at most
once. Async steps and resets are per-env commands (``envhive.process.env_step``), each published
as it completes (first-N-ready needs every env as soon as it is done).

The parts: ``CommandRing`` (the commands queued and the completions published, and the wait
between them), ``WorkerRows`` (the worker's rows of the arena: actions in, outputs out),
``ParentPipe`` (what does not travel through the arena: errors, large infos, control messages,
reset options) and ``Episodes`` (where each env stands in its episode), which the two steppers share.
"""

from __future__ import annotations

import contextlib
import os
import signal
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.reduction import recv_handle
from typing import Any

from gymnasium.vector import AutoresetMode

from envhive.process.arena import Arena, Layout
from envhive.process.block_step import BlockStep
from envhive.process.command_ring import CommandRing
from envhive.process.env_step import EnvStep, Episodes
from envhive.process.factory import Shipped
from envhive.process.protocol import CLOSE, OP_BITS, STEP_BLOCK
from envhive.process.waiting import die_with_parent, owner_watch
from envhive.process.worker_pipe import ParentPipe
from envhive.process.worker_rows import WorkerRows


@dataclass(frozen=True)
class WorkerArgs:
    """What a worker process is started with (pickled under forkserver and spawn)."""

    index: int
    lo: int
    hi: int
    factory: Shipped
    owner_pid: int
    kill_with_parent: bool
    pending_seeds: dict[int, int]
    cpu: int | None = None  # the core to pin this worker to (thread_affinity_offset), or None


@dataclass(frozen=True)
class Settings:
    """Sent with the arena once the parent has seen every worker's spaces."""

    autoreset: AutoresetMode
    spin_s: float
    info_bytes: int


def main(args: WorkerArgs, conn: Connection) -> None:
    """Process entry point."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if args.kill_with_parent:
        die_with_parent()
        if os.getppid() != args.owner_pid:  # the owner died before prctl took effect
            return
    if args.cpu is not None:
        with contextlib.suppress(OSError):  # a core taken away since (cgroups): run unpinned
            os.sched_setaffinity(0, {args.cpu})
    watch = owner_watch(args.owner_pid)
    if watch is None:
        return
    try:
        factory = args.factory.load()
    except Exception:  # noqa: BLE001 - reported to the parent
        conn.send(("fatal", args.lo, "could not unpickle the env factory:\n" + traceback.format_exc()))
        return
    envs: list[Any] = []
    for env_id in range(args.lo, args.hi):
        try:
            envs.append(factory.build(checked=not envs))
        except Exception:  # noqa: BLE001 - reported to the parent
            conn.send(("fatal", env_id, traceback.format_exc()))
            for env in envs:
                _close_quietly(env)
            return
    first = envs[0]
    for k, env in enumerate(envs[1:], start=args.lo + 1):  # one pool, one pair of spaces
        if env.observation_space != first.observation_space or env.action_space != first.action_space:
            conn.send(
                (
                    "fatal",
                    k,
                    f"env {k} has the spaces {env.observation_space} / {env.action_space}, but env {args.lo} has "
                    f"{first.observation_space} / {first.action_space}: every env of a pool must have the same spaces",
                )
            )
            for each in envs:
                _close_quietly(each)
            return
    conn.send(
        (
            "spaces",
            first.observation_space,
            first.action_space,
            dict(getattr(first, "metadata", {}) or {}),
            getattr(first, "render_mode", None),
        )
    )
    try:
        message = conn.recv()
    except EOFError:
        message = ("close",)
    if message[0] != "arena":
        for env in envs:
            _close_quietly(env)
        return
    layout, settings = message[1], message[2]
    fds = [recv_handle(conn) for _ in range(3)]
    Worker(args, settings, layout, fds, envs, conn, watch).run()


def _close_quietly(env: Any) -> None:
    with contextlib.suppress(Exception):  # closing on the way out; nothing to report to
        env.close()


class Worker:
    """Worker ``args.index``: its envs, its rows of the arena, its command ring and its pipe."""

    def __init__(
        self,
        args: WorkerArgs,
        settings: Settings,
        layout: Layout,
        fds: list[int],
        envs: list[Any],
        conn: Connection,
        watch: int,
    ) -> None:
        arena_fd, cmd_fd, done_fd = fds
        arena = Arena(layout, arena_fd)
        self.arena = arena
        self.envs = envs
        self.n = args.hi - args.lo
        self.pipe = ParentPipe(conn)
        self.ring = CommandRing(arena, args.index, cmd_fd, done_fd, watch, args.owner_pid, settings.spin_s)
        rows = WorkerRows(arena, args.index, args.lo, args.hi, envs[0], settings.info_bytes, self.pipe)
        episodes = Episodes.start(envs, args.lo, settings.autoreset, rows.write_final, args.pending_seeds)
        self.block_step = BlockStep(episodes, rows, self.pipe)
        self.env_step = EnvStep(episodes, rows, self.pipe)

    def run(self) -> None:
        """Run the commands the parent queues until ``CLOSE`` (or the owner or the pipe is gone)."""
        ring = self.ring
        cmd_head, head_at, entries, done, capacity = ring.head, ring.head_at, ring.entries, ring.done, ring.capacity
        op_mask = (1 << OP_BITS) - 1
        step_block, run_one, publish = self.block_step.step, self.env_step.run, ring.publisher.publish
        try:
            while True:
                if cmd_head[head_at] == ring.tail and not ring.wait():
                    return
                while ring.tail != cmd_head[head_at]:
                    entry = entries[ring.tail % capacity]
                    ring.tail += 1
                    if entry == STEP_BLOCK:
                        step_block()
                        ring.finished += self.n
                        # The parent may share this core, spinning for this block: give it the
                        # core now, not after the Python of the next wait.
                        publish(ring.finished, True)
                    elif entry < 0:
                        if entry == CLOSE or not self.pipe.control(self.envs):
                            return
                    else:
                        env_id = entry >> OP_BITS
                        run_one(env_id, entry & op_mask)
                        done[ring.finished % capacity] = env_id
                        ring.finished += 1
                        publish(ring.finished, False)
        finally:
            for env in self.envs:
                _close_quietly(env)
