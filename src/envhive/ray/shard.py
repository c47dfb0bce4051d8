"""EnvShard: one envhive pool inside a Ray actor, and how a batch of envs is cut into shards.

The pool's threads come from the actor's CPU allocation (``num_cpus`` of the actor): Ray CPUs are
logical, so ``os.cpu_count()`` on the node says nothing about what this actor may use. A shard
always runs a *sync* pool over its envs; asynchrony is across shards (``RayVectorEnv``).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import ray

from envhive.checks import env_seeds
from envhive.pools import make_pool
from envhive.registry import TaskSpec, backend_for


def assigned_cpus(default: int = 1) -> int:
    """Whole CPUs Ray gave the current actor or task (at least 1); ``default`` outside Ray.

    Fractional allocations round down (0.5 CPU is one thread), an allocation of 0 is 1 thread.
    """
    if not ray.is_initialized():
        return default
    try:
        resources = ray.get_runtime_context().get_assigned_resources()
    except AssertionError:  # Ray refuses the question in the driver: it is no actor or task
        return default
    cpus = resources.get("CPU")
    if cpus is None:
        omp = os.environ.get("OMP_NUM_THREADS")  # Ray sets it to the allocation in workers
        return max(1, int(omp)) if omp and omp.isdigit() else default
    return max(1, math.floor(cpus))


@dataclass(frozen=True)
class ShardLayout:
    """Where each shard's envs sit in the global batch: shard ``k`` holds global ids
    ``offsets[k] .. offsets[k] + sizes[k] - 1`` (local id ``i`` is global ``offsets[k] + i``)."""

    sizes: tuple[int, ...]

    @classmethod
    def split(cls, num_envs: int, num_shards: int) -> ShardLayout:
        """``num_envs`` envs over ``num_shards`` shards, contiguous, sizes differing by at most one."""
        if not isinstance(num_shards, int) or num_shards < 1:
            raise ValueError(f"num_shards must be a positive int, got {num_shards!r}")
        if not isinstance(num_envs, int) or num_envs < num_shards:
            raise ValueError(f"num_envs ({num_envs!r}) must be an int >= num_shards ({num_shards})")
        base, extra = divmod(num_envs, num_shards)
        return cls(tuple(base + (k < extra) for k in range(num_shards)))

    @property
    def num_envs(self) -> int:
        return sum(self.sizes)

    @property
    def offsets(self) -> tuple[int, ...]:
        return tuple(int(x) for x in np.cumsum((0, *self.sizes[:-1])))

    def ids(self, shard: int) -> range:
        start = self.offsets[shard]
        return range(start, start + self.sizes[shard])


def release_actors(actors: Sequence[Any], timeout: float = 10.0) -> list[Any]:
    """Kill ``actors`` and wait until Ray reports each one dead (at most ``timeout`` seconds), so
    their CPUs are free again when this returns; returns the ones still alive at the deadline.

    ``ray.kill`` only asks the GCS to kill: a call sent to the handle right after it can still run
    on the live actor. Polling the handle's built-in ``__ray_ready__`` until it raises
    ``RayActorError`` is the wait Ray itself suggests (ray-project/ray#34917)."""
    for actor in actors:
        ray.kill(actor, no_restart=True)
    pending = list(actors)
    deadline = time.monotonic() + timeout
    while pending:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        refs = [actor.__ray_ready__.remote() for actor in pending]
        ray.wait(refs, num_returns=len(refs), timeout=left)
        alive = []
        for actor, ref in zip(pending, refs, strict=True):
            try:
                ray.get(ref, timeout=0)
            except ray.exceptions.RayActorError:
                continue
            except ray.exceptions.GetTimeoutError:
                pass  # busy in a call it had before the kill: SIGKILL ends it
            alive.append(actor)
        pending = alive
        if pending:
            time.sleep(0.02)
    return pending


def incarnation_seeds(base: Sequence[int | None] | None, incarnation: int) -> list[int | None] | None:
    """Seeds of a shard's envs in its ``incarnation``-th life: the base seeds (``seed + global id``)
    first, then for each restart a fresh seed per env derived from (base seed, incarnation), so a
    restarted shard neither replays its old streams nor any other env's, and a rerun repeats it.
    ``None`` (OS entropy) stays ``None``: every incarnation draws fresh entropy."""
    if base is None:
        return None
    if incarnation == 0:
        return list(base)
    return [
        None if s is None else int(np.random.SeedSequence([s, incarnation]).generate_state(1, np.uint64)[0])
        for s in base
    ]


class EnvShard:
    """A Ray actor holding one sync envhive pool of ``num_envs`` envs of ``task``.

    Create it with ``ray.remote(EnvShard).options(num_cpus=...)`` (``RayVectorEnv`` does). The pool
    is made as ``envhive.make`` makes it (``backend``: "native", "process" or None to let the task
    choose), so a shard hosts native tasks and any Gymnasium env alike; unless the pool kwargs size
    it, it gets one thread (native) or worker process (process backend) per whole CPU of the
    actor's allocation. ``env_offset`` is the global id of local env 0: errors name global env ids.
    """

    def __init__(
        self,
        task: Any,
        num_envs: int,
        seeds: Sequence[int | None] | None,
        env_offset: int = 0,
        backend: str | None = None,
        **pool_kwargs: Any,
    ) -> None:
        if "batch_size" in pool_kwargs:
            raise ValueError("an EnvShard runs a sync pool: drop batch_size (RayVectorEnv is async across shards)")
        kwargs = dict(pool_kwargs)
        threads = "num_threads" if backend_for(task, backend) == "native" else "num_workers"
        if kwargs.get(threads) in (None, 0):
            kwargs[threads] = assigned_cpus(default=os.cpu_count() or 1)
        self.env_offset = env_offset
        self.pool = make_pool(task, backend, num_envs=num_envs, seed=None if seeds is None else list(seeds), **kwargs)

    def ready(self) -> dict[str, Any]:
        """Where this shard runs: node id, pid, pool size and threads (also a liveness check)."""
        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "num_envs": self.pool.num_envs,
            "num_threads": self.pool.task_spec.pool.num_threads,
        }

    def spec(self) -> TaskSpec:
        """The shard pool's resolved task (its spaces, for a driver that could not resolve them)."""
        return self.pool.task_spec

    def reset(
        self, seed: list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """The pool's ``reset`` (``seed`` per local env, already resolved by the caller)."""
        return self.pool.reset(seed=seed, options=options)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One sync step of every env of the shard."""
        return self.pool.step(actions)

    def render(self) -> tuple[np.ndarray, ...] | None:
        """Every env's frame (``render_mode="rgb_array"``), drawn on the pool's threads."""
        return self.pool.render()

    def close(self) -> None:
        self.pool.close()


def resolve_global_seeds(seed: Any, num_envs: int) -> dict[int, int]:
    """Seeds over global env ids (``envhive.checks.env_seeds``): an int ``s`` gives env ``g`` the
    seed ``s + g`` however the envs are split; a sequence gives one per env; an env without one
    draws OS entropy in its pool."""
    return env_seeds(seed, num_envs)
