"""rl_games: an ``envhive`` vecenv type and env configuration.

    from rl_games.torch_runner import Runner
    from envhive.adapters import rl_games as hive_rl_games

    hive_rl_games.register()                        # vecenv type "ENVHIVE", env name "envhive"
    config = {...}                                  # an rl_games PPO config with:
    config["config"]["env_name"] = "envhive"
    config["config"]["env_config"] = {"env_name": "CartPole-v1"}   # + envhive.make kwargs
    runner = Runner()
    runner.load({"params": config})
    runner.run({"train": True})

rl_games passes ``num_actors`` as the pool's ``num_envs`` and its ``seed`` into ``env_config``
(env ``i`` gets ``seed + i``); the rest of ``env_config`` is ``envhive.make``'s kwargs.
``env_config["pool"]`` swaps ``envhive.make`` for another pool factory, called as
``pool(env_name, num_envs=num_actors, autoreset_mode="same_step", **rest)``: e.g.
``functools.partial(envhive.ray.RayVectorEnv, num_shards=4)`` to step the actors on Ray.

The pool runs in SAME_STEP autoreset mode: the step that ends an episode returns the next
episode's first observation, so every row rl_games stores is a real transition (rl_games 1.6.5
has no notion of NEXT_STEP's filler rows and would train on them; ``get_env_info()`` also says
``autoreset_mode="same_step"`` for rl_games versions that read it). ``step`` returns
``(obs, reward, done, info)`` with ``info`` a dict of arrays: ``time_outs`` (truncated and not
terminated: rl_games bootstraps those), ``scores`` (each env's raw episode return, final on the
step that ends it: what rl_games' default observer reports), ``env_id``, ``elapsed_step`` and the
task's infos (of the terminal step for envs whose episode ended, so Atari's ``lives`` reads 0
at a game over, as rl_games' observer expects).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from rl_games.common import env_configurations, vecenv
from rl_games.common.ivecenv import IVecEnv

from envhive.adapters.common import make_pool, require_full_batches, require_mode
from envhive.vector import HiveVectorEnv

VECENV_TYPE = "ENVHIVE"
ENV_NAME = "envhive"


class RlGamesVecEnv(IVecEnv):
    """rl_games' vecenv over a sync, SAME_STEP envhive pool of ``num_actors`` envs."""

    def __init__(self, config_name: str, num_actors: int, **kwargs: Any) -> None:
        if "env_name" not in kwargs:
            raise ValueError(
                f"rl_games env {config_name!r}: env_config needs 'env_name', the envhive task id "
                "(e.g. {'env_name': 'CartPole-v1'})"
            )
        task_id = kwargs.pop("env_name")
        require_mode(kwargs, AutoresetMode.SAME_STEP, "rl_games", "it trains on every row it is given: no filler rows")
        if kwargs.get("batch_size") not in (None, 0, num_actors):
            raise ValueError(
                f"rl_games steps every actor at once; an async pool (batch_size={kwargs['batch_size']} < "
                f"num_actors={num_actors}) cannot feed it: drop batch_size"
            )
        factory = kwargs.pop("pool", make_pool)
        if not callable(factory):
            raise TypeError(f"rl_games env {config_name!r}: env_config['pool'] must be a pool factory, got {factory!r}")
        self.pool = factory(task_id, num_envs=num_actors, autoreset_mode="same_step", **kwargs)
        if not isinstance(self.pool, HiveVectorEnv):
            raise TypeError(
                f"rl_games env {config_name!r}: env_config['pool'] returned {type(self.pool).__name__}, "
                "not an envhive pool (envhive.make, envhive.ray.RayVectorEnv, ...)"
            )
        require_full_batches(self.pool, "rl_games", "drop batch_size")
        self._info_keys = list(self.pool.task_spec.info_fields)
        self._returns = np.zeros(num_actors, dtype=np.float64)
        self._pending_seed: int | None = None

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, reward, terminated, truncated, pool_info = self.pool.step(np.asarray(actions))
        done = terminated | truncated
        self._returns += reward
        info: dict[str, Any] = {
            "time_outs": truncated & ~terminated,
            "scores": self._returns.copy(),
            "env_id": pool_info["env_id"],
            "elapsed_step": pool_info["elapsed_step"],
        }
        for key in self._info_keys:
            info[key] = pool_info[key]
        if "_final_info" in pool_info:  # envs whose episode ended: their terminal step's infos
            final, ended = pool_info["final_info"], pool_info["_final_obs"]
            for key in ("elapsed_step", *self._info_keys):
                rows = ended.reshape(-1, *([1] * (info[key].ndim - 1)))
                info[key] = np.where(rows, final[key], info[key])
        self._returns[done] = 0.0
        return obs, reward, done, info

    def reset(self) -> np.ndarray:
        seed, self._pending_seed = self._pending_seed, None
        obs, _ = self.pool.reset(seed=seed)
        self._returns[:] = 0.0
        return obs

    def seed(self, seed: int) -> None:
        """Seed env ``i`` with ``seed + i`` at the next reset."""
        self._pending_seed = int(seed)

    def get_number_of_agents(self) -> int:
        return 1

    def get_env_info(self) -> dict[str, Any]:
        return {
            "action_space": self.pool.single_action_space,
            "observation_space": self.pool.single_observation_space,
            "state_space": None,
            "use_global_observations": False,
            "agents": 1,
            "value_size": 1,
            "autoreset_mode": "same_step",
        }

    def close(self) -> None:
        self.pool.close()


def _no_single_env(**kwargs: Any) -> Any:
    raise NotImplementedError(
        "envhive gives rl_games a vecenv, not a single Gym env: for rl_games' player set "
        "config['player'] = {'use_vecenv': True} (it then plays through the ENVHIVE vecenv)"
    )


def register(name: str = ENV_NAME, vecenv_type: str = VECENV_TYPE) -> str:
    """Add the ``vecenv_type`` vecenv and the ``name`` env configuration to rl_games; returns
    ``name`` (use it as ``config["env_name"]``, with the task in ``env_config["env_name"]``)."""
    vecenv.register(vecenv_type, lambda config_name, num_actors, **kw: RlGamesVecEnv(config_name, num_actors, **kw))
    env_configurations.register(name, {"vecenv_type": vecenv_type, "env_creator": _no_single_env})
    return name
