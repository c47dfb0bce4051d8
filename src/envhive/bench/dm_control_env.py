"""dm_control's own suite tasks as the benchmark's reference: a Gymnasium env over
``suite.load`` (what Shimmy's ``DmControlCompatibilityV0`` does, for Gymnasium's vector envs), and
dm_control's own dm_env loop. With ``from_pixels`` the observation is dm_control's
``physics.render(height, width, camera_id)`` after every reset and step, as its pixels wrapper
draws it. Bench-only: dm_control is imported when an env is made, in the worker process.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from envhive.families.dmc import suite_task as _parse_suite_task
from envhive.registry import task_info

# envhive's DMC kwargs this reference honours; any other is refused (the comparison would not be
# like for like).
SUPPORTED = {"from_pixels", "height", "width", "camera_id", "time_limit"}


def suite_task(task_id: str) -> tuple[str, str]:
    """dm_control's (domain, task) of an envhive DMC task id."""
    return _parse_suite_task(task_info(task_id).doc)


def load(task_id: str, seed: int | None, **kwargs: Any) -> Any:
    """dm_control's env of ``task_id`` seeded ``seed`` (task_kwargs random), behind its pixels
    wrapper when ``from_pixels``."""
    unknown = set(kwargs) - SUPPORTED
    if unknown:
        raise ValueError(f"the dm_control reference does not take {sorted(unknown)} (it takes {sorted(SUPPORTED)})")
    # dm_control picks its GL platform when imported (unset: GLFW, which needs a display): headless
    # EGL, as envhive's own frames
    os.environ.setdefault("MUJOCO_GL", "egl")
    from dm_control import suite

    domain, task = suite_task(task_id)
    task_kwargs: dict[str, Any] = {"random": seed}
    if "time_limit" in kwargs:
        task_kwargs["time_limit"] = kwargs["time_limit"]
    env = suite.load(domain, task, task_kwargs=task_kwargs)
    if kwargs.get("from_pixels"):
        from dm_control.suite.wrappers import pixels

        render = {"height": kwargs.get("height", 84), "width": kwargs.get("width", 84)}
        render["camera_id"] = kwargs.get("camera_id", 0)
        env = pixels.Wrapper(env, pixels_only=True, render_kwargs=render)
    return env


def _space(spec: Any) -> spaces.Space[Any]:
    if isinstance(spec, dict):
        return spaces.Dict({key: _space(sub) for key, sub in spec.items()})
    if spec.dtype == np.uint8:
        return spaces.Box(0, 255, spec.shape, np.uint8)
    low = getattr(spec, "minimum", -np.inf)
    high = getattr(spec, "maximum", np.inf)
    return spaces.Box(np.broadcast_to(low, spec.shape), np.broadcast_to(high, spec.shape), spec.shape, spec.dtype)


class DmControlGymEnv(gymnasium.Env[Any, np.ndarray]):
    """One dm_control suite env as a Gymnasium env: its observation dict as a Dict (or the frame,
    ``from_pixels``), ``terminated`` where the episode ends with discount 0, ``truncated`` at the
    time limit. ``reset(seed=s)`` starts the episodes of ``task_kwargs={"random": s}``."""

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, task_id: str, **kwargs: Any) -> None:
        self._task_id, self._kwargs = task_id, kwargs
        self._env = load(task_id, None, **kwargs)
        spec = self._env.observation_spec()
        self._pixels_only = bool(kwargs.get("from_pixels"))
        self.observation_space = _space(spec["pixels"] if self._pixels_only else dict(spec))
        self.action_space = _space(self._env.action_spec())

    def _obs(self, observation: Any) -> Any:
        return observation["pixels"] if self._pixels_only else dict(observation)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:  # dm_control seeds once, when the env is made
            self._env = load(self._task_id, seed, **self._kwargs)
        return self._obs(self._env.reset().observation), {}

    def step(self, action: np.ndarray) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        ts = self._env.step(action)
        last = ts.last()
        return self._obs(ts.observation), float(ts.reward), last and ts.discount == 0.0, last and ts.discount != 0.0, {}

    def render(self) -> np.ndarray:
        physics = self._env.physics
        size = (self._kwargs.get("height", 84), self._kwargs.get("width", 84))
        return physics.render(*size, camera_id=self._kwargs.get("camera_id", 0))

    def close(self) -> None:
        self._env.close()
