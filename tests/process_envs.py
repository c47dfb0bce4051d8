"""Small Gymnasium envs for the process-backend tests (importable by spawned workers).

``DictWalk`` has a Dict observation (Box, Discrete, MultiBinary, a nested Tuple) and infos of
every kind the backend batches: Python and numpy scalars, arrays, a nested dict, and -- every
fifth step -- a string, which has to go through the pipe. ``Faulty`` fails on purpose, in the env
whose reset seed is ``fail_seed``: it raises, segfaults, exits or hangs at step ``fail_step``.
"""

from __future__ import annotations

import ctypes
import os
import time
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

DICT_WALK = "envhive-tests/DictWalk-v0"
DICT_WALK_STEPS = 25


class DictWalk(gymnasium.Env[dict[str, Any], np.ndarray]):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(self, render_mode: str | None = None) -> None:
        self.observation_space = spaces.Dict(
            {
                "pos": spaces.Box(-10.0, 10.0, shape=(2,), dtype=np.float32),
                "count": spaces.Discrete(DICT_WALK_STEPS + 1),
                "flags": spaces.MultiBinary(3),
                "pair": spaces.Tuple((spaces.Box(0.0, 1.0, shape=(), dtype=np.float64), spaces.MultiDiscrete([3, 4]))),
            }
        )
        self.action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        self.render_mode = render_mode
        self.pos = np.zeros(2, dtype=np.float32)
        self.count = 0

    def _obs(self) -> dict[str, Any]:
        flags = (self.np_random.random(3) < 0.5).astype(np.int8)
        pair = (np.array(self.np_random.random()), self.np_random.integers(0, [3, 4]))
        return {"pos": self.pos.copy(), "count": self.count, "flags": flags, "pair": pair}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict]:
        super().reset(seed=seed)
        start = 0.0 if not options else float(options.get("start", 0.0))
        self.pos = (self.np_random.uniform(-1, 1, size=2) + start).astype(np.float32)
        self.count = 0
        return self._obs(), {"start": self.pos.copy(), "seeded": seed is not None}

    def step(self, action: np.ndarray) -> tuple[dict[str, Any], float, bool, bool, dict]:
        self.pos = np.clip(self.pos + np.asarray(action, dtype=np.float32), -10, 10).astype(np.float32)
        self.count += 1
        reward = float(-np.abs(self.pos).sum())
        terminated = bool(np.abs(self.pos).max() > 3.0)
        info: dict[str, Any] = {
            "distance": float(np.abs(self.pos).sum()),
            "count": self.count,
            "near": bool(np.abs(self.pos).max() < 1.0),
            "pos32": np.float32(self.pos[0]),
            "trace": self.pos.astype(np.float64),
            "stats": {"max": float(np.abs(self.pos).max()), "steps": self.count},
        }
        if self.count % 5 == 0:
            info["note"] = f"step {self.count}"  # a string: batched as an object array
        return self._obs(), reward, terminated, False, info

    def render(self) -> np.ndarray:
        frame = np.zeros((4, 4, 3), dtype=np.uint8)
        frame[0, 0] = np.clip((self.pos + 10) * 12, 0, 255).astype(np.uint8)[0]
        frame[0, 1, 0] = self.count
        return frame


gymnasium.register(DICT_WALK, entry_point=DictWalk, max_episode_steps=DICT_WALK_STEPS)


class Faulty(gymnasium.Env[np.ndarray, np.int64]):
    """A counter env; the env reset with ``fail_seed`` fails at ``fail_step`` as ``fail``
    (``"gate"``: that step waits until the file ``gate`` exists -- a hold the test releases, so
    no test depends on how long anything takes)."""

    observation_space = spaces.Box(0, 1000, shape=(1,), dtype=np.float32)
    action_space = spaces.Discrete(3)
    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(
        self,
        fail: str = "raise",
        fail_seed: int = -1,
        fail_step: int = 3,
        delay: float = 0.0,
        gate: str = "",
        render_mode: str | None = None,
    ) -> None:
        self.fail, self.fail_seed, self.fail_step, self.delay, self.gate = fail, fail_seed, fail_step, delay, gate
        self.render_mode = render_mode
        self.steps = 0
        self.failing = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self.failing = seed == self.fail_seed
        self.steps = 0
        return np.array([0.0], dtype=np.float32), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        self.steps += 1
        if self.delay:
            time.sleep(self.delay)
        if self.failing and self.steps == self.fail_step:
            if self.fail == "raise":
                raise RuntimeError(f"injected failure at step {self.steps}")
            if self.fail == "segfault":
                ctypes.string_at(0)
            if self.fail == "exit":
                os._exit(3)
            if self.fail == "hang":
                time.sleep(3600)
            if self.fail == "gate":
                while not os.path.exists(self.gate):
                    time.sleep(0.005)
        return np.array([self.steps], dtype=np.float32), float(action), False, False, {}

    def render(self) -> np.ndarray:
        return np.full((2, 2, 3), self.steps, dtype=np.uint8)


def make_faulty(**kwargs: Any) -> Faulty:
    """A module-level factory (picklable under every start method)."""
    return Faulty(**kwargs)
