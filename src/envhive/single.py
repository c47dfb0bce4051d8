"""One env as a ``gymnasium.Env``: what ``gymnasium.make("envhive/<id>")`` returns.

:class:`HiveEnv` is backed by a one-env native pool, so a step is one native call (no Python per
env, no extra thread: the calling thread steps the env). It is Gymnasium's unwrapped env: no time
limit of its own and no autoreset, so ``gymnasium.make`` adds its usual wrappers around it, the
``TimeLimit`` of the registered ``max_episode_steps`` (or of ``make(..., max_episode_steps=N)``)
included -- exactly as it wraps ``CartPoleEnv``. ``gymnasium.make_vec(..., vectorization_mode=
"sync" | "async")`` builds its envs the same way; ``"vector_entry_point"`` builds one pool
(:class:`envhive.HiveVectorEnv`) instead.

``reset(seed=s)`` seeds the env's generator as Gymnasium's ``reset(seed=s)`` does (envhive
reproduces numpy's), so the same seed gives the same trajectories as Gymnasium's own env.
Stepping an env whose episode terminated raises ``ValueError`` (call ``reset()``), where
Gymnasium's envs would go on stepping a finished episode.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces

from envhive.families import task_methods
from envhive.registry import POOL_KWARGS, make_spec, task_info
from envhive.vector import HiveVectorEnv

# Pool kwargs a single env does not take: it is one env, seeded through reset(seed=...), and the
# time limit belongs to gymnasium.make's TimeLimit.
_NOT_FOR_A_SINGLE_ENV = frozenset(POOL_KWARGS) - {"max_episode_steps"}


class HiveEnv(gymnasium.Env[Any, Any]):
    """One env of ``task_id`` on a one-env native pool, with Gymnasium's single-env API."""

    # What gymnasium.make reads before the env exists: envhive's render mode (each instance's
    # metadata then says what its task draws, and its frame rate, which RecordVideo reads).
    metadata: dict[str, Any] = {"render_modes": ["rgb_array"]}

    def __init__(
        self, task_id: str, *, render_mode: str | None = None, max_episode_steps: int | None = None, **kwargs: Any
    ) -> None:
        """``kwargs`` are the task's own (e.g. Pendulum's ``g``); ``max_episode_steps`` (default:
        none, like any unwrapped Gymnasium env; the task's own for a task whose limit is part of it,
        like minigrid's max_steps) makes the pool truncate episodes itself."""
        pool_kwargs = sorted(_NOT_FOR_A_SINGLE_ENV & set(kwargs))
        if pool_kwargs:
            raise TypeError(
                f"{task_id}: a single env takes no {', '.join(repr(k) for k in pool_kwargs)}: seed it with "
                "reset(seed=...); for many envs use gymnasium.make_vec or envhive.make"
            )
        if max_episode_steps is None:
            # none, like any unwrapped Gymnasium env -- unless the limit is the task's own (minigrid's
            # max_steps, which scales its reward): then the task's default, as minigrid's env keeps it
            info = task_info(task_id)
            max_episode_steps = info.max_episode_steps if info.task_time_limit else 0
        spec = make_spec(
            task_id,
            num_envs=1,
            seed=None,  # unseeded like Gymnasium's envs: fresh entropy until reset(seed=...)
            autoreset_mode="disabled",  # a single env never resets by itself
            max_episode_steps=max_episode_steps,
            render_mode=render_mode,
            text_observations="str",  # a Text leaf (BabyAI's mission) is a str, as its space contains
            **kwargs,
        )
        self._vec = HiveVectorEnv(spec)
        self.task_spec = spec
        # The task's render modes and frame rate (Gymnasium's RecordVideo reads render_fps).
        self.metadata = {k: v for k, v in self._vec.metadata.items() if k != "autoreset_mode"}
        self.render_mode = render_mode
        self.observation_space = spec.observation_space
        self.action_space = spec.action_space
        # The action goes into a one-row batch; the pool copies it, so one buffer serves every step.
        self._discrete = isinstance(spec.action_space, spaces.Discrete)
        if self._discrete:
            self._action = np.zeros(1, dtype=np.int64)
        else:
            assert isinstance(spec.action_space, spaces.Box)
            self._action = np.zeros((1, *spec.action_space.shape), dtype=spec.action_space.dtype)
        self._action_shape = tuple(self.action_space.shape or ())
        self._info_names = tuple(spec.info_fields)
        self._ended = False  # the episode terminated or was truncated: step() needs a reset() first

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start an episode; ``seed`` reseeds the env (and ``self.np_random``), ``options`` are the
        task's reset options (e.g. MuJoCo's ``body_mass_scale``: a scalar or one value per body)."""
        super().reset(seed=seed)
        if options and "reset_mask" in options:
            raise ValueError("a single env has no reset_mask: reset() resets it")
        pool_options = {name: np.asarray(value, dtype=np.float64)[None] for name, value in (options or {}).items()}
        obs, info = self._vec.reset(seed=seed, options=pool_options or None)
        self._ended = False
        return _first(obs, self.observation_space), self._info(info)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._ended:
            raise ValueError(
                f"{self.task_spec.id}: the episode has ended (terminated or truncated): call reset() before "
                "stepping again"
            )
        self._set_action(action)
        obs, reward, terminated, truncated, info = self._vec.step(self._action)
        done, cut = bool(terminated[0]), bool(truncated[0])
        self._ended = done or cut
        return _first(obs, self.observation_space), float(reward[0]), done, cut, self._info(info)

    def render(self) -> np.ndarray | None:
        """The env's frame, ``(height, width, 3)`` uint8 (``render_mode="rgb_array"``), drawn on the
        pool's thread; None (with Gymnasium's warning) when the env was made without a render mode."""
        frames = self._vec.render()
        return None if frames is None else frames[0]

    def close(self) -> None:
        if hasattr(self, "_vec"):
            self._vec.close()

    def __getattr__(self, name: str) -> Any:
        """The task's own methods (``envhive.families.task_methods``: a GoalEnv's ``compute_reward``)."""
        spec = self.__dict__.get("task_spec")
        methods = task_methods(spec.family, spec.id, spec.config) if spec is not None else {}
        if name in methods:
            return methods[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"HiveEnv({self.task_spec.id})"

    def _set_action(self, action: Any) -> None:
        if self._discrete:
            if not isinstance(action, int | np.integer) or isinstance(action, bool | np.bool_):
                a = np.asarray(action)
                if a.dtype.kind not in "iu" or a.size != 1:
                    raise TypeError(f"{self.task_spec.id}: a Discrete action is one integer, got {action!r}")
                action = a.reshape(()).item()
            self._action[0] = action
            return
        a = np.asarray(action)
        if a.shape != self._action_shape:
            raise ValueError(f"{self.task_spec.id}: the action must have shape {self._action_shape}, got {a.shape}")
        if a.dtype.kind not in "fiu":
            raise TypeError(f"{self.task_spec.id}: a Box action holds real numbers, got dtype {a.dtype}")
        self._action[0] = a

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        """The task's own info fields for this env (the pool's env_id and elapsed_step are left out:
        a single env's info is what Gymnasium's env reports)."""
        return {name: info[name][0] for name in self._info_names}


def _first(obs: Any, space: spaces.Space[Any]) -> Any:
    """Env 0's observation of a one-env batch: every leaf's row 0, through the space's Dict and
    Tuple nesting (a Text leaf's batch is a tuple of str, its row 0 a str)."""
    if isinstance(space, spaces.Dict):
        return {key: _first(obs[key], sub) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(_first(value, sub) for value, sub in zip(obs, space.spaces, strict=True))
    return obs[0]
