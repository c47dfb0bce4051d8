"""The engines the harness can time: what each one honours, and how it steps.

The metadata (`ENGINES`) is cheap to import; the simulators themselves (envhive's native
module, EnvPool, Gymnasium) are imported only inside `build`, in the worker process.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import cycle, islice
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import gymnasium

ENVPOOL_HINT = "envpool not installed: pip install 'envhive[bench]'"
GYMNASIUM_HINT = "gymnasium not installed: pip install gymnasium"

# Random actions are drawn before timing starts and cycled; bound the pool's memory.
POOL_BATCHES = 64
POOL_SINGLE = 1024
POOL_BYTES = 32 << 20


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


def gymnasium_id(task: str) -> str:
    """The Gymnasium id of an envhive task: the same name (ALE tasks live under `ALE/`)."""
    import gymnasium

    if task in gymnasium.registry:
        return task
    try:
        import ale_py
    except ImportError:
        return task
    gymnasium.register_envs(ale_py)
    ale_id = f"ALE/{task}"
    return ale_id if ale_id in gymnasium.registry else task


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


def _pool_runner(env: Any, space: gymnasium.Space[Any], num_envs: int, batch_size: int, seed: int) -> Runner:
    """envhive and EnvPool share one protocol: step() when sync, recv()/send() when async."""
    if batch_size == num_envs:
        env.reset()
        sync_actions = action_pool(space, num_envs, seed)
        step = env.step

        def advance_sync(n: int) -> None:
            for a in islice(sync_actions, n):
                step(a)

        return Runner(advance_sync, env.close, num_envs)

    env.async_reset()
    async_actions = action_pool(space, batch_size, seed)
    recv, send = env.recv, env.send

    def advance_async(n: int) -> None:
        for a in islice(async_actions, n):
            send(a, recv()[4]["env_id"])

    return Runner(advance_async, env.close, batch_size)


def _build_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import envhive

    kwargs: dict[str, Any] = {"num_envs": num_envs, "batch_size": batch_size, "seed": seed}
    if num_threads:
        kwargs["num_threads"] = num_threads
    env = envhive.make(task, **kwargs)
    return _pool_runner(env, env.single_action_space, num_envs, batch_size, seed)


def _build_envhive_dm(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import envhive

    kwargs: dict[str, Any] = {"num_envs": num_envs, "batch_size": batch_size, "seed": seed}
    if num_threads:
        kwargs["num_threads"] = num_threads
    env = envhive.make_dm(task, **kwargs)
    space = env.task_spec.action_space
    if batch_size == num_envs:
        env.reset()
        sync_actions = action_pool(space, num_envs, seed)
        step = env.step

        def advance_sync(n: int) -> None:
            for a in islice(sync_actions, n):
                step(a)

        return Runner(advance_sync, env.close, num_envs)

    env.async_reset()
    async_actions = action_pool(space, batch_size, seed)
    recv, send = env.recv, env.send

    def advance_async(n: int) -> None:
        for a in islice(async_actions, n):
            recv()
            send(a, env.last_info["env_id"])

    return Runner(advance_async, env.close, batch_size)


def _build_envpool(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import envpool

    kwargs: dict[str, Any] = {"num_envs": num_envs, "batch_size": batch_size, "seed": seed}
    if num_threads:
        kwargs["num_threads"] = num_threads
    env = envpool.make(task, env_type="gymnasium", **kwargs)
    # EnvPool's action_space is the single-env space, float64 for Box.
    return _pool_runner(env, env.action_space, num_envs, batch_size, seed)


def _build_gymnasium_single(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import gymnasium

    env = gymnasium.make(gymnasium_id(task))
    env.reset(seed=seed)
    actions = action_pool(env.action_space, None, seed)
    step, reset = env.step, env.reset

    def advance(n: int) -> None:
        for a in islice(actions, n):
            _, _, terminated, truncated, _ = step(a)
            if terminated or truncated:
                reset()

    return Runner(advance, env.close, 1)


def _build_gymnasium_vector(mode: str) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        import gymnasium

        env = gymnasium.make_vec(gymnasium_id(task), num_envs=num_envs, vectorization_mode=mode)
        env.reset(seed=seed)
        actions = action_pool(env.single_action_space, num_envs, seed)
        step = env.step

        def advance(n: int) -> None:
            for a in islice(actions, n):
                step(a)

        pids = [p.pid for p in getattr(env, "processes", []) if p.pid is not None]
        return Runner(advance, env.close, num_envs, pids)

    return build


@dataclass(frozen=True)
class Engine:
    """One way of running a task, as the harness and the CLI see it.

    `vectorized`: honours `num_envs` (otherwise always one env); `batched`: honours
    `batch_size < num_envs` with a send/recv loop; `threaded`: honours `num_threads`.
    `label`: the mode column, formatted with num_envs; None for pool engines (sync / async).
    """

    name: str
    description: str
    requires: str
    install_hint: str
    build: Builder
    vectorized: bool = True
    batched: bool = False
    threaded: bool = False
    label: str | None = None

    def available(self) -> str | None:
        """None if the engine can run here, else why it is skipped."""
        if importlib.util.find_spec(self.requires) is None:
            return self.install_hint
        return None

    def mode(self, num_envs: int, batch_size: int) -> str:
        if self.label is not None:
            return self.label.format(num_envs=num_envs)
        return "sync" if batch_size == num_envs else f"async {batch_size}/{num_envs}"


ENGINES: dict[str, Engine] = {
    e.name: e
    for e in (
        Engine(
            "envhive",
            "envhive.make, C++ thread pool",
            "envhive",
            "envhive not importable",
            _build_envhive,
            batched=True,
            threaded=True,
        ),
        Engine(
            "envhive-dm",
            "envhive.make_dm, the dm_env facade over the same pool",
            "envhive",
            "envhive not importable",
            _build_envhive_dm,
            batched=True,
            threaded=True,
        ),
        Engine(
            "gymnasium-single",
            "gymnasium.make + Python loop (one env, one core)",
            "gymnasium",
            GYMNASIUM_HINT,
            _build_gymnasium_single,
            vectorized=False,
            label="1 env, Python loop",
        ),
        Engine(
            "gymnasium-sync",
            "gymnasium.make_vec(vectorization_mode='sync')",
            "gymnasium",
            GYMNASIUM_HINT,
            _build_gymnasium_vector("sync"),
            label="SyncVectorEnv",
        ),
        Engine(
            "gymnasium-async",
            "gymnasium.make_vec(vectorization_mode='async'), N processes",
            "gymnasium",
            GYMNASIUM_HINT,
            _build_gymnasium_vector("async"),
            label="AsyncVectorEnv, 1 proc/env",
        ),
        Engine(
            "gymnasium-vec",
            "gymnasium.make_vec(vectorization_mode='vector_entry_point')",
            "gymnasium",
            GYMNASIUM_HINT,
            _build_gymnasium_vector("vector_entry_point"),
            label="vector_entry_point",
        ),
        Engine(
            "envpool",
            "envpool.make(env_type='gymnasium'), C++ thread pool",
            "envpool",
            ENVPOOL_HINT,
            _build_envpool,
            batched=True,
            threaded=True,
        ),
    )
}
