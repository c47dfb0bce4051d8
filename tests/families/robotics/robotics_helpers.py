"""The reference (gymnasium-robotics 1.4.x, the real package) for the robotics lock-step tests, and
the comparison of envhive's pool with it (envhive.testing.assert_matches_reference).

gymnasium-robotics 1.4.2's mujoco_utils tests a joint's type with ``jnt_type in (mjJNT_HINGE,
mjJNT_SLIDE)``, which is False under MuJoCo 4's enums although ``==`` holds, so Fetch, Hand and
Kitchen raise on MuJoCo 4.0.0. ``shim_mujoco_utils`` replaces its four joint accessors with ones that
compare with ``==`` and otherwise behave the same (same slices, same asserts, and get_joint_qvel's
4 values for a ball joint). The shim lives in the tests only; envhive's C++ has no such test.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import mujoco
import numpy as np
from gymnasium.vector import AutoresetMode

import envhive
from envhive.testing import LockstepStats, assert_matches_reference
from envhive.testing.reference import Policy

GYM_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}

_SHIMMED = False


def _joint(model: Any, name: str) -> tuple[int, int]:
    joint_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
    assert joint_id != -1, f"Joint with name '{name}' is not part of the model!"
    return joint_id, int(model.jnt_type[joint_id])


def _width(joint_type: int, free: int, ball: int) -> int:
    if joint_type == int(mujoco.mjtJoint.mjJNT_FREE):
        return free
    if joint_type == int(mujoco.mjtJoint.mjJNT_BALL):
        return ball
    assert joint_type in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    return 1


def shim_mujoco_utils() -> None:
    """Make gymnasium-robotics' joint accessors work on MuJoCo 4 (once per process)."""
    global _SHIMMED
    if _SHIMMED:
        return
    from gymnasium_robotics.utils import mujoco_utils as mu

    def get_joint_qpos(model: Any, data: Any, name: str) -> Any:
        joint_id, joint_type = _joint(model, name)
        start = int(model.jnt_qposadr[joint_id])
        return data.qpos[start : start + _width(joint_type, 7, 4)].copy()

    def get_joint_qvel(model: Any, data: Any, name: str) -> Any:
        joint_id, joint_type = _joint(model, name)
        start = int(model.jnt_dofadr[joint_id])
        return data.qvel[start : start + _width(joint_type, 6, 4)].copy()

    def set_joint_qpos(model: Any, data: Any, name: str, value: Any) -> None:
        joint_id, joint_type = _joint(model, name)
        start, n = int(model.jnt_qposadr[joint_id]), _width(joint_type, 7, 4)
        value = np.array(value)
        if n > 1:
            assert value.shape == (n,), f"Value has incorrect shape {name}: {value}"
        data.qpos[start : start + n] = value

    def set_joint_qvel(model: Any, data: Any, name: str, value: Any) -> None:
        joint_id, joint_type = _joint(model, name)
        start, n = int(model.jnt_dofadr[joint_id]), _width(joint_type, 6, 3)
        value = np.array(value)
        if n > 1:
            assert value.shape == (n,), f"Value has incorrect shape {name}: {value}"
        data.qvel[start : start + n] = value

    mu.get_joint_qpos = get_joint_qpos
    mu.get_joint_qvel = get_joint_qvel
    mu.set_joint_qpos = set_joint_qpos
    mu.set_joint_qvel = set_joint_qvel
    _SHIMMED = True


def reference(task_id: str, **kwargs: Any) -> gymnasium.Env[Any, Any]:
    """gymnasium.make(task_id) of the installed gymnasium-robotics (shimmed for MuJoCo 4)."""
    import gymnasium_robotics

    gymnasium.register_envs(gymnasium_robotics)
    shim_mujoco_utils()
    return gymnasium.make(task_id, **kwargs)


def reference_vec(
    task_id: str, num_envs: int, mode: str = "next_step", wrappers: Sequence[Any] = (), **kwargs: Any
) -> gymnasium.vector.VectorEnv:
    """Gymnasium's SyncVectorEnv of the installed gymnasium-robotics task (shimmed for MuJoCo 4), in
    autoreset ``mode``; ``wrappers`` wrap each reference env."""
    import gymnasium_robotics

    gymnasium.register_envs(gymnasium_robotics)
    shim_mujoco_utils()
    return gymnasium.make_vec(
        task_id,
        num_envs=num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": GYM_MODES[mode]},
        wrappers=list(wrappers),
        **kwargs,
    )


def lockstep(
    task_id: str,
    *,
    seed: int,
    steps: int,
    num_envs: int = 2,
    mode: str = "next_step",
    policy: Policy | None = None,
    action_seed: int = 0,
    min_episodes: int = 0,
    ref_kwargs: dict[str, Any] | None = None,
    ref_wrappers: Sequence[Any] = (),
    **kwargs: Any,
) -> LockstepStats:
    """envhive.testing.assert_matches_reference of an envhive pool (``seed``, autoreset ``mode``,
    ``kwargs``) against Gymnasium's SyncVectorEnv of gymnasium-robotics (env i reset with seed + i
    first, then as its autoreset mode resets it): every observation leaf (the goal Dicts leaf by
    leaf), reward, termination, truncation and info, bit for bit. ``policy(obs, rng)``: the actions
    (default: uniform over 1.5 x the action bounds), cast to the action dtype; ``ref_kwargs``: the
    reference's spelling of the kwargs when it differs; ``ref_wrappers``: wrap each reference env
    (Kitchen's infos as envhive reports them)."""
    env = envhive.make(task_id, num_envs=num_envs, seed=seed, autoreset_mode=mode, **kwargs)
    ref = reference_vec(task_id, num_envs, mode, ref_wrappers, **(kwargs if ref_kwargs is None else ref_kwargs))
    dtype = env.single_action_space.dtype
    cast: Policy | None = None
    if policy is not None:
        given = policy

        def cast(obs: Any, rng: np.random.Generator) -> Any:
            return np.asarray(given(obs, rng), dtype=dtype)

    try:
        return assert_matches_reference(
            env, ref, seed=seed, steps=steps, policy=cast, action_seed=action_seed, min_episodes=min_episodes
        )
    finally:
        env.close()
        ref.close()


KITCHEN_TASKS = (
    "bottom burner",
    "top burner",
    "light switch",
    "slide cabinet",
    "hinge cabinet",
    "microwave",
    "kettle",
)


class KitchenTaskMasks(gymnasium.Wrapper[Any, Any, Any, Any]):
    """FrankaKitchen's infos as envhive reports them: the reference's lists of task names (whose
    order follows a Python set's, so it varies from process to process) as boolean masks over the
    seven tasks in kitchen_env.py's order."""

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return obs, _masks(info)

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, _masks(info)


def _masks(info: dict[str, Any]) -> dict[str, Any]:
    return {key: np.array([t in value for t in KITCHEN_TASKS]) for key, value in info.items()}
