"""Stable-Baselines3 over a multi-agent pool: every agent of every env is one row of an SB3
``VecEnv`` (parameter sharing, as SuperSuit's ``concat_vec_envs_v1(..., base_class="stable_baselines3")``
gives it), over :class:`envhive.multiagent.AgentVectorEnv`.

    from stable_baselines3 import PPO
    from envhive.adapters.sb3_multiagent import make_vec_env

    venv = make_vec_env("mpe2.simple_spread_v3", num_envs=16, max_cycles=25)
    PPO("MlpPolicy", venv, seed=0).learn(100_000)

The envs reset in the step that ends a game (SAME_STEP, SB3's convention): ``infos[row]["terminal_observation"]``
holds the row's last observation and ``infos[row]["TimeLimit.truncated"]`` is ``truncated and not terminated``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from envhive.multiagent import AgentVectorEnv, Task, vector_env


def make_vec_env(task: Task, num_envs: int = 1, pad: bool = False, **kwargs: Any) -> AgentRowsVecEnv:
    """``num_envs`` envs of ``task`` (an envhive multi-agent task id or a PettingZoo env, as
    ``envhive.multiagent.make`` takes it), one SB3 row per agent of every env."""
    if kwargs.get("autoreset_mode", "same_step") not in ("same_step", gymnasium.vector.AutoresetMode.SAME_STEP):
        raise ValueError("SB3 resets an env in the step that ends it: autoreset_mode must be 'same_step'")
    kwargs.pop("autoreset_mode", None)
    return AgentRowsVecEnv(vector_env(task, num_envs=num_envs, pad=pad, autoreset_mode="same_step", **kwargs))


class AgentRowsVecEnv(VecEnv):
    """An SB3 VecEnv over an AgentVectorEnv in SAME_STEP mode."""

    def __init__(self, flat: AgentVectorEnv) -> None:
        self.flat = flat
        super().__init__(flat.num_envs, flat.single_observation_space, flat.single_action_space)
        self._actions: np.ndarray | None = None
        self._seed: int | None = None

    def reset(self) -> VecEnvObs:
        obs, info = self.flat.reset(seed=self._seed)
        self._seed = None
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        obs, reward, terminated, truncated, info = self.flat.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        final = info.get("_final_obs")
        for row in np.flatnonzero(dones):
            infos[row]["TimeLimit.truncated"] = bool(truncated[row] and not terminated[row])
            if final is not None and final[row]:
                infos[row]["terminal_observation"] = info["final_obs"][row]
        return obs, reward, dones, infos

    def seed(self, seed: int | None = None) -> Sequence[None | int]:
        self._seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def close(self) -> None:
        self.flat.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.flat, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(
            f"the rows of a multi-agent pool share their env: set_attr({attr_name!r}) is not supported"
        )

    def env_method(self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any) -> list[Any]:
        raise AttributeError(f"the rows of a multi-agent pool have no env objects: env_method({method_name!r})")

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        frames = self.flat.render()
        return [None] * self.num_envs if frames is None else list(frames)

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)
