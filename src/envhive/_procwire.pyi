"""envhive._procwire: the process backend's sync step in C++ (csrc/process/sync_wire.cc)."""

from typing import Any

import numpy as np

class SyncWire:
    """The parent's side of a sync step over a process pool's arena (one action leaf)."""

    def __init__(
        self,
        cmd_head: np.ndarray,
        cmd_ring: np.ndarray,
        done_head: np.ndarray,
        batch_flags: np.ndarray,
        worker_sleeping: np.ndarray,
        action: np.ndarray,
        low: np.ndarray,
        high: np.ndarray,
        handles: list[Any],
        command_fds: list[int],
        capacity: int,
        line_words: int,
        step_block: int,
        skip_wakeups: bool,
    ) -> None: ...
    def step(self, actions: Any, spin_s: float) -> int:
        """send() then wait(): the OR-ed batch flags, -1 if not done in spin_s, -2 if send() did not take them."""
    @property
    def waited_s(self) -> float: ...

class BlockWriter:
    """A worker's rewards, flags and elapsed steps, written from its lists in one call."""

    def __init__(
        self, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray, elapsed: np.ndarray
    ) -> None: ...
    def write(self, rewards: list[Any], terminated: list[Any], truncated: list[Any], elapsed: list[Any]) -> bool:
        """Write the block's lists; False (nothing written) unless every value is plain."""

def write_rows(observations: list[Any], out: np.ndarray) -> bool:
    """Copy each numpy observation into its row of out; False (nothing written) unless each matches."""

class CommandSpin:
    """A worker's spin on its command head."""

    def __init__(self, cmd_head: np.ndarray, at: int) -> None: ...
    def spin(self, tail: int, spin_s: float) -> bool:
        """Spin (yielding) until the command head moves past tail, at most spin_s seconds; True once it did."""

class Publisher:
    """A worker's publication of its completion count (and the parent's wake-up)."""

    def __init__(
        self,
        done_head: np.ndarray,
        parent_waiting: np.ndarray,
        want_total: np.ndarray,
        done_fd: int,
        index: int,
        workers: int,
        line_words: int,
        skip_wakeups: bool,
    ) -> None: ...
    def publish(self, finished: int, yield_core: bool) -> None:
        """Publish the completion count, wake a blocked parent whose total it completes, then maybe yield."""
