"""EnvPool's API on envhive's engine: ``import envhive.envpool as envpool`` runs EnvPool 1.2 user code.

    import envhive.envpool as envpool
    env = envpool.make("Pong-v5", env_type="gym", num_envs=8, batch_size=4, episodic_life=True)
    env.async_reset()
    obs, rew, term, trunc, info = env.recv()
    env.send(env.action_space.sample() * np.ones(4, dtype=np.int32), info["env_id"])

This module keeps EnvPool's conventions where they differ from Gymnasium's (``envhive.make`` stays
Gymnasium-correct): ``observation_space`` / ``action_space`` are the single-env spaces, rewards
are float32, ``info`` has ``players`` and Atari's ``ram`` / int32 ``terminated``, ``reset(env_id)``
and ``step(action, env_id)`` take env ids (a subset too, in sync mode), ``recv(reset, return_info)``,
``make(task_id, env_type, ...)`` / ``make_gym`` / ``make_gymnasium`` / ``make_dm`` / ``make_spec``
with EnvPool's spec object, EnvPool's task ids (``phys2d/CartPole-v1``, ``Ant-v3``, ``TicTacToe3d-v5``,
...) and kwargs (MuJoCo's ``healthy_z_min`` / ``healthy_z_max``, ``use_contact_force``, ...), and bad
arguments raise exceptions that are also ``AssertionError`` (what EnvPool raises). What still differs
is listed in docs/envpool-migration.md.
"""

from __future__ import annotations

import collections
import functools
import importlib.util
import pprint
import re
import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec as GymnasiumEnvSpec
from gymnasium.vector import AutoresetMode, VectorEnv

from envhive.errors import MissingExtraError, UnknownTaskError
from envhive.registry import TaskSpec, list_envs, reward_threshold, task_info
from envhive.registry import make_spec as _hive_make_spec
from envhive.vector import HiveVectorEnv

# The EnvPool release whose API this module follows (envhive's own version: envhive.__version__).
__version__ = "1.2.5"


class EnvPoolArgumentError(ValueError, AssertionError):
    """A bad kwarg value. EnvPool asserts on these, so this is both a ValueError and an AssertionError."""


class EnvPoolUnknownTaskError(UnknownTaskError, AssertionError):
    """A task id envhive.envpool cannot make (EnvPool asserts it is registered: also an AssertionError)."""


# ------------------------------------------------------------------------------------ task ids
# EnvPool ids that name an envhive task differently: EnvPool id -> (envhive id, kwargs it implies).
_ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    "phys2d/CartPole-v0": ("CartPole-v0", {}),
    "phys2d/CartPole-v1": ("CartPole-v1", {}),
    "TicTacToe3d-v5": ("TicTacToe3D-v5", {}),
    # MuJoCo v2/v3: gym's mujoco-py versions. EnvPool runs them as v4 (same config) except Ant-v3,
    # which observes the contact forces; Gymnasium's v4 has both as kwargs.
    "Ant-v3": ("Ant-v4", {"use_contact_forces": True}),
    **{f"{name}-v3": (f"{name}-v4", {}) for name in ("HalfCheetah", "Hopper", "Swimmer", "Walker2d")},
    **{
        f"{name}-v2": (f"{name}-v4", {})
        for name in ("HumanoidStandup", "InvertedDoublePendulum", "InvertedPendulum", "Pusher", "Reacher")
    },
}
# EnvPool ids of families envhive has, but no envhive task.
_NOT_IN_ENVHIVE = {
    "Pendulum-v0": "EnvPool's Pendulum-v0 integrates the angle before clipping the velocity (gym's old "
    "dynamics); envhive has Gymnasium's Pendulum-v1",
    "phys2d/Pendulum-v0": "EnvPool's phys2d/Pendulum-v0 is Pendulum-v0 (gym's old dynamics); envhive has "
    "Gymnasium's Pendulum-v1",
    "Humanoid-v3": "EnvPool's Humanoid-v3 adds the contact cost to the reward (use_contact_force=True), which "
    "Gymnasium's Humanoid-v4 does not; Humanoid-v5 has it (contact_cost_weight)",
}


def _resolve_id(task_id: str) -> tuple[str, dict[str, Any]]:
    if not isinstance(task_id, str):
        raise TypeError(f"task_id must be a str, got {task_id!r}")
    if task_id in _NOT_IN_ENVHIVE:
        raise EnvPoolUnknownTaskError(f"{task_id} is not available in envhive: {_NOT_IN_ENVHIVE[task_id]}")
    return _ALIASES.get(task_id, (task_id, {}))


def list_all_envs() -> list[str]:
    """Every task id this module makes: envhive's, and EnvPool's names for them."""
    return list_envs() + [alias for alias, (target, _) in _ALIASES.items() if target in set(list_envs())]


# ------------------------------------------------------------------------------------ kwargs
# EnvPool's pool kwargs, in the order its Config lists them.
_COMMON = ("num_envs", "batch_size", "num_threads", "max_num_players", "thread_affinity_offset", "seed", "env_seed")
_RENDER_KWARGS = ("render_mode", "render_env_id", "render_width", "render_height", "render_camera_id", "from_pixels")
_INT32 = 2**31

# MuJoCo kwargs EnvPool names differently: EnvPool name -> envhive's (Gymnasium's), where the task has it.
_MUJOCO_RENAMED = {
    "use_contact_force": "use_contact_forces",
    "ctrl_cost_weight": "reward_control_weight",
    "dist_cost_weight": "reward_dist_weight",
    "near_cost_weight": "reward_near_weight",
    "contact_cost_weight": "impact_cost_weight",
}
# EnvPool's `<p>_min` / `<p>_max` pairs -> envhive's `(min, max)` kwarg (the first the task has).
_MUJOCO_RANGES = {
    "healthy_z": ("healthy_z_range",),
    "healthy_angle": ("healthy_angle_range",),
    "healthy_state": ("healthy_state_range",),
    "contact_force": ("contact_force_range",),
    "contact_cost": ("contact_cost_range", "impact_cost_range"),
}


# EnvPool kwargs envhive's task has no kwarg for, with EnvPool 1.2.5's registered value: the MDP
# envhive runs (Gymnasium's). Passing that value is accepted; any other is refused.
def _v4(**fixed: Any) -> dict[str, Any]:
    return {"frame_stack": 1, "post_constraint": False, "gymnasium_v5_render_camera": False, **fixed}


def _v5(**fixed: Any) -> dict[str, Any]:
    return {"frame_stack": 1, "post_constraint": True, "gymnasium_v5_render_camera": True, **fixed}


# Pusher's reset ranges: the same in v4 and v5.
_PUSHER_RESET: dict[str, Any] = {
    "reset_qvel_scale": 0.005,
    "cylinder_x_min": -0.3,
    "cylinder_x_max": 0.0,
    "cylinder_y_min": -0.2,
    "cylinder_y_max": 0.2,
    "cylinder_dist_min": 0.17,
}
_MUJOCO_FIXED: dict[str, dict[str, Any]] = {
    "Ant-v4": _v4(
        frame_skip=5, legacy_healthy_reward=True, exclude_worldbody_contact_forces=False, forward_reward_weight=1.0
    ),
    "Ant-v5": _v5(use_contact_force=True, legacy_healthy_reward=False, exclude_worldbody_contact_forces=True),
    "HalfCheetah-v4": _v4(frame_skip=5, xml_file="half_cheetah.xml"),
    "HalfCheetah-v5": _v5(),
    "Hopper-v4": _v4(
        frame_skip=4, legacy_healthy_reward=True, xml_file="hopper.xml", velocity_min=-10.0, velocity_max=10.0
    ),
    "Hopper-v5": _v5(legacy_healthy_reward=False, velocity_min=-10.0, velocity_max=10.0),
    "Humanoid-v4": _v4(
        frame_skip=5,
        legacy_healthy_reward=True,
        exclude_worldbody_observations=False,
        exclude_root_actuator_forces=False,
        use_contact_force=False,
        xml_file="humanoid.xml",
        contact_cost_weight=5e-07,
        contact_cost_max=10.0,
    ),
    "Humanoid-v5": _v5(
        legacy_healthy_reward=False,
        exclude_worldbody_observations=True,
        exclude_root_actuator_forces=True,
        use_contact_force=True,
    ),
    "HumanoidStandup-v4": _v4(
        frame_skip=5,
        forward_reward_weight=1.0,
        exclude_current_positions_from_observation=True,
        exclude_worldbody_observations=False,
        exclude_root_actuator_forces=False,
        xml_file="humanoidstandup.xml",
        ctrl_cost_weight=0.1,
        contact_cost_weight=5e-07,
        contact_cost_max=10.0,
        healthy_reward=1.0,
        reset_noise_scale=0.01,
    ),
    "HumanoidStandup-v5": _v5(
        forward_reward_weight=1.0,
        exclude_worldbody_observations=True,
        exclude_root_actuator_forces=True,
        healthy_reward=1.0,
    ),
    "InvertedDoublePendulum-v4": _v4(
        frame_skip=5,
        healthy_reward=10.0,
        reward_if_not_terminated=False,
        constraint_obs_dim=3,
        xml_file="inverted_double_pendulum.xml",
        healthy_z_max=1.0,
        observation_min=-10.0,
        observation_max=10.0,
        reset_noise_scale=0.1,
    ),
    "InvertedDoublePendulum-v5": _v5(
        reward_if_not_terminated=True,
        constraint_obs_dim=1,
        healthy_z_max=1.0,
        observation_min=-10.0,
        observation_max=10.0,
    ),
    "InvertedPendulum-v4": _v4(
        frame_skip=2,
        healthy_reward=1.0,
        reward_if_not_terminated=False,
        xml_file="inverted_pendulum.xml",
        healthy_z_min=-0.2,
        healthy_z_max=0.2,
        reset_noise_scale=0.01,
    ),
    "InvertedPendulum-v5": _v5(
        healthy_reward=1.0, reward_if_not_terminated=True, healthy_z_min=-0.2, healthy_z_max=0.2
    ),
    "Pusher-v4": _v4(
        frame_skip=5,
        ctrl_cost_weight=0.1,
        dist_cost_weight=1.0,
        near_cost_weight=0.5,
        xml_file="pusher.xml",
        reward_after_step=False,
        weighted_reward_info=False,
        **_PUSHER_RESET,
    ),
    "Pusher-v5": _v5(
        reward_after_step=True,
        weighted_reward_info=True,
        **_PUSHER_RESET,
    ),
    "Reacher-v4": _v4(
        frame_skip=2,
        ctrl_cost_weight=1.0,
        reward_after_step=False,
        obs_include_z_distance=True,
        dist_cost_weight=1.0,
        xml_file="reacher.xml",
        reset_qpos_scale=0.1,
        reset_qvel_scale=0.005,
        reset_goal_scale=0.2,
    ),
    "Reacher-v5": _v5(
        reward_after_step=True,
        obs_include_z_distance=False,
        reset_qpos_scale=0.1,
        reset_qvel_scale=0.005,
        reset_goal_scale=0.2,
    ),
    "Swimmer-v4": _v4(frame_skip=4, xml_file="swimmer.xml"),
    "Swimmer-v5": _v5(),
    "Walker2d-v4": _v4(
        frame_skip=4, legacy_healthy_reward=True, xml_file="walker2d.xml", velocity_min=-10.0, velocity_max=10.0
    ),
    "Walker2d-v5": _v5(legacy_healthy_reward=False, velocity_min=-10.0, velocity_max=10.0),
}


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(np.all(np.asarray(a) == np.asarray(b)))
    except (TypeError, ValueError):
        return False


def _check_seed(seed: Any, name: str) -> int:
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool | np.bool_):
        raise TypeError(f"{name} must be an int, got {seed!r}")
    if not -_INT32 <= seed < _INT32:
        raise EnvPoolArgumentError(f"Seed should be in range of int32, got {seed}")
    if seed < 0:
        raise EnvPoolArgumentError(f"envhive seeds are non-negative, got {name}={seed}")
    return int(seed)


def _translate_common(kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]) -> None:
    """EnvPool's pool kwargs -> envhive's (``out``) and EnvPool's Config entries (``view``)."""
    num_envs = kwargs.pop("num_envs", 1)
    out["num_envs"] = num_envs
    if "batch_size" in kwargs:
        out["batch_size"] = kwargs.pop("batch_size")
    if "num_threads" in kwargs:
        out["num_threads"] = kwargs.pop("num_threads")
    if kwargs.pop("max_num_players", 1) != 1:
        raise EnvPoolArgumentError("max_num_players: envhive's tasks are single-player (max_num_players=1)")
    if "thread_affinity_offset" in kwargs:
        out["thread_affinity_offset"] = kwargs.pop("thread_affinity_offset")
    if "base_path" in kwargs:
        raise TypeError(
            "base_path: envhive reads Atari ROMs from the installed ale-py (or $ALE_ROMS_DIR) and MuJoCo models "
            "from the installed gymnasium; give a model file with xml_file"
        )
    if not kwargs.pop("gym_reset_return_info", True):
        raise EnvPoolArgumentError("gym_reset_return_info=False: reset() always returns (obs, info), as in EnvPool 1.2")
    seed = kwargs.pop("seed", 42)
    env_seed = kwargs.pop("env_seed", None)
    if isinstance(seed, list | tuple | np.ndarray):
        if env_seed is not None:
            raise EnvPoolArgumentError("Pass either `seed` as an int or seed list, or `env_seed`, but not both.")
        env_seed, seed = seed, 0
    if env_seed is not None and len(env_seed) > 0:
        seeds = [_check_seed(s, "env_seed") for s in np.asarray(env_seed).reshape(-1).tolist()]
        out["seed"] = seeds
        view.update(seed=seed, env_seed=seeds)
    elif seed is None:
        out["seed"] = None
        view.update(seed=None, env_seed=[])
    else:
        out["seed"] = _check_seed(seed, "seed")
        view.update(seed=out["seed"], env_seed=[])
    if "max_episode_steps" in kwargs:
        out["max_episode_steps"] = kwargs.pop("max_episode_steps")
    if "autoreset_mode" in kwargs:  # envhive's own (EnvPool has NEXT_STEP only)
        out["autoreset_mode"] = kwargs.pop("autoreset_mode")


def _translate_mujoco(envpool_id: str, target: str, defaults: dict[str, Any], kwargs: dict[str, Any]) -> None:
    """EnvPool's MuJoCo kwargs -> envhive's, in place; refuses EnvPool-only values envhive cannot run."""
    fixed = _MUJOCO_FIXED.get(target, {})
    for prefix, targets in _MUJOCO_RANGES.items():
        lo, hi = f"{prefix}_min", f"{prefix}_max"
        if lo not in kwargs and hi not in kwargs:
            continue
        dest = next((t for t in targets if t in defaults), None)
        if dest is None:
            continue  # the task has no such range: checked against `fixed` below
        current = list(kwargs.get(dest, defaults[dest]))
        if lo in kwargs:
            current[0] = float(kwargs.pop(lo))
        if hi in kwargs:
            current[1] = float(kwargs.pop(hi))
        kwargs[dest] = current
    for name, dest in _MUJOCO_RENAMED.items():
        if name in kwargs and name not in defaults and dest in defaults:
            kwargs[dest] = kwargs.pop(name)
    for name in [k for k in kwargs if k in fixed and k not in defaults]:
        value = kwargs.pop(name)
        if not _same(value, fixed[name]):
            raise EnvPoolArgumentError(
                f"{envpool_id}: {name}={value!r} is an EnvPool-only option envhive does not run: envhive's "
                f"{target} is Gymnasium's, which is EnvPool's {name}={fixed[name]!r}"
            )


def _atari_game(info_doc: str, task_id: str) -> str:
    """The ALE ROM name of an Atari task (EnvPool's ``task`` config value), e.g. ``pong``."""
    m = re.search(r"ROM (\w+)\.bin", info_doc)
    return m.group(1) if m else task_id.rsplit("-", 1)[0].lower()


def _translate_atari(envpool_id: str, game: str, kwargs: dict[str, Any], view: dict[str, Any]) -> None:
    task = kwargs.pop("task", game)
    if isinstance(task, bytes):
        task = task.decode()
    if str(task).replace("_", "").lower() != game.replace("_", "").lower():
        raise EnvPoolArgumentError(f"{envpool_id} plays {game!r}; task={task!r} names another game (make its own id)")
    view["task"] = game
    kwargs.setdefault("ram", True)  # EnvPool always reports info["ram"]


# ------------------------------------------------------------------------------------ the spec
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
        self._casts = _envpool_info_casts(task_spec)

    @property
    def state_array_spec(self) -> dict[str, ArraySpec]:
        obs = self.observation_space
        assert isinstance(obs, spaces.Box)
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
            "obs": ArraySpec(obs.dtype, list(obs.shape), _bound(obs.low), _bound(obs.high)),
        }
        for name, (dtype, shape) in self.task_spec.info_fields.items():
            if name == "discount":
                continue
            dtype = np.dtype(self._casts.get(name, dtype))
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
        specs = _dm_specs()
        return specs.observation(self)

    def action_spec(self) -> Any:
        """The dm_env spec of one env's action (needs dm-env)."""
        return _dm_specs().action(self)

    def __repr__(self) -> str:
        return f"EnvSpec({self.id}, {pprint.pformat(self.config)})"


def _bound(values: np.ndarray) -> Any:
    """A scalar where every element of a bound is the same, as EnvPool reports them."""
    arr = np.asarray(values)
    return arr.flat[0].item() if arr.size and np.all(arr == arr.flat[0]) else arr


def _envpool_info_casts(task_spec: TaskSpec) -> dict[str, Any]:
    """EnvPool's dtypes for the info fields where envhive's differ (Atari's reward and terminated)."""
    casts: dict[str, Any] = {}
    if task_spec.family == "atari":
        casts = {"reward": np.float32, "terminated": np.int32}
    return {k: v for k, v in casts.items() if k in task_spec.info_fields}


def make_spec(task_id: str, **kwargs: Any) -> EnvSpec:
    """The spec of ``task_id`` with these kwargs, without building any env (render kwargs are ignored,
    as EnvPool's make_spec ignores them)."""
    for key in _RENDER_KWARGS:
        kwargs.pop(key, None)
    return _make_spec(task_id, kwargs)


def _make_spec(envpool_id: str, kwargs: dict[str, Any]) -> EnvSpec:
    make_kwargs = dict(kwargs)
    target, implied = _resolve_id(envpool_id)
    try:
        info = task_info(target)
    except UnknownTaskError as e:
        raise EnvPoolUnknownTaskError(f"{e}; envhive.envpool.list_all_envs() lists EnvPool's ids it makes") from e
    kwargs = {**implied, **kwargs}
    out: dict[str, Any] = {}
    view: dict[str, Any] = {}
    _translate_common(kwargs, out, view)
    threshold = kwargs.pop("reward_threshold", reward_threshold(target))
    if info.family == "mujoco":
        _translate_mujoco(envpool_id, target, info.defaults, kwargs)
    elif info.family == "atari":
        _translate_atari(envpool_id, _atari_game(info.doc, target), kwargs, view)
    elif target.startswith("Pendulum-") and kwargs.pop("version", 1) != 1:
        raise EnvPoolArgumentError(f"{envpool_id}: envhive's Pendulum is version 1 (Gymnasium's Pendulum-v1)")
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
    if info.family == "mujoco":  # EnvPool's names of what envhive runs
        fields.update(_MUJOCO_FIXED.get(target, {}))
    fields.update((k, v) for k, v in task_spec.config.items() if k not in fields)
    config_type = collections.namedtuple("Config", list(fields))  # type: ignore[misc]  # a dynamic namedtuple
    return EnvSpec(envpool_id, task_spec, config_type(**fields), make_kwargs)


# ------------------------------------------------------------------------------------ the envs
def _check_render(task_id: str, render_kwargs: dict[str, Any], kwargs: dict[str, Any]) -> tuple[str | None, int]:
    """EnvPool's render kwargs: the mode and the default env of ``render()``; the frame size and
    camera go into ``kwargs`` as the task's own (MuJoCo's ``width``/``height``/``camera_id``)."""
    mode = render_kwargs.pop("render_mode", None)
    if mode not in (None, "rgb_array", "human"):
        raise EnvPoolArgumentError("render_mode must be one of None, 'rgb_array', or 'human'")
    if mode == "human":
        raise EnvPoolArgumentError(
            f"{task_id}: envhive opens no window (render_mode='human'); use render_mode='rgb_array' and show the frames"
        )
    if render_kwargs.pop("from_pixels", False):
        raise EnvPoolArgumentError(f"{task_id}: envhive has no from_pixels observations; render() the frames instead")
    env_id = render_kwargs.pop("render_env_id", None)
    given = {k: v for k, v in render_kwargs.items() if v is not None}
    if mode is None:
        if given or env_id is not None:
            raise EnvPoolArgumentError(f"{task_id}: {', '.join(sorted(given) or ['render_env_id'])} need render_mode")
        return None, 0
    for envpool_name, hive_name in (
        ("render_width", "width"),
        ("render_height", "height"),
        ("render_camera_id", "camera_id"),
    ):
        if envpool_name in given:
            kwargs[hive_name] = int(given[envpool_name])
    kwargs["render_mode"] = mode
    return mode, int(env_id or 0)


def _copy_tree(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy_tree(v) for k, v in value.items()}
    return value.copy() if isinstance(value, np.ndarray) else value


def _take(value: Any, rows: np.ndarray, n: int) -> Any:
    """Rows ``rows`` of a batch output (each array with n rows; dicts recursively)."""
    if isinstance(value, dict):
        return {k: _take(v, rows, n) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == n:
        return value[rows]
    return value


class _EnvPoolEnv:
    """What EnvPool's gymnasium and dm_env facades share: config, ids, actions in EnvPool's forms."""

    def _setup(self, spec: EnvSpec, render_mode: str | None, render_env_id: int = 0) -> None:
        self._spec = spec
        self._vec = HiveVectorEnv(spec.task_spec)
        self._n = self._vec.num_envs
        self._async = self._vec.batch_size < self._vec.num_envs
        self._all_ids = np.arange(self._n, dtype=np.int32)
        self._render_mode = render_mode
        if not 0 <= render_env_id < self._n:
            raise EnvPoolArgumentError(f"render_env_id {render_env_id} is not an env of this pool (0..{self._n - 1})")
        self._render_env_id = render_env_id
        act = spec.task_spec.action_space
        self._discrete = isinstance(act, spaces.Discrete)
        # Arrays are cast to the pool's action dtype as EnvPool casts them (int64 is what the pool
        # converts Discrete actions to; EnvPool's float64 Box actions become the task's float32).
        self._act_dtype = np.dtype(np.int64) if self._discrete else np.dtype(act.dtype)
        self._act_kinds = "iu" if self._discrete else "fiu"  # what the pool converts itself
        self._casts = list(spec._casts.items())
        self._drop_discount = "discount" in spec.task_spec.info_fields
        self._pending_rows: np.ndarray | None = None  # a partial sync send(): the rows recv() returns
        # EnvPool resets an env on its first step when it was never reset: which envs were.
        self._started = np.zeros(self._n, dtype=np.bool_)
        self._all_started = False
        self._stashed: tuple[Any, Any, Any, Any, dict[str, Any]] | None = None  # a sync send's first step
        self._initial: tuple[Any, dict[str, Any]] | None = None  # sync: the pool's first full reset

    # --- EnvPool's attributes
    @property
    def config(self) -> dict[str, Any]:
        """EnvPool's config dict (``env.spec.config`` as a dict)."""
        return dict(self._spec.config._asdict())

    def __len__(self) -> int:
        return self._n

    @property
    def all_env_ids(self) -> np.ndarray:
        return self._all_ids

    @property
    def is_async(self) -> bool:
        return self._async

    def seed(self, seed: int | list[int] | None = None) -> None:
        """EnvPool's abandoned ``seed()``: warns. Seed with ``make(..., seed=)`` or ``reset(seed=)``."""
        warnings.warn(
            "The `seed` function in envpool is abandoned. You can set seed by envpool.make(..., seed=seed) "
            "or reset(seed=seed) instead.",
            UserWarning,
            stacklevel=2,
        )

    def xla(self) -> Any:
        raise RuntimeError("envhive.envpool has no XLA interface (EnvPool's env.xla()); step from Python")

    def render(self, env_ids: Any = None, camera_id: int | None = None) -> np.ndarray:
        """EnvPool's ``render``: the frames of ``env_ids`` (default: ``render_env_id``) stacked into
        one ``(k, height, width, 3)`` uint8 array, drawn on the pool's threads."""
        if self._render_mode is None:
            raise RuntimeError("render_mode must be set to 'rgb_array' or 'human' when creating this env")
        if camera_id is not None and camera_id != self._spec.task_spec.config.get("camera_id", -1):
            raise ValueError(
                f"camera_id={camera_id}: envhive draws with the camera the env was made with; "
                "make it with render_camera_id"
            )
        ids = np.atleast_1d(np.asarray(self._render_env_id if env_ids is None else env_ids, dtype=np.int64))
        frames = self._vec.render(ids)
        assert frames is not None
        return np.stack(frames)

    def close(self, **kwargs: Any) -> None:
        if hasattr(self, "_vec"):
            self._vec.close()

    def __repr__(self) -> str:
        config = ", ".join(f"{k}={pprint.pformat(v)}" for k, v in self._spec.config._asdict().items())
        return f"{type(self).__name__}({self._spec.id}, {config})"

    __str__ = __repr__

    # --- EnvPool's input forms
    def _from(self, action: Any, env_id: Any) -> tuple[Any, Any]:
        """EnvPool's action forms -> the pool's: arrays of any numeric dtype (cast as EnvPool casts
        them: a float array to a Discrete space's integers), and EnvPool's dict form."""
        if type(action) is np.ndarray and action.dtype.kind in self._act_kinds:
            return action, env_id  # the pool converts these itself
        if isinstance(action, Mapping):
            flat = _flatten(action)
            unknown = sorted(set(flat) - {"action", "env_id", "players.env_id"})
            if unknown or "action" not in flat:
                raise RuntimeError(
                    f"a dict action has the keys 'action', 'env_id', 'players.env_id'; got {sorted(flat)}"
                )
            a = np.asarray(flat["action"])
            want = ("int32",) if self._discrete else ("float32", "float64")
            if a.dtype.name not in want:
                raise RuntimeError(f'Expected dtype {want[0]} with action "action", got {a.dtype}')
            if env_id is None and "env_id" in flat:
                env_id = np.asarray(flat["env_id"])
                if env_id.dtype != np.int32:
                    raise RuntimeError(f'Expected dtype int32 with action "env_id", got {env_id.dtype}')
            action = a
        if isinstance(action, np.ndarray) and action.dtype.kind not in self._act_kinds:
            action = action.astype(self._act_dtype)
        return action, env_id

    def _sync_rows(self, env_id: Any) -> np.ndarray | None:
        """Sync mode with env_id: the rows to return, in env_id's order (None: all, in order)."""
        ids = np.asarray(env_id).reshape(-1)
        if ids.shape[0] == self._n and np.array_equal(ids, self._all_ids):
            return None
        return ids.astype(np.intp)

    def _send(self, action: Any, env_id: Any) -> None:
        action, env_id = self._from(action, env_id)
        fresh = self._fresh(env_id)
        if fresh is not None:
            if self._async:
                self._first_send(action, env_id, fresh)
            else:  # a sync pool's send is its step: done now, recv() returns it
                self._stashed = self._first_step(action, env_id, fresh)
            return
        rows = None if env_id is None or self._async else self._sync_rows(env_id)
        self._vec.send(action, env_id, partial=rows is not None)
        self._pending_rows = rows

    def _step(self, action: Any, env_id: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        action, env_id = self._from(action, env_id)
        fresh = self._fresh(env_id)
        if fresh is not None:
            if self._async:
                self._first_send(action, env_id, fresh)
                return self._vec.recv()
            return self._first_step(action, env_id, fresh)
        rows = None if env_id is None or self._async else self._sync_rows(env_id)
        out = self._vec.step(action, env_id, partial=rows is not None)
        return out if rows is None else self._rows(out, rows)

    def _recv(self, timeout: float | None) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        if self._stashed is not None:
            out, self._stashed = self._stashed, None
            return out
        out = self._vec.recv(timeout)
        rows, self._pending_rows = self._pending_rows, None
        return out if rows is None else self._rows(out, rows)

    # --- EnvPool's first step: an env never reset is reset by it (its action is ignored), as after
    # the end of an episode.
    def _mark_started(self, ids: Any = None) -> None:
        if ids is None:
            self._started[:] = True
        else:
            self._started[np.asarray(ids, dtype=np.intp).reshape(-1)] = True
        self._all_started = bool(self._started.all())

    def _fresh(self, env_id: Any) -> np.ndarray | None:
        """Which of the call's envs were never reset (a bool per env_id entry); None if none was."""
        if self._all_started:
            return None
        ids = self._all_ids if env_id is None else np.asarray(env_id).reshape(-1)
        if ids.dtype.kind not in "iu" or (ids.size and (ids.min() < 0 or ids.max() >= self._n)):
            return None  # the pool refuses these ids with its own message
        fresh = ~self._started[ids.astype(np.intp)]
        return fresh if fresh.any() else None

    def _ids(self, env_id: Any) -> np.ndarray:
        return self._all_ids.astype(np.intp) if env_id is None else np.asarray(env_id).reshape(-1).astype(np.intp)

    def _first_send(self, action: Any, env_id: Any, fresh: np.ndarray) -> None:
        """Async: the never-reset envs are reset, the others stepped; recv() returns them as they finish."""
        ids = self._ids(env_id)
        mask = np.zeros(self._n, dtype=np.bool_)
        mask[ids[fresh]] = True
        self._pending_rows = None
        self._vec.async_reset(reset_mask=mask)
        self._mark_started(ids[fresh])
        if not fresh.all():
            self._vec.send(np.asarray(action)[~fresh], ids[~fresh])

    def _first_step(self, action: Any, env_id: Any, fresh: np.ndarray) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Sync: the never-reset envs report their first reset (reward 0, flags False), the others
        step. The pool resets every env the first time (a sync pool reports every env), and an env
        not stepped holds that reset until its own first step reports it."""
        ids = self._ids(env_id)
        self._pending_rows = None
        first = self._reset_pool_once()
        self._mark_started(ids[fresh])
        if fresh.all():
            assert self._initial is not None
            obs, info = first if first is not None else self._initial
            zeros = np.zeros(self._n, dtype=np.bool_)
            out = (obs, np.zeros(self._n), zeros, zeros.copy(), info)
        else:  # the fresh envs are held by the partial step: their rows are their reset
            out = self._vec.step(np.asarray(action)[~fresh], ids[~fresh], partial=True)
        rows = None if env_id is None else self._sync_rows(ids)
        return out if rows is None else self._rows(out, rows)

    def _reset_pool_once(self) -> tuple[Any, dict[str, Any]] | None:
        """Sync: reset every env of the pool if it never was (its output, else None); the rows of
        envs the user has not reset yet are kept for their first step or reset."""
        if self._initial is not None:
            return None
        obs, info = self._vec.reset()
        self._initial = (obs.copy(), _copy_tree(info))
        return obs, info

    def _reset(
        self, env_id: Any, seed: Any, options: dict[str, Any] | None
    ) -> tuple[Any, dict[str, Any], np.ndarray | None]:
        """reset(env_id) as EnvPool has it: (obs, info, the rows it returned in sync mode)."""
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is not None:
            if env_id is not None:
                raise EnvPoolArgumentError("Pass either env_id or options['reset_mask'], not both.")
            mask = np.asarray(mask, dtype=np.bool_)
            if mask.shape != (self._n,):
                raise EnvPoolArgumentError(f"reset_mask must have shape ({self._n},), got {mask.shape}")
            env_id = np.flatnonzero(mask)
        self._pending_rows = self._stashed = None
        if env_id is None:
            obs, info = self._vec.reset(seed=seed, options=options or None)
            self._mark_started()
            if not self._async:
                self._initial = (obs, info)  # (only its being set matters from now on)
            return obs, info, None
        ids = np.asarray(env_id).reshape(-1).astype(np.intp)
        mask = np.zeros(self._n, dtype=np.bool_)
        mask[ids] = True
        if not self._async:
            # EnvPool's reset(env_id) of envs never reset gives their first reset. A sync pool
            # resets every env the first time; an env holds that reset until it is reset or stepped.
            first = self._reset_pool_once()
            if seed is None and not options:
                mask[ids] = ~self._started[ids]  # ids[~mask] still hold their first reset
                mask = ~mask & np.isin(self._all_ids, ids)
            if not mask.any():
                assert self._initial is not None
                obs, info = first if first is not None else self._initial
                self._mark_started(ids)
                return _take(obs, ids, self._n), _take(info, ids, self._n), ids
        obs, info = self._vec.reset(seed=seed, options={"reset_mask": mask, **options})
        self._mark_started(ids)
        if self._async:
            return obs, info, None
        return _take(obs, ids, self._n), _take(info, ids, self._n), ids

    def _rows(self, out: tuple[Any, ...], rows: np.ndarray) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, reward, terminated, truncated, info = (_take(v, rows, self._n) for v in out)
        return obs, reward, terminated, truncated, info

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        """envhive's info as EnvPool reports it: ``players``, EnvPool's dtypes, no ``discount``."""
        info["players"] = {"env_id": info["env_id"]}
        return self._info_dtypes(info)

    def _info_dtypes(self, info: dict[str, Any]) -> dict[str, Any]:
        for name, dtype in self._casts:
            info[name] = info[name].astype(dtype)
        if self._drop_discount:
            info.pop("discount", None)
        return info


def _flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in tree.items():
        if isinstance(v, Mapping):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


class GymnasiumEnvPool(_EnvPoolEnv, VectorEnv, gymnasium.Env):  # type: ignore[misc]
    """EnvPool's gymnasium facade (``make_gym`` / ``make_gymnasium``): a Gymnasium ``VectorEnv`` (and a
    ``gymnasium.Env``, as EnvPool's is) whose ``observation_space`` / ``action_space`` are the
    single-env spaces, with EnvPool's ``reset(env_id)``, ``step(action, env_id)``, ``send`` / ``recv``."""

    is_vector_env = True

    def __init__(self, spec: EnvSpec, render_mode: str | None = None, render_env_id: int = 0) -> None:
        self._setup(spec, render_mode, render_env_id)
        self.spec = spec
        self._num_envs = self._n
        self.observation_space = self.single_observation_space = spec.observation_space
        self.action_space = self.single_action_space = spec.action_space
        self.metadata = dict(self._vec.metadata)

    @property
    def num_envs(self) -> int:
        return self._num_envs

    @num_envs.setter
    def num_envs(self, value: int) -> None:  # EnvPool scripts assign it (envs.num_envs = args.num_envs)
        if value != self._num_envs:
            raise ValueError(f"num_envs is fixed when the env is made ({self._num_envs}), got {value}")

    @property
    def render_mode(self) -> str | None:  # type: ignore[override]
        return self._render_mode

    @property
    def closed(self) -> bool:
        return self._vec.closed if hasattr(self, "_vec") else True

    @closed.setter
    def closed(self, value: bool) -> None:  # VectorEnv.close() assigns it; the pool is the truth
        pass

    def reset(
        self, env_id: Any = None, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the envs in ``env_id`` (default: all) and return ``(obs, info)`` of those envs (async
        mode: the next batch). ``seed`` reseeds them (env i gets seed + i; EnvPool ignores it);
        ``options={"reset_mask": mask}`` is the same as ``env_id=np.flatnonzero(mask)``."""
        obs, info, _ = self._reset(env_id, seed, options)
        return obs, self._info(info)

    def step(self, action: Any, env_id: Any = None) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the envs in ``env_id`` (default: all); returns their rows in env_id's order (async
        mode: the next batch). Rewards are float32, as in EnvPool."""
        if self._all_started and env_id is None and type(action) is np.ndarray and action.dtype.kind in self._act_kinds:
            obs, reward, terminated, truncated, info = self._vec.step(action)  # the common case, kept short
        else:
            obs, reward, terminated, truncated, info = self._step(action, env_id)
        info["players"] = {"env_id": info["env_id"]}
        if self._casts or self._drop_discount:
            self._info_dtypes(info)
        return obs, reward.astype(np.float32), terminated, truncated, info

    def send(self, action: Any, env_id: Any = None) -> None:
        self._send(action, env_id)

    def recv(self, reset: bool = False, return_info: bool = True, timeout: float | None = None) -> tuple[Any, ...]:
        """The next batch; ``(obs, info)`` when ``reset`` (EnvPool's convention), else the 5-tuple.
        ``timeout`` (envhive's): seconds to wait before ``TimeoutError``."""
        obs, reward, terminated, truncated, info = self._recv(timeout)
        if reset:
            return obs, self._info(info)
        return obs, reward.astype(np.float32), terminated, truncated, self._info(info)

    def async_reset(self) -> None:
        self._pending_rows = self._stashed = None
        self._vec.async_reset()
        self._mark_started()

    def close(self, **kwargs: Any) -> None:
        _EnvPoolEnv.close(self)


# ------------------------------------------------------------------------------------ dm_env
class _DmSpecs(NamedTuple):
    observation: Callable[[EnvSpec], Any]
    action: Callable[[EnvSpec], Any]
    environment: type


@functools.cache
def _dm_specs() -> _DmSpecs:
    """The dm_env side, built on first use: dm-env is the optional ``[dm]`` extra."""
    try:
        import dm_env
        import dm_env.specs
    except ImportError as e:
        raise MissingExtraError(f'the dm_env facade needs dm-env: pip install "envhive[dm]" ({e})') from e
    first, mid, last = (int(t) for t in (dm_env.StepType.FIRST, dm_env.StepType.MID, dm_env.StepType.LAST))

    def field_spec(name: str, s: ArraySpec) -> Any:
        shape = tuple(d for d in s.shape if d != -1)
        if np.issubdtype(s.dtype, np.integer) and not shape and s.minimum == 0 and s.maximum < 2**20:
            return dm_env.specs.DiscreteArray(int(s.maximum) + 1, dtype=s.dtype, name=name)
        return dm_env.specs.BoundedArray(shape, s.dtype, s.minimum, s.maximum, name=name)

    def observation(spec: EnvSpec) -> Any:
        arrays = spec.state_array_spec
        infos = {k[5:]: field_spec(k[5:], v) for k, v in arrays.items() if k[5:] in _info_names(spec)}
        return _state_type(spec)(
            env_id=field_spec("env_id", arrays["info:env_id"]),
            players=_Players(field_spec("env_id", arrays["info:players.env_id"])),
            obs=field_spec("obs", arrays["obs"]),
            **infos,
        )

    def action(spec: EnvSpec) -> Any:
        s = spec.action_array_spec["action"]
        if isinstance(spec.action_space, spaces.Discrete) and s.minimum == 0:
            return dm_env.specs.DiscreteArray(int(s.maximum) + 1, dtype=np.int32, name="action")
        return dm_env.specs.BoundedArray(tuple(s.shape[1:]), s.dtype, s.minimum, s.maximum, name="action")

    class DMEnvPool(_EnvPoolEnv, dm_env.Environment):
        """EnvPool's dm_env facade (``make_dm``): batched TimeSteps whose ``observation`` is EnvPool's
        ``State`` namedtuple (``obs``, ``env_id``, ``players.env_id``, the task's infos), float32
        rewards and discounts. ``discount`` is 0 where an episode terminated (and on a lost life with
        ``zero_discount_on_life_loss``) and 1 where the time limit truncated it (EnvPool: 0)."""

        def __init__(self, spec: EnvSpec, render_mode: str | None = None, render_env_id: int = 0) -> None:
            if spec.task_spec.pool.autoreset_mode != AutoresetMode.NEXT_STEP:
                raise EnvPoolArgumentError("the dm_env facade follows dm_env's own autoreset: omit autoreset_mode")
            self._setup(spec, render_mode, render_env_id)
            self.spec = spec
            self._state = _state_type(spec)
            self._ended = np.zeros(self._n, dtype=bool)  # each env's last row ended its episode

        def reset(self, env_id: Any = None) -> Any:
            obs, info, _ = self._reset(env_id, None, None)
            self._ended[np.asarray(info["env_id"])] = False
            rows = len(info["env_id"])
            return dm_env.TimeStep(
                step_type=np.full(rows, first, dtype=np.int32),
                reward=np.zeros(rows, dtype=np.float32),
                discount=np.ones(rows, dtype=np.float32),
                observation=self._observation(obs, info),
            )

        def step(self, action: Any, env_id: Any = None) -> Any:
            return self._timestep(*self._step(action, env_id))

        def send(self, action: Any, env_id: Any = None) -> None:
            self._send(action, env_id)

        def recv(self, reset: bool = False, return_info: bool = True, timeout: float | None = None) -> Any:
            return self._timestep(*self._recv(timeout))

        def async_reset(self) -> None:
            self._pending_rows = self._stashed = None
            self._ended[:] = False
            self._vec.async_reset()
            self._mark_started()

        def observation_spec(self) -> Any:
            return observation(self._spec)

        def action_spec(self) -> Any:
            return action(self._spec)

        def _observation(self, obs: Any, info: dict[str, Any]) -> Any:
            info = self._info(info)
            env_ids = info["env_id"]
            extra = {k: v for k, v in info.items() if k in self._state._fields and k not in ("env_id", "players")}
            return self._state(env_id=env_ids, players=_Players(env_ids), obs=obs, **extra)

        def _timestep(
            self, obs: Any, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray, info: dict[str, Any]
        ) -> Any:
            ids = np.asarray(info["env_id"])
            ended = terminated | truncated
            restarted = self._ended[ids] | ((info["elapsed_step"] == 0) & ~ended)
            self._ended[ids] = ended
            step_type = np.where(ended, last, np.where(restarted, first, mid)).astype(np.int32)
            discount = np.where(terminated, 0.0, 1.0).astype(np.float32)
            if "discount" in info:  # the task's own (Atari's zero_discount_on_life_loss)
                discount = np.minimum(discount, info["discount"]).astype(np.float32)
            return dm_env.TimeStep(
                step_type=step_type,
                reward=reward.astype(np.float32),
                discount=discount,
                observation=self._observation(obs, info),
            )

    DMEnvPool.__qualname__ = "DMEnvPool"
    return _DmSpecs(observation, action, DMEnvPool)


class _Players(NamedTuple):
    env_id: Any


_Players.__name__ = _Players.__qualname__ = "players"  # EnvPool's name for it


def _info_names(spec: EnvSpec) -> list[str]:
    """The task's info fields EnvPool reports (its dm facade has no ``discount`` field)."""
    return [name for name in spec.task_spec.info_fields if name != "discount"]


def _state_type(spec: EnvSpec) -> Any:
    """EnvPool's ``State`` namedtuple type of a spec's dm observation: env_id, players, obs, the infos."""
    return collections.namedtuple("State", ["env_id", "players", "obs", *_info_names(spec)])


if TYPE_CHECKING:
    DMEnvPool: TypeAlias = Any
elif importlib.util.find_spec("dm_env") is not None:
    DMEnvPool = _dm_specs().environment  # EnvPool's dm facade class (dm-env is the optional [dm] extra)


def __getattr__(name: str) -> Any:
    if name == "DMEnvPool":  # dm-env is not installed: say so
        return _dm_specs().environment
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------------------------ make
def make_gymnasium(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """EnvPool's gymnasium facade of ``task_id`` (EnvPool's kwargs, or envhive's)."""
    render = {k: kwargs.pop(k) for k in _RENDER_KWARGS if k in kwargs}
    mode, render_env_id = _check_render(task_id, render, kwargs)
    return GymnasiumEnvPool(_make_spec(task_id, kwargs), render_mode=mode, render_env_id=render_env_id)


def make_gym(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """EnvPool 1.2's ``make_gym``: the gymnasium facade (EnvPool dropped the old gym API)."""
    return make_gymnasium(task_id, **kwargs)


def make_dm(task_id: str, **kwargs: Any) -> DMEnvPool:
    """EnvPool's dm_env facade of ``task_id`` (needs the ``[dm]`` extra)."""
    render = {k: kwargs.pop(k) for k in _RENDER_KWARGS if k in kwargs}
    mode, render_env_id = _check_render(task_id, render, kwargs)
    return _dm_specs().environment(_make_spec(task_id, kwargs), render_mode=mode, render_env_id=render_env_id)


def make(task_id: str, env_type: str, **kwargs: Any) -> Any:
    """EnvPool's ``make``: ``env_type`` is ``"gymnasium"`` / ``"gym"`` (the gymnasium facade) or ``"dm"``."""
    if env_type == "dm":
        return make_dm(task_id, **kwargs)
    if env_type in ("gym", "gymnasium"):
        return make_gymnasium(task_id, **kwargs)
    raise EnvPoolArgumentError("env_type should be one of 'dm', 'gym', or 'gymnasium'.")


EnvPool = GymnasiumEnvPool  # EnvPool's protocol name for its envs

__all__ = [  # EnvPool's order first
    "EnvSpec",
    "EnvPool",
    *(["DMEnvPool"] if importlib.util.find_spec("dm_env") is not None else []),
    "GymnasiumEnvPool",
    "EnvPoolArgumentError",
    "EnvPoolUnknownTaskError",
    "list_all_envs",
    "make",
    "make_dm",
    "make_gym",
    "make_gymnasium",
    "make_spec",
]
