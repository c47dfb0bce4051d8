"""Stable-Baselines3: an SB3 ``VecEnv`` over envhive's pool.

    from stable_baselines3 import PPO
    from envhive.adapters.sb3 import make_vec_env

    venv = make_vec_env("CartPole-v1", num_envs=8)
    model = PPO("MlpPolicy", venv, seed=0).learn(100_000)

The pool runs in Gymnasium's SAME_STEP autoreset mode, which is SB3's own convention: an env
whose episode ends is reset inside that step, the returned observation starts the next episode,
and ``infos[i]["terminal_observation"]`` holds the last one. ``infos[i]["TimeLimit.truncated"]``
is ``truncated and not terminated`` (SB3 bootstraps those). Each ``infos[i]`` also holds the
env's ``env_id``, ``elapsed_step`` and task infos (of the terminal step when the episode ended;
the new episode's go to ``reset_infos[i]``). Rewards are float32, as SB3's own VecEnvs give them.

Seeding follows SB3: ``seed(s)`` (which ``PPO(..., seed=s)`` calls) and ``set_options(...)``
only store, and the next ``reset()`` applies them (env ``i`` gets ``s + i``). Without them,
``reset()`` continues each env's random stream from the pool's ``seed`` kwarg.

envhive's envs live inside the pool, so there are no per-env Python objects: ``get_attr`` answers what the
envs share (``render_mode``, ``observation_space``, ``action_space``, ``metadata``, ``spec``,
``task_spec``), ``env_method`` knows ``reset`` (a partial reset of ``indices``),
``get_wrapper_attr`` and ``has_wrapper_attr``, ``env_is_wrapped`` is False (no Gymnasium wrappers
inside), and anything else raises an error that names what to use instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from envhive.adapters.common import make_pool, require_full_batches, require_mode
from envhive.authoring import PyEnv
from envhive.call_rules import message
from envhive.checks import require_autoreset
from envhive.families import task_methods
from envhive.vector import HiveVectorEnv

# Why per-env Python access is limited, whatever the backend.
NO_ENV_OBJECTS = (
    "envhive's envs live inside the pool (native C++ envs, or Gymnasium envs in worker processes or Ray actors), "
    "with no Python env objects in this process"
)
# Attributes every env of a pool shares, answered by get_attr for any index.
SHARED_ATTRIBUTES = ("render_mode", "observation_space", "action_space", "metadata", "spec", "task_spec")
ENV_METHODS = ("reset", "get_wrapper_attr", "has_wrapper_attr")


def make_vec_env(task_id: str | type[PyEnv], num_envs: int = 1, **kwargs: Any) -> SB3VecEnv:
    """Build a pool of ``task_id`` for SB3: ``envhive.make(task_id, num_envs=..., **kwargs)`` in
    SAME_STEP mode (``seed``, ``max_episode_steps``, ``num_threads`` and task kwargs as there)."""
    require_mode(kwargs, AutoresetMode.SAME_STEP, "SB3", "terminal_observation in each step's infos")
    return SB3VecEnv(make_pool(task_id, num_envs=num_envs, autoreset_mode="same_step", **kwargs))


class SB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` stepping every env of a sync, SAME_STEP envhive pool (see the module doc)."""

    def __init__(self, pool: HiveVectorEnv) -> None:
        if not isinstance(pool, HiveVectorEnv):
            raise TypeError(
                f"SB3VecEnv wraps an envhive pool (envhive.make(...), envhive.ray.RayVectorEnv(...)), "
                f"got {type(pool).__name__}; "
                "use envhive.adapters.sb3.make_vec_env(task_id, num_envs=...)"
            )
        require_full_batches(pool, "SB3", "build it with batch_size=num_envs (the default)")
        require_autoreset(
            pool.metadata["autoreset_mode"],
            AutoresetMode.SAME_STEP,
            "SB3",
            "",
            "build it with envhive.make(..., autoreset_mode='same_step') or envhive.adapters.sb3.make_vec_env",
        )
        self.pool = pool
        spec = pool.task_spec
        self._scalar_infos = ["env_id", "elapsed_step", *(k for k, (_, shape) in spec.info_fields.items() if not shape)]
        self._array_infos = [k for k, (_, shape) in spec.info_fields.items() if shape]
        self._actions: np.ndarray | None = None
        super().__init__(pool.num_envs, pool.single_observation_space, pool.single_action_space)

    # ------------------------------------------------------------------ stepping
    def reset(self) -> VecEnvObs:
        seeds = self._seeds if any(s is not None for s in self._seeds) else None
        obs, info = self.pool.reset(seed=seeds, options=self._pool_options(self._options))
        self.reset_infos = self._info_rows(info)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        obs, reward, terminated, truncated, info = self.pool.step(actions)
        infos = self._info_rows(info, (truncated & ~terminated).tolist())
        if "_final_obs" in info:  # some episodes ended (and restarted) in this step
            final_obs, final_info = info["final_obs"], info["final_info"]
            for i in np.flatnonzero(info["_final_obs"]).tolist():
                row = infos[i]
                # The row holds the new episode's infos: they are its reset infos.
                self.reset_infos[i] = {k: v for k, v in row.items() if k != "TimeLimit.truncated"}
                for key in self._scalar_infos:
                    row[key] = final_info[key][i].item()
                for key in self._array_infos:
                    row[key] = final_info[key][i]
                row["terminal_observation"] = final_obs[i]
        return obs, reward.astype(np.float32), terminated | truncated, infos

    def _info_rows(self, info: dict[str, Any], time_limits: list[bool] | None = None) -> list[dict[str, Any]]:
        """One dict per env from envhive's dict of arrays."""
        keys: list[str] = []
        columns: list[Sequence[Any]] = []
        if time_limits is not None:
            keys.append("TimeLimit.truncated")
            columns.append(time_limits)
        for key in self._scalar_infos:
            keys.append(key)
            columns.append(info[key].tolist())
        for key in self._array_infos:
            keys.append(key)
            columns.append(list(info[key]))
        return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]

    def _pool_options(self, options: list[dict[str, Any]]) -> dict[str, Any] | None:
        """SB3's per-env option dicts -> envhive's reset options (one array per option)."""
        if not any(options):
            return None
        names = sorted({name for opts in options for name in opts})
        valid = sorted(name for name, _ in self.pool.task_spec.task.reset_options)
        for name in names:
            if name not in valid:
                raise ValueError(
                    f"{self.pool.task_spec.id}: unknown reset option {name!r} in set_options(); "
                    f"valid: {', '.join(valid) or 'none (this task takes no reset options)'}"
                )
            if any(name not in opts for opts in options):
                raise ValueError(f"set_options(): give {name!r} for every env or for none (pass one dict for all envs)")
        return {name: np.asarray([opts[name] for opts in options], dtype=np.float64) for name in names}

    def close(self) -> None:
        self.pool.close()

    # ------------------------------------------------------------------ per-env access
    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        n = len(self._indices(indices))
        if attr_name == "observation_space":
            return [self.pool.single_observation_space] * n
        if attr_name == "action_space":
            return [self.pool.single_action_space] * n
        if attr_name == "task_spec":
            return [self.pool.task_spec] * n
        if attr_name in SHARED_ATTRIBUTES:
            return [getattr(self.pool, attr_name)] * n
        raise AttributeError(
            f"{self.pool!r} has no per-env attribute {attr_name!r}: {NO_ENV_OBJECTS}. get_attr answers what "
            f"they share ({', '.join(SHARED_ATTRIBUTES)}); "
            "per-env data comes in each step's infos (env_id, elapsed_step, the task's infos); "
            "the task's kwargs are in get_attr('task_spec')[0].config"
        )

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        spec = self.pool.task_spec
        options = ", ".join(sorted(name for name, _ in spec.task.reset_options)) or "none for this task"
        kwargs = ", ".join(sorted(spec.config))
        raise AttributeError(
            f"cannot set {attr_name!r} on {self.pool!r}: {NO_ENV_OBJECTS}; they are configured when the pool "
            f"is built (make_vec_env({spec.id!r}, num_envs=..., <kwarg>=...); kwargs: {kwargs}) "
            f"or at a reset (set_options({{...}}) with the task's reset options: {options})"
        )

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        targets = self._indices(indices)
        if method_name == "reset":
            return self._partial_reset(targets, *method_args, **method_kwargs)
        if method_name == "get_wrapper_attr":
            (name,) = method_args
            return self.get_attr(name, targets)
        if method_name == "has_wrapper_attr":
            (name,) = method_args
            return [name in SHARED_ATTRIBUTES] * len(targets)
        if method_name == "render":
            return self._frames(targets)
        spec = self.pool.task_spec  # the task's own methods (a GoalEnv's compute_reward: HerReplayBuffer)
        method = task_methods(spec.family, spec.id, spec.config).get(method_name)
        if method is not None:
            return [method(*method_args, **method_kwargs) for _ in targets]
        raise AttributeError(
            f"{self.pool!r} has no env method {method_name!r}: {NO_ENV_OBJECTS}; env_method knows "
            f"{', '.join(ENV_METHODS)}. Reset options go through set_options() "
            "and a full reset(), task kwargs through make_vec_env(...)"
        )

    def _partial_reset(
        self, targets: list[int], seed: int | None = None, options: dict[str, Any] | None = None
    ) -> list[tuple[Any, dict[str, Any]]]:
        """env_method('reset', indices=...): reset those envs only (Gymnasium's reset_mask)."""
        mask = np.zeros(self.num_envs, dtype=bool)
        mask[targets] = True
        # Like DummyVecEnv's env_method("reset", seed=s): each env reset is given the same seed.
        seeds = None if seed is None else [seed if mask[i] else None for i in range(self.num_envs)]
        pool_options: dict[str, Any] = {"reset_mask": mask, **(options or {})}
        obs, info = self.pool.reset(seed=seeds, options=pool_options)
        rows = self._info_rows(info)
        for i in targets:
            self.reset_infos[i] = rows[i]
        return [(obs[i], rows[i]) for i in targets]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._indices(indices))  # no Gymnasium wrapper this process could see

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Every env's frame (``render_mode="rgb_array"``), drawn on the pool's threads; SB3's
        ``render()`` tiles them."""
        return self._frames(list(range(self.num_envs)))

    def _frames(self, targets: list[int]) -> list[np.ndarray | None]:
        if self.pool.capabilities.render_env_ids:  # drawn on the pool's threads, only those asked for
            frames = self.pool.render(targets)  # None (with Gymnasium's warning) without a render mode
            return [None] * len(targets) if frames is None else list(frames)
        every = self.pool.render()  # e.g. the process backend draws every env's frame in its workers
        return [None] * len(targets) if every is None else [every[i] for i in targets]

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        targets = [indices] if isinstance(indices, int | np.integer) else list(indices)
        for i in targets:
            if not 0 <= int(i) < self.num_envs:
                raise IndexError(message("env_id_range", what="env index", env=i, num_envs=self.num_envs))
        return [int(i) for i in targets]

    def __repr__(self) -> str:
        return f"SB3VecEnv({self.pool!r})"


def unwrap_pool(venv: VecEnv) -> HiveVectorEnv:
    """The envhive pool under an SB3 VecEnv wrapper stack (VecMonitor, VecNormalize, ...)."""
    base = venv.unwrapped
    if not isinstance(base, SB3VecEnv):
        raise TypeError(f"{type(base).__name__} is not an envhive SB3VecEnv")
    return base.pool
