"""A worker's command ring: the commands the parent queues for it, and the completions it publishes.

The parent appends entries to ``cmd_ring[w]`` and bumps ``cmd_head[w * LINE]``; the worker reads
them in order (``tail``), and publishes how many it has finished (``done_head``, through the C++
``Publisher``: the Dekker protocol of ``envhive.process.waiting``), with the env ids of per-env
commands in ``done_ring[w]``. Between commands it waits: a short yielding spin, then a block.
"""

from __future__ import annotations

import os
import time

import envhive._procwire as _procwire
from envhive.process.arena import LINE_WORDS, Arena
from envhive.process.waiting import SKIP_WAKEUPS, EventFd, Spinner, block, fence

OWNER_POLL_S = 1.0  # how often a worker without a pidfd checks that its owner lives


class CommandRing:
    def __init__(
        self, arena: Arena, index: int, cmd_fd: int, done_fd: int, watch: int, owner_pid: int, spin_s: float
    ) -> None:
        a = arena.arrays
        num_workers = len(a["done_head"]) // LINE_WORDS
        self.head = arena.words("cmd_head")
        self.head_at = index * LINE_WORDS
        self.capacity = a["cmd_ring"].shape[1]
        self.entries = arena.words("cmd_ring")[index * self.capacity : (index + 1) * self.capacity]
        self.done = arena.words("done_ring")[index * self.capacity : (index + 1) * self.capacity]
        self.tail = 0  # entries read
        self.finished = 0  # env commands finished (a block step counts each of its envs)
        self.publisher = _procwire.Publisher(
            a["done_head"], a["parent_waiting"], a["want_total"], done_fd, index, num_workers, LINE_WORDS, SKIP_WAKEUPS
        )
        self.commands = EventFd(cmd_fd)
        self.command_spin = _procwire.CommandSpin(a["cmd_head"], self.head_at)
        self.sleeping = arena.words("worker_sleeping")
        self.spinner = Spinner(spin_s, num_workers + 1)  # when waits for a command spin
        self.watch = watch  # the owner's pidfd (-1: none, poll its pid instead)
        self.owner_pid = owner_pid

    def wait(self) -> bool:
        """Spin for the next command, then block; False when the owner is gone.

        The spin lasts at most ``spin_us``, yields the core on every round (the trainer, when it
        shares this core, runs first), and happens only while commands have lately come back
        within it (a running mean of the idle gaps): a trainer that thinks for milliseconds
        between steps finds its workers blocked, not burning the cores it needs."""
        cmd_head, head_at, tail = self.head, self.head_at, self.tail
        start = time.perf_counter()
        spinner = self.spinner
        spin = spinner.window(start)
        if spin > 0 and self.command_spin.spin(tail, spin):
            spinner.record(time.perf_counter() - start)
            return True
        fds = [self.commands.fd] if self.watch < 0 else [self.commands.fd, self.watch]
        sleeping = self.sleeping
        sleeping[head_at] = 1
        fence()  # the flag is visible before we look at the queue once more
        try:
            while cmd_head[head_at] == tail:
                ready = block(fds, OWNER_POLL_S if self.watch < 0 else None)
                if self.watch in ready or (self.watch < 0 and os.getppid() != self.owner_pid):
                    return False
                self.commands.drain()
        finally:
            sleeping[head_at] = 0
        spinner.record(time.perf_counter() - start)
        return True
