"""Commands: what the parent of a ProcessPool queues for its workers.

Each worker has a ring of int64 entries in the arena (``env_id << OP_BITS | op``, or a
``STEP_BLOCK`` standing for every env of its block) and a head counter; queueing writes the
entries, publishes the head and writes the eventfd of a worker that sleeps (``SKIP_WAKEUPS``: only
then). The workers OR what they wrote into their batch flags (errors, infos, final observations),
read once per batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from envhive.process.arena import LINE_WORDS
from envhive.process.protocol import OP_BITS, STEP_BLOCK
from envhive.process.waiting import SKIP_WAKEUPS, fence
from envhive.process.workers import WorkerHandle


class Pool(Protocol):
    """What the command side reads of its pool (``envhive.process.pool.ProcessPool``)."""

    workers: list[WorkerHandle]
    arrays: Any
    capacity: int
    head_words: list[int]
    worker_of: np.ndarray

    def pending(self) -> int: ...


class Commands:
    """The command side of ``pool`` (see the module doc)."""

    def __init__(self, pool: Pool, num_envs: int, arena: Any) -> None:
        self.pool = pool
        self.workers = pool.workers
        self.capacity = pool.capacity
        self.head_words = pool.head_words
        self.worker_of = pool.worker_of
        self.cmd_ring = pool.arrays["cmd_ring"]
        self.cmd_head = pool.arrays["cmd_head"]
        self.batch_flags = arena.words("batch_flags")
        self.worker_sleeping = arena.words("worker_sleeping")
        self.cmd_words = arena.words("cmd_ring")
        self.cmd_head_words = arena.words("cmd_head")
        self.step_all = np.arange(num_envs, dtype=np.int64) << OP_BITS

    def drop_views(self) -> None:
        """Forget every view of the arena (before it is unmapped: close())."""
        self.cmd_ring = self.cmd_head = self.batch_flags = self.worker_sleeping = None
        self.cmd_words = self.cmd_head_words = None

    def queue(self, env_ids: np.ndarray, ops: np.ndarray | int) -> None:
        """Queue one command per env (``ops``: one code, or one per env) and wake its worker."""
        entries = (env_ids.astype(np.int64) << OP_BITS) | ops
        workers = self.workers
        if not self.pool.pending():
            self.clear_flags()
        if len(workers) == 1:
            self.push(workers[0], entries)
            self.wake(workers)
            return
        owner = self.worker_of[env_ids]
        lo = int(owner.min())
        hi = int(owner.max())
        if lo == hi:
            self.push(workers[lo], entries)
            self.wake(workers[lo : lo + 1])
            return
        order = np.argsort(owner, kind="stable")
        owner_sorted = owner[order]
        cuts = np.searchsorted(owner_sorted, np.arange(lo, hi + 2))
        entries = entries[order]
        for w in range(lo, hi + 1):
            a, b = cuts[w - lo], cuts[w - lo + 1]
            if b > a:
                self.push(workers[w], entries[a:b])
        self.wake(workers[lo : hi + 1])

    def queue_all(self, ops: int) -> None:
        """Every env, in id order, one command each: each worker gets its block."""
        entries = self.step_all if ops == 0 else self.step_all | ops
        if not self.pool.pending():
            self.clear_flags()
        for h in self.workers:
            self.push(h, entries[h.lo : h.hi])
        self.wake(self.workers)

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
        self.wake(self.workers)

    def clear_flags(self) -> None:
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

    def wake(self, handles: Sequence[WorkerHandle]) -> None:
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

    def push(self, h: WorkerHandle, entries: np.ndarray) -> None:
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
