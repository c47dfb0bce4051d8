"""RayVectorEnv: a HiveVectorEnv whose envs live in EnvShard actors on any Ray nodes.

Global env ids are contiguous per shard (``env_id = shard offset + local id``) and an int seed
``s`` gives env ``g`` the seed ``s + g``, so the trajectories are the same however the envs are
split (one local pool, or S shards on S nodes). Sync mode steps every shard at once (one Ray call
per shard, all in flight together). Async mode (``batch_size < num_envs``) is first-ready across
shards: each shard has at most one call in flight, ``recv`` returns the first
``batch_size / shard size`` shards to answer (``ray.wait``), and ``send(actions, info["env_id"])``
steps exactly those again -- the EnvPool loop. The backend is ``envhive.ray.RayBackend``.

Faults. A shard whose actor or node dies, or that does not answer within ``step_timeout``
seconds (it is killed), raises ``envhive.EnvError`` naming its global env ids; the call's batch is
lost and the dead shard is started afresh by the next ``reset()``. With ``max_restarts=n`` a shard
is instead restarted at once (up to ``n`` times over the env's life): the new actor's envs get fresh
per-incarnation seeds (``incarnation_seeds``), and the episodes the death cut are reported as
truncated -- the call returns, for those envs, their last observation with ``truncated=True`` and
reward 0 (SAME_STEP: the new episode's first observation, the old one in ``final_obs``); the next
step starts the new episodes as a NEXT_STEP autoreset does (actions ignored, reward 0).
An exception inside an env is the pool's ``EnvError`` with global ids; the shard stays usable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ray

from envhive.ray.backend import RayBackend
from envhive.ray.shard import EnvShard
from envhive.registry import DEFAULT_SEED
from envhive.vector import HiveVectorEnv


def RayVectorEnv(  # noqa: N802 - a constructor by name: it builds the env, as a class would
    task_id: Any,
    num_envs: int,
    num_shards: int = 1,
    *,
    batch_size: int | None = None,
    seed: int | Sequence[int] | None = DEFAULT_SEED,
    backend: str | None = None,
    num_cpus_per_shard: float = 1,
    actor_options: dict[str, Any] | None = None,
    max_restarts: int = 0,
    step_timeout: float | None = None,
    start_timeout: float = 300.0,
    shard_class: type[EnvShard] = EnvShard,
    **kwargs: Any,
) -> HiveVectorEnv:
    """``num_envs`` envs of ``task_id`` in ``num_shards`` EnvShard actors (see the module doc).

    ``task_id``: an envhive task id, or any task ``envhive.make`` takes (``backend="process"``:
    each shard runs the Gymnasium env in worker processes). ``num_cpus_per_shard`` is each actor's
    Ray CPU request and sizes its pool's threads (or worker processes); ``actor_options`` go to
    ``.options()`` of every shard actor (``resources``, ``scheduling_strategy``, ``runtime_env``,
    ...). ``step_timeout`` (seconds, None: wait) bounds every step of a shard; ``start_timeout``
    bounds starting a shard (actor placement, pool construction, first reset). ``shard_class``: an
    ``EnvShard`` subclass to run instead (extra methods, instrumentation). Other kwargs are the
    task's and the pool's (``max_episode_steps``, ``autoreset_mode``, task options).
    """
    if not ray.is_initialized():
        raise RuntimeError("RayVectorEnv needs a running Ray: call ray.init() (or ray.init(address=...)) first")
    for name in ("num_threads", "num_workers", "thread_affinity_offset", "seed_offset"):
        if name in kwargs:
            raise ValueError(f"{name} is not a RayVectorEnv kwarg: each shard sizes its pool from num_cpus_per_shard")
    if not isinstance(max_restarts, int) or max_restarts < 0:
        raise ValueError(f"max_restarts must be an int >= 0, got {max_restarts!r}")
    for name, value in (("step_timeout", step_timeout), ("start_timeout", start_timeout)):
        if value is not None and not (isinstance(value, int | float) and 0 < value < float("inf")):
            raise ValueError(f"{name} must be a positive finite number of seconds, got {value!r}")
    options = {"num_cpus": num_cpus_per_shard, "max_restarts": 0, "max_task_retries": 0, **(actor_options or {})}
    return HiveVectorEnv(
        RayBackend(
            task_id,
            num_envs,
            num_shards,
            batch_size=batch_size,
            seed=seed,
            backend=backend,
            actor_options=options,
            max_restarts=max_restarts,
            step_timeout=step_timeout,
            start_timeout=start_timeout,
            shard_class=shard_class,
            kwargs=kwargs,
        )
    )
