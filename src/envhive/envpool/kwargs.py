"""EnvPool's task ids and kwargs as envhive's: the ids EnvPool names differently (``phys2d/CartPole-v1``,
``Ant-v3``, ...), EnvPool's pool kwargs (``seed`` / ``env_seed``, ``max_num_players``, ...), its MuJoCo
kwargs (``healthy_z_min`` / ``healthy_z_max``, ``use_contact_force``, ...), Atari's ``task``, the
DeepMind Control Suite's (``frame_skip``, ``frame_stack``, ``task_name``; its ids are envhive's,
``CheetahRun-v1``) and its render kwargs. A value envhive cannot run is refused naming EnvPool's and
envhive's.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from envhive.dmc_assets import suite_task
from envhive.envpool.errors import EnvPoolArgumentError, EnvPoolUnknownTaskError
from envhive.families import craftax as craftax_family
from envhive.registry import list_envs, task_info

# ------------------------------------------------------------------------------------ task ids
# EnvPool ids that name an envhive task differently: EnvPool id -> (envhive id, kwargs it implies).
_ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    **craftax_family.ENVPOOL_ALIASES,
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
    # Box2D: EnvPool's v2 ids are Gymnasium's v3 MDPs under their old names.
    "LunarLander-v2": ("LunarLander-v3", {}),
    "LunarLanderContinuous-v2": ("LunarLanderContinuous-v3", {}),
    "CarRacing-v2": ("CarRacing-v3", {}),
    # Toy text: EnvPool's Taxi-v3 is Gymnasium 1.4's Taxi-v4 in dry weather with a steady passenger
    # (v4 changed only is_rainy and fickle_passenger, which EnvPool does not have).
    "Taxi-v3": ("Taxi-v4", {}),
    "CliffWalking-v0": ("CliffWalking-v1", {}),
    "tabular/CliffWalking-v0": ("CliffWalking-v1", {}),
    "tabular/Blackjack-v0": ("Blackjack-v1", {}),
}
# EnvPool ids of families envhive has, but no envhive task.
_NOT_IN_ENVHIVE = {
    **craftax_family.ENVPOOL_MISSING,
    "Pendulum-v0": "EnvPool's Pendulum-v0 integrates the angle before clipping the velocity (gym's old "
    "dynamics); envhive has Gymnasium's Pendulum-v1",
    "phys2d/Pendulum-v0": "EnvPool's phys2d/Pendulum-v0 is Pendulum-v0 (gym's old dynamics); envhive has "
    "Gymnasium's Pendulum-v1",
    "Humanoid-v3": "EnvPool's Humanoid-v3 adds the contact cost to the reward (use_contact_force=True), which "
    "Gymnasium's Humanoid-v4 does not; Humanoid-v5 has it (contact_cost_weight)",
}


def resolve_id(task_id: str) -> tuple[str, dict[str, Any]]:
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
RENDER_KWARGS = ("render_mode", "render_env_id", "render_width", "render_height", "render_camera_id", "from_pixels")
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
MUJOCO_FIXED: dict[str, dict[str, Any]] = {
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


def translate_common(kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]) -> None:
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


def translate_mujoco(envpool_id: str, target: str, defaults: dict[str, Any], kwargs: dict[str, Any]) -> None:
    """EnvPool's MuJoCo kwargs -> envhive's, in place; refuses EnvPool-only values envhive cannot run."""
    fixed = MUJOCO_FIXED.get(target, {})
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


def atari_game(info_doc: str, task_id: str) -> str:
    """The ALE ROM name of an Atari task (EnvPool's ``task`` config value), e.g. ``pong``."""
    m = re.search(r"ROM (\w+)\.bin", info_doc)
    return m.group(1) if m else task_id.rsplit("-", 1)[0].lower()


def translate_atari(envpool_id: str, game: str, kwargs: dict[str, Any], view: dict[str, Any]) -> None:
    task = kwargs.pop("task", game)
    if isinstance(task, bytes):
        task = task.decode()
    if str(task).replace("_", "").lower() != game.replace("_", "").lower():
        raise EnvPoolArgumentError(f"{envpool_id} plays {game!r}; task={task!r} names another game (make its own id)")
    view["task"] = game
    kwargs.setdefault("ram", True)  # EnvPool always reports info["ram"]


# The DeepMind Control Suite: EnvPool's episodes are max_episode_steps control steps long (1000 for
# every suite task: dm_control's time_limit / control_timestep, and 1000 for lqr, which has no limit).
DMC_EPISODE_STEPS = 1000


def dmc_task_name(info_doc: str) -> str:
    """The suite task of a DMC envhive task (EnvPool's ``task_name``)."""
    return suite_task(info_doc)[1]


def translate_dmc(
    envpool_id: str, task_name: str, kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]
) -> None:
    """EnvPool's DMC kwargs -> envhive's, in place. EnvPool's ``frame_skip`` is the physics steps per
    control step (envhive's ``n_sub_steps``, dm_control's own; envhive's ``frame_skip`` repeats actions);
    ``max_episode_steps`` ends an episode after that many steps (truncated, discount 1), in place of
    dm_control's ``time_limit``; ``frame_stack`` is 1 (EnvPool stacks no states)."""
    name = kwargs.pop("task_name", task_name)
    if isinstance(name, bytes):
        name = name.decode()
    if name != task_name:
        raise EnvPoolArgumentError(f"{envpool_id} is dm_control's {task_name!r}; task_name={name!r} names another task")
    if "frame_skip" in kwargs:
        kwargs["n_sub_steps"] = kwargs.pop("frame_skip")
    frame_stack = kwargs.pop("frame_stack", 1)
    if kwargs.get("from_pixels"):  # EnvPool stacks its pixel observations: (3 * frame_stack, H, W)
        kwargs["frame_stack"] = frame_stack
    elif frame_stack != 1:
        raise EnvPoolArgumentError(
            f"{envpool_id}: frame_stack={frame_stack!r}: EnvPool stacks DMC observations only from pixels "
            "(from_pixels=True)"
        )
    if "max_episode_steps" in out:
        kwargs["time_limit"] = float("inf")  # the step limit alone ends episodes, as in EnvPool
    else:
        out["max_episode_steps"] = DMC_EPISODE_STEPS
    view["task_name"] = task_name
    view["frame_stack"] = frame_stack


def check_render(task_id: str, render_kwargs: dict[str, Any], kwargs: dict[str, Any]) -> tuple[str | None, int]:
    """EnvPool's render kwargs: the mode and the default env of ``render()``; the frame size and
    camera go into ``kwargs`` as the task's own (MuJoCo's ``width``/``height``/``camera_id``), and a
    DMC task's ``from_pixels`` makes them its observation."""
    mode = render_kwargs.pop("render_mode", None)
    if mode not in (None, "rgb_array", "human"):
        raise EnvPoolArgumentError("render_mode must be one of None, 'rgb_array', or 'human'")
    if mode == "human":
        raise EnvPoolArgumentError(
            f"{task_id}: envhive opens no window (render_mode='human'); use render_mode='rgb_array' and show the frames"
        )
    from_pixels = render_kwargs.pop("from_pixels", False)
    env_id = render_kwargs.pop("render_env_id", None)
    given = {k: v for k, v in render_kwargs.items() if v is not None}
    if from_pixels:
        target, _ = resolve_id(task_id)
        if target not in list_envs() or task_info(target).family != "dmc":
            raise EnvPoolArgumentError(
                f"{task_id}: envhive's from_pixels observations are the DeepMind Control Suite's; render() the frames"
            )
        # EnvPool's pixel observation: one (3 * frame_stack, H, W) uint8 Box, 84 x 84 from the free camera
        # unless its render kwargs say otherwise
        kwargs.update(
            from_pixels=True,
            flatten=True,
            channels_first=True,
            height=int(given.get("render_height", 84)),
            width=int(given.get("render_width", 84)),
            camera_id=int(given.get("render_camera_id", -1)),
        )
        given = {}
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
