"""A dm_env.Environment facade over the same native pool.

TimeSteps are batched: ``step_type``, ``reward`` and ``discount`` are arrays with one entry per
returned env, ``observation`` the batched observation. dm_env's own convention drives
autoreset: the step after a LAST starts a new episode (FIRST, reward 0), so the pool runs in
NEXT_STEP mode. ``discount`` is 0 when an episode terminated and 1 when it was truncated, so
time limits stay visible and bootstrapping stays correct; a task that reports a ``discount``
info lowers it further (Atari's ``zero_discount_on_life_loss``: 0 on a step that lost a life,
which stays a MID step, as in EnvPool's dm_env mode). ``last_info`` keeps the flags, env ids
and task infos of the latest call.
"""

from __future__ import annotations

from typing import Any

import dm_env
import dm_env.specs
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from envhive.process import ProcessVectorEnv
from envhive.registry import make_spec
from envhive.vector import HiveVectorEnv

_FIRST, _MID, _LAST = (int(t) for t in (dm_env.StepType.FIRST, dm_env.StepType.MID, dm_env.StepType.LAST))


def to_dm_spec(space: spaces.Space[Any], name: str) -> Any:
    """The dm_env spec of one env's observation or action (Dict -> dict, Tuple -> tuple of specs)."""
    if isinstance(space, spaces.Discrete):
        if int(space.start) == 0:
            return dm_env.specs.DiscreteArray(int(space.n), dtype=np.int64, name=name)
        low, high = int(space.start), int(space.start) + int(space.n) - 1
        return dm_env.specs.BoundedArray((), np.int64, low, high, name=name)
    if isinstance(space, spaces.Dict):
        return {key: to_dm_spec(sub, f"{name}/{key}") for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(to_dm_spec(sub, f"{name}/{i}") for i, sub in enumerate(space.spaces))
    if isinstance(space, spaces.MultiDiscrete):
        return dm_env.specs.BoundedArray(space.shape, space.dtype, space.start, space.start + space.nvec - 1, name=name)
    if isinstance(space, spaces.MultiBinary):
        return dm_env.specs.BoundedArray(space.shape, space.dtype, 0, 1, name=name)
    if isinstance(space, spaces.Box):
        return dm_env.specs.BoundedArray(space.shape, space.dtype, space.low, space.high, name=name)
    raise TypeError(f"no dm_env spec for {space!r}")


class HiveDmEnv(dm_env.Environment):
    """Batched dm_env over ``num_envs`` envs (``batch_size`` per call in async mode)."""

    def __init__(self, task_id: str | VectorEnv, **kwargs: Any) -> None:
        """``task_id``: an envhive task id (kwargs as for envhive.make), or a vector env built
        already (a ProcessVectorEnv, in NEXT_STEP mode, without kwargs)."""
        if kwargs.pop("autoreset_mode", None) not in (None, "next_step", AutoresetMode.NEXT_STEP):
            raise ValueError("the dm_env facade follows dm_env's own autoreset (NEXT_STEP); omit autoreset_mode")
        self._vec: HiveVectorEnv | ProcessVectorEnv
        if isinstance(task_id, HiveVectorEnv | ProcessVectorEnv):
            if kwargs or task_id.metadata.get("autoreset_mode") != AutoresetMode.NEXT_STEP:
                raise ValueError("the dm_env facade wraps a vector env in NEXT_STEP autoreset mode, without kwargs")
            self._vec = task_id
        elif isinstance(task_id, str):
            self._vec = HiveVectorEnv(make_spec(task_id, **kwargs))
        else:
            raise TypeError(f"expected an envhive task id or an envhive vector env, got {task_id!r}")
        self.task_spec = self._vec.task_spec
        self.num_envs = self._vec.num_envs
        self.batch_size = self._vec.batch_size
        self.last_info: dict[str, Any] = {}

    def reset(self) -> dm_env.TimeStep:
        obs, info = self._vec.reset()
        rows = len(info["env_id"])
        self.last_info = info
        return dm_env.TimeStep(
            step_type=np.full(rows, _FIRST, dtype=np.int8),
            reward=np.zeros(rows, dtype=np.float64),
            discount=np.ones(rows, dtype=np.float32),
            observation=obs,
        )

    def step(self, action: Any, env_id: Any = None) -> dm_env.TimeStep:
        obs, reward, terminated, truncated, info = self._vec.step(action, env_id)
        return self._timestep(obs, reward, terminated, truncated, info)

    def send(self, action: Any, env_id: Any = None) -> None:
        self._vec.send(action, env_id)

    def recv(self, timeout: float | None = None) -> dm_env.TimeStep:
        return self._timestep(*self._vec.recv(timeout))

    def async_reset(self) -> None:
        self._vec.async_reset()

    def _timestep(
        self, obs: Any, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray, info: dict[str, Any]
    ) -> dm_env.TimeStep:
        step_type = np.where(terminated | truncated, _LAST, np.where(info["elapsed_step"] == 0, _FIRST, _MID))
        info = dict(info, terminated=terminated, truncated=truncated)
        self.last_info = info
        discount = np.where(terminated, 0.0, 1.0).astype(np.float32)
        if "discount" in info:  # the task's own discount (e.g. 0 on a lost life)
            discount = np.minimum(discount, info["discount"]).astype(np.float32)
        return dm_env.TimeStep(
            step_type=step_type.astype(np.int8),
            reward=reward,
            discount=discount,
            observation=obs,
        )

    def observation_spec(self) -> Any:
        return to_dm_spec(self._vec.single_observation_space, "observation")

    def action_spec(self) -> Any:
        return to_dm_spec(self._vec.single_action_space, "action")

    def reward_spec(self) -> Any:
        return dm_env.specs.Array((), np.float64, name="reward")

    def discount_spec(self) -> Any:
        return dm_env.specs.BoundedArray((), np.float32, 0.0, 1.0, name="discount")

    def close(self) -> None:
        self._vec.close()
