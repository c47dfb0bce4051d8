"""RLlib (new API stack): envhive ids in EnvRunners, with distinct per-runner seeds.

    import envhive.adapters.rllib  # every envhive id, for every Ray worker process
    from ray.rllib.algorithms.ppo import PPOConfig

    config = (
        PPOConfig()
        .environment("envhive/CartPole-v1")
        .env_runners(num_env_runners=2, num_envs_per_env_runner=8, gym_env_vectorize_mode="vector_entry_point")
        .debugging(seed=0)
    )

Importing this module registers every envhive task as ``envhive/<task>`` with Ray Tune's env
registry (``ray.tune.register_env``), which Ray stores in the cluster and every worker process
reads: EnvRunners resolve the id without importing anything themselves. (Gymnasium 1.x has no
plugin entry points any more, so nothing else reaches a worker that never imports envhive;
without this import, Gymnasium's ``"envhive:envhive/CartPole-v1"`` form -- import the module,
then look the id up -- works in any process, with the seeding caveat below.)

What the EnvRunner gets is envhive's pool (NEXT_STEP autoreset, what RLlib consumes; sync, since
RLlib steps every env each call) built from ``config.environment(env_config=...)`` as the task's
kwargs (``max_episode_steps``, ``num_threads``, task options). In a remote EnvRunner the pool's
threads default to the runner's CPU allocation (``num_cpus_per_env_runner``, whole CPUs, at least
one), not the node's core count: Ray CPUs are logical, and N runners on a node would otherwise each
start one thread per core. Seeding: RLlib resets runner ``k``
with ``seed + k`` (eval runners ``+ 1e6``); here env ``i`` of a runner reset with ``s`` gets seed
``s * num_envs + i``, so no two envs of any runners share a seed and a rerun repeats every one.
(Gymnasium's own convention, ``s + i``, gives runner 1's env 1 the seed of runner 2's env 0.)
With no ``config.seed``, each pool draws fresh OS entropy.

Misconfigurations reach the driver as the runner's own error. RLlib builds each EnvRunner's env in
the runner, and by default (``restart_failed_env_runners=True``) only logs a runner that failed to
start; the driver then fails with ``IndexError: list index out of range`` when it asks the runners
for their spaces. So importing this module also extends ``AlgorithmConfig.validate`` -- which RLlib
calls on the driver when it builds an algorithm, before any runner starts, for the training and the
evaluation config -- with :func:`check_config`: a config naming an envhive id is checked there as a
runner would check it (the vectorize mode, RLlib's env settings, the task's kwargs), and the error
names the fix.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper
from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
from ray.tune.registry import register_env

from envhive.adapters.common import make_pool
from envhive.checks import require_autoreset
from envhive.ray.shard import assigned_cpus
from envhive.registry import backend_for, list_envs, make_spec
from envhive.vector import HiveVectorEnv

ID_PREFIX = "envhive/"
_VECTOR_MODE_HINT = (
    "envhive ids are vector envs (one pool per EnvRunner): set "
    "config.env_runners(gym_env_vectorize_mode='vector_entry_point')"
)


class RunnerSeeds(VectorWrapper):
    """Spreads an int reset seed ``s`` over the pool as ``s * num_envs + i`` (see the module doc)."""

    def __init__(self, pool: HiveVectorEnv) -> None:
        super().__init__(pool)
        self.pool = pool

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
            n = self.pool.num_envs
            seed = [int(seed) * n + i for i in range(n)]
        return self.pool.reset(seed=seed, options=options)


def runner_kwargs(task_id: str, env_config: Mapping[str, Any]) -> dict[str, Any]:
    """The pool kwargs of an EnvRunner for ``envhive/<task_id>``: ``env_config`` plus RLlib's
    ``num_envs``, refused with the fix named where RLlib cannot consume the pool."""
    kwargs = dict(env_config)
    if "num_envs" not in kwargs:
        raise ValueError(f"{ID_PREFIX}{task_id}: {_VECTOR_MODE_HINT}")
    if kwargs.get("batch_size") not in (None, 0, kwargs["num_envs"]):
        raise ValueError(
            f"{ID_PREFIX}{task_id}: RLlib steps every env of a runner at once; an async pool "
            f"(batch_size={kwargs['batch_size']} < num_envs={kwargs['num_envs']}) cannot feed it: drop batch_size"
        )
    require_autoreset(
        kwargs.get("autoreset_mode"),
        AutoresetMode.NEXT_STEP,
        f"{ID_PREFIX}{task_id}: RLlib's EnvRunner",
        "it finishes an episode's chunk at its end and starts the next from the reset step",
    )
    if "seed" in kwargs:
        raise ValueError(
            f"{ID_PREFIX}{task_id}: seed RLlib runs with config.debugging(seed=...), not env_config['seed']: "
            "RLlib reseeds each runner with seed + worker_index at its first reset"
        )
    return kwargs


def make_runner_env(task_id: str, env_config: Mapping[str, Any]) -> VectorEnv:
    """What an EnvRunner builds for ``envhive/<task_id>``: ``env_config`` plus RLlib's ``num_envs``."""
    kwargs = runner_kwargs(task_id, env_config)
    if backend_for(task_id) == "native" and kwargs.get("num_threads") in (None, 0):
        kwargs["num_threads"] = assigned_cpus(default=0)  # a remote EnvRunner: its num_cpus_per_env_runner
    return RunnerSeeds(make_pool(task_id, seed=None, **kwargs))


def check_config(config: Any) -> None:
    """Raise, here, what an EnvRunner of ``config`` (an RLlib ``AlgorithmConfig``) would raise making
    its envhive pool; nothing for a config whose env is not an envhive id. ``AlgorithmConfig.validate``
    calls it once this module is imported (the module doc)."""
    env = config.env
    if not isinstance(env, str) or not env.startswith(ID_PREFIX):
        return
    task_id = env[len(ID_PREFIX) :]
    if task_id not in list_envs():
        return  # not one of ours (register_ids registers envhive's tasks)
    mode = gymnasium.VectorizeMode(config.gym_env_vectorize_mode)
    if mode != gymnasium.VectorizeMode.VECTOR_ENTRY_POINT:
        raise ValueError(f"{env}: {_VECTOR_MODE_HINT} (it is {mode.value!r})")
    kwargs = runner_kwargs(task_id, {**config.env_config, "num_envs": config.num_envs_per_env_runner})
    if backend_for(task_id) == "native":
        make_spec(task_id, **kwargs)  # the task's kwargs, resolved as the runner's pool will (no env is built)


def _validate_with_envhive_checks(validate: Callable[[Any], None]) -> Callable[[Any], None]:
    """``AlgorithmConfig.validate``, then :func:`check_config` (where RLlib's validation is on)."""

    @functools.wraps(validate)
    def checked(config: Any) -> None:
        validate(config)
        if getattr(config, "_validate_config", True):
            check_config(config)

    checked.envhive_checks = True  # type: ignore[attr-defined]
    return checked


def register_ids(task_ids: Iterable[str] | None = None) -> list[str]:
    """Register ``envhive/<task>`` with Ray Tune for ``task_ids`` (default: every task); returns the
    ids. Import time does it for every task; call it for tasks registered later (a PyEnv class)."""
    ids = []
    for task_id in list_envs() if task_ids is None else task_ids:
        if task_id.startswith(ID_PREFIX):
            task_id = task_id[len(ID_PREFIX) :]
        register_env(ID_PREFIX + task_id, functools.partial(make_runner_env, task_id))
        ids.append(ID_PREFIX + task_id)
    return ids


register_ids()
if not getattr(AlgorithmConfig.validate, "envhive_checks", False):
    AlgorithmConfig.validate = _validate_with_envhive_checks(AlgorithmConfig.validate)
