"""What every engine is: its metadata (`Engine`), and the stepping loop its `build` returns (`Runner`).

Nothing here imports a simulator: `build` imports its library in the worker process.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import cycle, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import gymnasium

# Random actions are drawn before timing starts and cycled; bound the pool's memory.
POOL_BATCHES = 64
POOL_SINGLE = 1024
POOL_BYTES = 32 << 20

# The interpreter of another envhive build (its venv's python), timed as the `envhive-alt` engine
# beside this one for before/after comparisons in one run.
ALT_PYTHON_ENV = "ENVHIVE_BENCH_ALT_PYTHON"
# The engine that interpreter runs for `envhive-alt` (default `envhive`; e.g. `envhive-process`).
ALT_ENGINE_ENV = "ENVHIVE_BENCH_ALT_ENGINE"


@dataclass
class Runner:
    """A constructed and reset engine. `advance(n)` makes n timed calls, each worth
    `steps_per_call` env steps (num_envs for a sync step, batch_size for recv + send)."""

    advance: Callable[[int], None]
    close: Callable[[], None]
    steps_per_call: int
    child_pids: list[int] = field(default_factory=list)


# (task, num_envs, batch_size, num_threads or None, seed) -> a constructed, reset Runner
Builder = Callable[[str, int, int, int | None, int], Runner]

# The task kwargs of the measurement a worker runs (`--kwargs`, in envhive's names), set before
# `build`: engines that take them (Engine.kwargs) pass them on in their own names.
_TASK_KWARGS: dict[str, Any] = {}


def set_task_kwargs(kwargs: dict[str, Any]) -> None:
    _TASK_KWARGS.clear()
    _TASK_KWARGS.update(kwargs)


def task_kwargs() -> dict[str, Any]:
    return dict(_TASK_KWARGS)


@dataclass(frozen=True)
class Engine:
    """One way of running a task, as the harness and the CLI see it.

    `vectorized`: honours `num_envs` (otherwise always one env); `batched`: honours
    `batch_size < num_envs` with a send/recv loop; `threaded`: honours `num_threads`.
    `label`: the mode column, formatted with num_envs; None for pool engines (sync / async).
    `rate`: an engine that times itself (a C++ executable): (task, seconds, seed) -> steps/s,
    used instead of `build`.
    """

    name: str
    description: str
    requires: str
    install_hint: str
    build: Builder | None
    vectorized: bool = True
    batched: bool = False
    threaded: bool = False
    label: str | None = None
    rate: Callable[[str, float, int], float] | None = None
    python_var: str | None = None
    """An environment variable naming the interpreter that runs this engine's workers (an engine
    whose library cannot share envhive's environment); None: this interpreter."""
    kwargs: bool = False
    """Takes the task's kwargs (`--kwargs`, in envhive's names); others skip a measurement with kwargs."""

    def python(self) -> str | None:
        """The interpreter for this engine's workers, if not this one."""
        return os.environ.get(self.python_var) if self.python_var else None

    def available(self) -> str | None:
        """None if the engine can run here, else why it is skipped."""
        if self.python_var:
            python = self.python()
            if not python or not os.access(python, os.X_OK):
                return f"{self.install_hint} (set ${self.python_var} to its interpreter)"
            return None
        if self.name == "envhive-alt":
            alt = os.environ.get(ALT_PYTHON_ENV)
            return None if alt and Path(alt).exists() else f"set ${ALT_PYTHON_ENV} to another build's python"
        if importlib.util.find_spec(self.requires) is None:
            return self.install_hint
        return None

    def mode(self, num_envs: int, batch_size: int) -> str:
        if self.label is not None:
            return self.label.format(num_envs=num_envs)
        return "sync" if batch_size == num_envs else f"async {batch_size}/{num_envs}"


def action_pool(space: gymnasium.Space[Any], batch: int | None, seed: int) -> Iterator[Any]:
    """An endless cycle of random actions drawn up front: single actions when `batch` is None,
    else arrays of `batch` rows in the space's dtype (EnvPool's Box is float64)."""
    import numpy as np
    from gymnasium.vector.utils import batch_space

    if batch is None:
        sampler, size = space, POOL_SINGLE
    else:
        sampler = batch_space(space, batch)
        row_bytes = max(1, int(np.prod(space.shape or (1,))) * np.dtype(space.dtype or "f8").itemsize)
        size = max(1, min(POOL_BATCHES, POOL_BYTES // (row_bytes * batch)))
    sampler.seed(seed)
    actions = [sampler.sample() for _ in range(size)]
    if batch is not None and space.dtype is not None:
        actions = [np.ascontiguousarray(a, dtype=space.dtype) for a in actions]
    return cycle(actions)


def loop(step: Callable[[Any], Any], actions: Iterator[Any]) -> Callable[[int], None]:
    """`advance(n)`: `step` called with the next n actions."""

    def advance(n: int) -> None:
        for a in islice(actions, n):
            step(a)

    return advance


def sync_runner(env: Any, space: gymnasium.Space[Any], num_envs: int, seed: int) -> Runner:
    """A pool stepped whole: `reset()`, then `step(actions)` with batches of random actions."""
    env.reset()
    return Runner(loop(env.step, action_pool(space, num_envs, seed)), env.close, num_envs)


def pool_runner(
    env: Any, space: gymnasium.Space[Any], num_envs: int, batch_size: int, seed: int, dm: bool = False
) -> Runner:
    """envhive, its dm facade (`dm`) and EnvPool share one protocol: step() when sync, recv()/send()
    when async (the env ids to send to come with the batch received: in its info, or for the dm
    facade in `last_info`)."""
    if batch_size == num_envs:
        return sync_runner(env, space, num_envs, seed)
    env.async_reset()
    async_actions = action_pool(space, batch_size, seed)
    recv, send = env.recv, env.send

    def advance_async(n: int) -> None:
        for a in islice(async_actions, n):
            send(a, recv()[4]["env_id"])

    def advance_async_dm(n: int) -> None:
        for a in islice(async_actions, n):
            recv()
            send(a, env.last_info["env_id"])

    return Runner(advance_async_dm if dm else advance_async, env.close, batch_size)


def pool_kwargs(num_envs: int, num_threads: int | None, seed: int) -> dict[str, Any]:
    """A pool's num_envs, seed, and num_threads when given (else the pool's default)."""
    kwargs: dict[str, Any] = {"num_envs": num_envs, "seed": seed}
    if num_threads:
        kwargs["num_threads"] = num_threads
    return kwargs
