"""The reference (gymnasium-robotics 1.4.x, the real package) for the robotics lock-step tests, and
the comparison of envhive's pool with it.

gymnasium-robotics 1.4.2's mujoco_utils tests a joint's type with ``jnt_type in (mjJNT_HINGE,
mjJNT_SLIDE)``, which is False under MuJoCo 4's enums although ``==`` holds, so Fetch, Hand and
Kitchen raise on MuJoCo 4.0.0. ``shim_mujoco_utils`` replaces its four joint accessors with ones that
compare with ``==`` and otherwise behave the same (same slices, same asserts, and get_joint_qvel's
4 values for a ball joint). The shim lives in the tests only; envhive's C++ has no such test.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import mujoco
import numpy as np

import envhive

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


def assert_close(ours: np.ndarray, ref: np.ndarray, bound: np.ndarray | float, where: str) -> None:
    ours = np.asarray(ours)
    ref = np.asarray(ref)
    assert ours.shape == ref.shape, f"{where}: shape {ours.shape} != {ref.shape}"
    diff = np.abs(ours.astype(np.float64) - ref.astype(np.float64))
    bad = ~((diff <= bound) | (ours == ref))
    assert not bad.any(), (
        f"{where}: elements {np.flatnonzero(bad).tolist()} differ: ours {ours[bad]}, reference {ref[bad]}, "
        f"|diff| {diff[bad]} > bound {np.broadcast_to(bound, diff.shape)[bad]}"
    )


def lockstep(
    task_id: str,
    seed: int,
    steps: int,
    num_envs: int = 2,
    obs_bounds: Any = None,
    action_seed: int = 0,
    reward_ulps: int = 0,
    reward_bound: Any = None,
    info_ulps: dict[str, int] | None = None,
    policy: Any = None,
    info_of: Any = None,
    ref_kwargs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, int]:
    """Step an envhive pool (seed=seed, NEXT_STEP autoreset) and num_envs reference envs (env i
    reset with seed + i first, then without a seed) with the same random actions; compare every
    observation leaf (exactly, or within ``obs_bounds(ref_env)``: per element), reward, termination,
    truncation and info (rewards and infos bit for bit, or within ``reward_ulps`` / ``info_ulps[key]``
    ulps, or ``reward_bound(ref_env)`` plus 2 ulp). ``policy(obs, rng)``: the actions (default:
    uniform over 1.2 x the action bounds); ``info_of(ref_info)``: the reference's step info as envhive
    reports it (FrankaKitchen's lists of task names as masks); ``ref_kwargs``: the reference's
    spelling of the kwargs when it differs.
    Returns counts of episode ends, resets, terminations and goal changes seen."""
    pool = envhive.make(task_id, num_envs=num_envs, seed=seed, **kwargs)
    refs = [reference(task_id, **(kwargs if ref_kwargs is None else ref_kwargs)) for _ in range(num_envs)]
    rng = np.random.default_rng(action_seed)
    try:
        obs, _ = pool.reset()
        ref_obs = [r.reset(seed=seed + i)[0] for i, r in enumerate(refs)]
        counts = {"ends": 0, "resets": 0, "terminations": 0, "goal_changes": 0}

        def check(i: int, where: str) -> None:
            bound = obs_bounds(refs[i]) if obs_bounds is not None else 0.0
            if not isinstance(ref_obs[i], dict):  # a Box observation (Adroit)
                assert_close(obs[i], ref_obs[i], bound, f"{task_id} env {i} {where}")
                return
            for key, ref_leaf in ref_obs[i].items():
                leaf_bound = bound if key == "observation" else 0.0
                if isinstance(ref_leaf, dict):  # a Dict of goals (FrankaKitchen): leaf by leaf
                    assert set(obs[key]) == set(ref_leaf), f"{task_id} env {i} {where} {key}: keys"
                    for name, value in ref_leaf.items():
                        assert_close(obs[key][name][i], value, 0.0, f"{task_id} env {i} {where} {key}[{name!r}]")
                    continue
                assert_close(obs[key][i], ref_leaf, leaf_bound, f"{task_id} env {i} {where} {key}")

        for i in range(num_envs):
            check(i, "reset")
        done = [False] * num_envs
        space = pool.single_action_space
        for t in range(steps):
            if policy is not None:
                actions = np.asarray(policy(obs, rng), dtype=space.dtype)
            else:
                size = (num_envs, *space.shape)
                actions = rng.uniform(space.low * 1.2, space.high * 1.2, size=size).astype(space.dtype)
            obs, reward, terminated, truncated, info = pool.step(actions)
            for i, ref in enumerate(refs):
                if done[i]:
                    ref_obs[i] = ref.reset()[0]
                    counts["resets"] += 1
                    check(i, f"step {t} (reset)")
                    assert reward[i] == 0 and not terminated[i] and not truncated[i]
                    done[i] = False
                    continue
                goal_env = isinstance(ref_obs[i], dict)
                previous_goal = ref_obs[i]["desired_goal"].copy() if goal_env else None
                ref_obs[i], r, term, trunc, ref_info = ref.step(actions[i])
                if info_of is not None:
                    ref_info = info_of(ref_info)
                if goal_env:
                    counts["goal_changes"] += not np.array_equal(previous_goal, ref_obs[i]["desired_goal"])
                check(i, f"step {t}")
                where = f"{task_id} env {i} step {t}"
                if reward_bound is not None:  # an absolute bound from the reference's state
                    bound = reward_bound(ref) + 2 * np.spacing(abs(r))
                    assert abs(reward[i] - r) <= bound, f"{where}: reward {reward[i]} != {r} (bound {bound})"
                elif reward_ulps:
                    assert abs(reward[i] - r) <= reward_ulps * np.spacing(abs(r)), f"{where}: reward {reward[i]} != {r}"
                else:
                    same = np.float64(reward[i]).tobytes() == np.float64(r).tobytes()
                    assert same, f"{where}: reward {reward[i]} != {r}"
                assert bool(terminated[i]) == bool(term), f"{where}: terminated"
                assert bool(truncated[i]) == bool(trunc), f"{where}: truncated"
                for key, value in ref_info.items():
                    assert key in info, f"{where}: info has no {key!r}"
                    if info_ulps and key in info_ulps:
                        tol = info_ulps[key] * np.spacing(abs(np.float64(value)))
                        assert abs(info[key][i] - value) <= tol, f"{where}: info[{key!r}] {info[key][i]} != {value}"
                        continue
                    assert np.asarray(info[key][i]).tobytes() == np.asarray(value, dtype=info[key].dtype).tobytes(), (
                        f"{where}: info[{key!r}] {info[key][i]} != {value}"
                    )
                counts["terminations"] += bool(term)
                if term or trunc:
                    counts["ends"] += 1
                    done[i] = True
        return counts
    finally:
        pool.close()
        for r in refs:
            r.close()
