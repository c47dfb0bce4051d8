"""EnvPool's spec object (``make_spec``, ``env.spec``): the resolved task under EnvPool's names, its
config namedtuple, single-env spaces, ``state_array_spec`` / ``action_array_spec`` and dm_env specs.
"""

from __future__ import annotations

import collections
import pprint
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec as GymnasiumEnvSpec

from envhive.envpool.dm_specs import action_spec, observation_spec
from envhive.envpool.errors import EnvPoolArgumentError, EnvPoolUnknownTaskError
from envhive.envpool.kwargs import RENDER_KWARGS, check_render, family_of, resolve_id, translate_common
from envhive.errors import UnknownTaskError
from envhive.registry import TaskSpec, reward_threshold, task_info
from envhive.registry import make_spec as _hive_make_spec


class ArraySpec:
    """An array's dtype, shape (-1: the player axis) and bounds, as EnvPool's ``state_array_spec`` /
    ``action_array_spec`` describe them."""

    def __init__(self, dtype: Any, shape: list[int], minimum: Any, maximum: Any) -> None:
        self.dtype = np.dtype(dtype)
        self.shape = list(shape)
        self.minimum = minimum
        self.maximum = maximum

    def __repr__(self) -> str:
        return f"ArraySpec(shape={self.shape}, dtype={self.dtype}, minimum={self.minimum}, maximum={self.maximum})"


def _dtype_bounds(dtype: np.dtype[Any]) -> tuple[Any, Any]:
    if dtype == np.bool_:
        return False, True
    if np.issubdtype(dtype, np.integer):
        i = np.iinfo(dtype)
        return int(i.min), int(i.max)
    f = np.finfo(dtype)
    return float(f.tiny), float(f.max)  # EnvPool's bounds of unbounded floats


class EnvSpec(GymnasiumEnvSpec):
    """EnvPool's spec object (``make_spec``, ``env.spec``): ``config`` (a namedtuple of EnvPool's config
    fields and envhive's task kwargs, attribute access), single-env ``observation_space`` /
    ``action_space``, ``reward_threshold``, ``state_array_spec`` / ``action_array_spec``, dm_env's
    ``observation_spec()`` / ``action_spec()``, and Gymnasium's ``EnvSpec`` fields (``id``,
    ``max_episode_steps``, ``kwargs``). ``task_spec`` is envhive's resolved :class:`~envhive.TaskSpec`."""

    def __init__(self, envpool_id: str, task_spec: TaskSpec, config: Any, make_kwargs: dict[str, Any]) -> None:
        super().__init__(
            id=envpool_id,
            entry_point=None,
            reward_threshold=getattr(config, "reward_threshold", None),
            max_episode_steps=task_spec.max_episode_steps or None,
            kwargs=dict(make_kwargs),
        )
        self.task_spec = task_spec
        self.config = config
        self.gen_config = type(config)
        self.observation_space = task_spec.observation_space
        self.action_space = task_spec.action_space
        self.gymnasium_observation_space = task_spec.observation_space
        self.gymnasium_action_space = task_spec.action_space
        self.casts = _envpool_info_casts(task_spec)

    @property
    def state_array_spec(self) -> dict[str, ArraySpec]:
        """EnvPool's state arrays: the pool's fields, ``obs`` (a Dict observation: ``obs:<key>`` per
        key, as EnvPool's DMC tasks have them) and ``info:<name>`` per task info."""
        i32, f32 = np.dtype(np.int32), np.dtype(np.float32)
        out = {
            "info:env_id": ArraySpec(i32, [], *_dtype_bounds(i32)),
            "info:players.env_id": ArraySpec(i32, [-1], *_dtype_bounds(i32)),
            "elapsed_step": ArraySpec(i32, [], *_dtype_bounds(i32)),
            "done": ArraySpec(np.bool_, [], False, True),
            "reward": ArraySpec(f32, [-1], *_dtype_bounds(f32)),
            "discount": ArraySpec(f32, [-1], 0.0, 1.0),
            "step_type": ArraySpec(i32, [], *_dtype_bounds(i32)),
            "trunc": ArraySpec(np.bool_, [], False, True),
        }
        out.update(_obs_array_specs(self.observation_space))
        for name, (dtype, shape) in self.task_spec.info_fields.items():
            if name == "discount":
                continue
            dtype = np.dtype(self.casts.get(name, dtype))
            lo, hi = (0, 1) if name == "terminated" else (0, 255) if dtype == np.uint8 else _dtype_bounds(dtype)
            out[f"info:{name}"] = ArraySpec(dtype, list(shape) or [-1], lo, hi)
        return out

    @property
    def action_array_spec(self) -> dict[str, ArraySpec]:
        i32 = np.dtype(np.int32)
        act = self.action_space
        if isinstance(act, spaces.Discrete):
            action = ArraySpec(i32, [-1], int(act.start), int(act.start + act.n - 1))
        else:
            assert isinstance(act, spaces.Box)
            action = ArraySpec(act.dtype, [-1, *act.shape], _bound(act.low), _bound(act.high))
        return {
            "env_id": ArraySpec(i32, [], *_dtype_bounds(i32)),
            "players.env_id": ArraySpec(i32, [-1], *_dtype_bounds(i32)),
            "action": action,
        }

    def observation_spec(self) -> Any:
        """dm_env specs of what the dm facade's ``TimeStep.observation`` holds (needs dm-env)."""
        return observation_spec(self)

    def action_spec(self) -> Any:
        """The dm_env spec of one env's action (needs dm-env)."""
        return action_spec(self)

    def __repr__(self) -> str:
        return f"EnvSpec({self.id}, {pprint.pformat(self.config)})"


def _obs_array_specs(obs: spaces.Space[Any]) -> dict[str, ArraySpec]:
    def leaf(box: spaces.Space[Any]) -> ArraySpec:
        assert isinstance(box, spaces.Box)
        return ArraySpec(box.dtype, list(box.shape), _bound(box.low), _bound(box.high))

    if isinstance(obs, spaces.Dict):
        return {f"obs:{key}": leaf(sub) for key, sub in obs.spaces.items()}
    return {"obs": leaf(obs)}


def _bound(values: np.ndarray) -> Any:
    """A scalar where every element of a bound is the same, as EnvPool reports them."""
    arr = np.asarray(values)
    return arr.flat[0].item() if arr.size and np.all(arr == arr.flat[0]) else arr


def _envpool_info_casts(task_spec: TaskSpec) -> dict[str, Any]:
    """EnvPool's dtypes for the info fields where envhive's differ (Atari's reward and terminated)."""
    names = family_of(task_spec.id).envpool
    casts = {} if names is None else names.info_casts
    return {k: v for k, v in casts.items() if k in task_spec.info_fields}


def make_spec(task_id: str, **kwargs: Any) -> EnvSpec:
    """The spec of ``task_id`` with these kwargs, without building any env (render kwargs are ignored,
    as EnvPool's make_spec ignores them, except ``from_pixels`` and the frame's size and camera,
    which make a DMC task's observation)."""
    render = {key: kwargs.pop(key) for key in RENDER_KWARGS if key in kwargs}
    if render.get("from_pixels"):
        check_render(task_id, {k: v for k, v in render.items() if k not in ("render_mode", "render_env_id")}, kwargs)
    return spec_of(task_id, kwargs)


def spec_of(envpool_id: str, kwargs: dict[str, Any]) -> EnvSpec:
    """The spec of EnvPool id `envpool_id` with EnvPool's (or envhive's) kwargs."""
    make_kwargs = dict(kwargs)
    target, implied = resolve_id(envpool_id)
    try:
        info = task_info(target)
    except UnknownTaskError as e:
        raise EnvPoolUnknownTaskError(f"{e}; envhive.envpool.list_all_envs() lists EnvPool's ids it makes") from e
    kwargs = {**implied, **kwargs}
    out: dict[str, Any] = {}
    view: dict[str, Any] = {}
    translate_common(kwargs, out, view)
    threshold = kwargs.pop("reward_threshold", reward_threshold(target))
    names = family_of(target).envpool  # the family's own EnvPool kwargs (its descriptor)
    if names is not None and names.translate is not None:
        names.translate(envpool_id, info, kwargs, out, view)
    out.update(kwargs)  # the task's own kwargs (envhive validates them by name and type)
    try:
        task_spec = _hive_make_spec(target, **out)
    except UnknownTaskError as e:
        raise EnvPoolUnknownTaskError(str(e)) from e
    except ValueError as e:
        raise EnvPoolArgumentError(f"{envpool_id}: {e}") from e
    pool = task_spec.pool
    fields: dict[str, Any] = {
        "num_envs": pool.num_envs,
        "batch_size": pool.batch_size,
        "num_threads": pool.num_threads,
        "max_num_players": 1,
        "thread_affinity_offset": pool.thread_affinity_offset,
        **view,
        "gym_reset_return_info": True,
        "max_episode_steps": task_spec.max_episode_steps,
    }
    if threshold is not None:
        fields["reward_threshold"] = float(threshold)
    if names is not None and names.config_view is not None:  # EnvPool's names of what envhive runs
        fields.update(names.config_view(target, task_spec.config))
    fields.update((k, v) for k, v in task_spec.config.items() if k not in fields)
    config_type = collections.namedtuple("Config", list(fields))  # type: ignore[misc]  # a dynamic namedtuple
    return EnvSpec(envpool_id, task_spec, config_type(**fields), make_kwargs)
