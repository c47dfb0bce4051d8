"""Gymnasium's MuJoCo tasks (``csrc/envs/mujoco/``, module ``envhive._mujoco``), on the libmujoco of
the ``mujoco`` package (the ``mujoco`` extra), with Gymnasium's models (handed to the module when it
loads); and EnvPool's names for them: its v2/v3 ids, its kwargs, the parameters it exposes that
Gymnasium fixes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from envhive.errors import EnvPoolArgumentError
from envhive.families.base import EnvPoolNames, Family

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo

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


def translate_envpool(
    envpool_id: str, info: TaskInfo, kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]
) -> None:
    """EnvPool's MuJoCo kwargs -> envhive's, in place; refuses EnvPool-only values envhive cannot run."""
    target, defaults = info.id, info.defaults
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


def config_view(target: str, config: Mapping[str, Any]) -> Mapping[str, Any]:
    """EnvPool's names of the parameters Gymnasium fixes, as envhive runs them."""
    return MUJOCO_FIXED.get(target, {})


FAMILY = Family(
    name="mujoco",
    module="envhive._mujoco",
    doc="Gymnasium's MuJoCo tasks (v4 and v5)",
    extra="mujoco",
    requires="mujoco",
    preload="mujoco",
    envpool=EnvPoolNames(
        aliases={
            # MuJoCo v2/v3: gym's mujoco-py versions. EnvPool runs them as v4 (same config) except Ant-v3, which
            # observes the contact forces; Gymnasium's v4 has both as kwargs.
            "Ant-v3": ("Ant-v4", {"use_contact_forces": True}),
            **{f"{name}-v3": (f"{name}-v4", {}) for name in ("HalfCheetah", "Hopper", "Swimmer", "Walker2d")},
            **{
                f"{name}-v2": (f"{name}-v4", {})
                for name in ("HumanoidStandup", "InvertedDoublePendulum", "InvertedPendulum", "Pusher", "Reacher")
            },
        },
        not_in_envhive={
            "Humanoid-v3": "EnvPool's Humanoid-v3 adds the contact cost to the reward (use_contact_force=True), "
            "which Gymnasium's Humanoid-v4 does not; Humanoid-v5 has it (contact_cost_weight)",
        },
        translate=translate_envpool,
        config_view=config_view,
    ),
)
