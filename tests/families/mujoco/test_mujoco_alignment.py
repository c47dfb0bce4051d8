"""MuJoCo tasks reproduce Gymnasium 1.4 step for step: same seeds, same float32 actions.

envhive links the libmujoco the `mujoco` package loads, builds the same models from Gymnasium's
assets and draws the same reset noise (numpy's uniform and standard_normal on the same PCG64
stream), so the physics state is bit-identical. Observations, rewards and infos are compared
within ATOL = 1e-6 (the issue's bound); in practice observations are bit-exact and rewards/infos
differ by at most a few 1e-16 where numpy computes a norm or a sum in a different order
(np.linalg.norm through BLAS, np.einsum).
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envhive
from helpers import MUJOCO_TASKS

mujoco = pytest.importorskip("mujoco")
pytest.importorskip("imageio")  # gymnasium.envs.mujoco imports it

ATOL = 0.0
N_STEPS = 1000
NUM_ENVS = 2
# Tasks that never terminate run 1000-step episodes: a shorter limit (on both sides) makes the
# 1000 compared steps cross several episode ends.
SHORT_LIMIT = {"HalfCheetah": 300, "HumanoidStandup": 300, "Swimmer": 300}
GYM_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}


def gym_reference(task_id: str, num_envs: int, mode: str = "next_step", **kwargs: Any) -> gymnasium.vector.VectorEnv:
    """Gymnasium's own SyncVectorEnv of the task."""
    old = mujoco.__version__
    if task_id == "Pusher-v4":
        # Gymnasium refuses Pusher-v4 on mujoco >= 3 (its model behaves differently there than on
        # mujoco 2); envhive runs it on the pinned MuJoCo, and the comparison is still exact.
        mujoco.__version__ = "2.3.7"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return gymnasium.make_vec(
                task_id,
                num_envs=num_envs,
                vectorization_mode="sync",
                vector_kwargs={"autoreset_mode": GYM_MODES[mode]},
                **kwargs,
            )
    finally:
        mujoco.__version__ = old


def compare_infos(h_info: dict[str, Any], g_info: dict[str, Any], where: str, diffs: dict[str, float]) -> None:
    """Every key Gymnasium reports (for the envs its mask selects) must match envhive's."""
    for key, value in g_info.items():
        if key.startswith("_") or key in ("final_obs", "final_info"):
            continue
        assert key in h_info, f"{where}: envhive has no info[{key!r}]"
        mask = g_info["_" + key]
        expected = np.asarray(value)[mask]
        if expected.dtype == object:
            expected = np.stack(list(expected))
        actual = np.asarray(h_info[key])[mask]
        assert actual.shape == expected.shape, f"{where}: info[{key!r}] shape {actual.shape} != {expected.shape}"
        if actual.size:
            diff = float(np.max(np.abs(actual - expected.astype(np.float64))))
            diffs["info"] = max(diffs["info"], diff)
            assert diff <= ATOL, f"{where}: info[{key!r}] differs by {diff}"


def lockstep(task_id: str, mode: str, seed: int, n_steps: int, **kwargs: Any) -> tuple[dict[str, float], int]:
    """Step envhive and Gymnasium with the same actions; returns max abs diffs and episode ends."""
    hive = envhive.make(task_id, num_envs=NUM_ENVS, seed=seed, autoreset_mode=mode, **kwargs)
    ref = gym_reference(task_id, NUM_ENVS, mode, **kwargs)
    diffs = {"obs": 0.0, "reward": 0.0, "info": 0.0}
    ends = 0
    try:
        assert hive.single_observation_space == ref.single_observation_space
        assert hive.single_action_space == ref.single_action_space
        h_obs, h_info = hive.reset()
        g_obs, g_info = ref.reset(seed=seed)
        # Reset noise (uniform and standard_normal draws) is bit-identical.
        np.testing.assert_array_equal(h_obs, g_obs, err_msg=f"{task_id} reset obs")
        compare_infos(h_info, g_info, f"{task_id} reset", diffs)
        rng = np.random.default_rng(seed + 1)
        space = hive.single_action_space
        for t in range(n_steps):
            actions = rng.uniform(space.low, space.high, size=(NUM_ENVS, *space.shape)).astype(np.float32)
            h_obs, h_rew, h_term, h_trunc, h_info = hive.step(actions.copy())
            g_obs, g_rew, g_term, g_trunc, g_info = ref.step(actions.copy())
            where = f"{task_id} step {t}"
            diffs["obs"] = max(diffs["obs"], float(np.max(np.abs(h_obs - g_obs))))
            diffs["reward"] = max(diffs["reward"], float(np.max(np.abs(h_rew - g_rew))))
            assert diffs["obs"] <= ATOL, f"{where}: obs differ by {diffs['obs']}"
            assert diffs["reward"] <= ATOL, f"{where}: rewards differ by {diffs['reward']}"
            np.testing.assert_array_equal(h_term, g_term, err_msg=f"{where} terminated")
            np.testing.assert_array_equal(h_trunc, g_trunc, err_msg=f"{where} truncated")
            compare_infos(h_info, g_info, where, diffs)
            if mode == "same_step" and (g_term | g_trunc).any():
                done = g_term | g_trunc
                np.testing.assert_array_equal(h_info["_final_obs"], done, err_msg=where)
                for i in np.flatnonzero(done):
                    np.testing.assert_allclose(h_info["final_obs"][i], g_info["final_obs"][i], rtol=0, atol=ATOL)
                compare_infos(h_info["final_info"], g_info["final_info"], f"{where} final_info", diffs)
            ends += int((h_term | h_trunc).sum())
            if mode == "disabled" and (g_term | g_trunc).any():
                done = g_term | g_trunc
                h_obs, h_info = hive.reset(options={"reset_mask": done.copy()})
                g_obs, g_info = ref.reset(options={"reset_mask": done.copy()})
                np.testing.assert_array_equal(h_obs, g_obs, err_msg=f"{where} masked reset")
                compare_infos(h_info, g_info, f"{where} masked reset", diffs)
    finally:
        hive.close()
        ref.close()
    return diffs, ends


@pytest.mark.parametrize("task_id", MUJOCO_TASKS)
def test_trajectories_match_gymnasium(task_id: str, record_property: Any) -> None:
    name = task_id.split("-")[0]
    kwargs = {"max_episode_steps": SHORT_LIMIT[name]} if name in SHORT_LIMIT else {}
    diffs, ends = lockstep(task_id, "next_step", seed=11, n_steps=N_STEPS, **kwargs)
    record_property("max_abs_diff", diffs)
    assert ends >= NUM_ENVS, f"{task_id}: the run should cross episode ends (got {ends})"


@pytest.mark.deep
@pytest.mark.parametrize(
    ("task_id", "mode"), [("Hopper-v5", "same_step"), ("Ant-v4", "same_step"), ("Walker2d-v5", "disabled")]
)
def test_other_autoreset_modes_match_gymnasium(task_id: str, mode: str) -> None:
    _, ends = lockstep(task_id, mode, seed=5, n_steps=300)
    assert ends >= NUM_ENVS


@pytest.mark.deep
@pytest.mark.parametrize(
    ("task_id", "kwargs"),
    [
        (
            "Ant-v5",
            {
                "frame_skip": 3,
                "ctrl_cost_weight": 0.3,
                "contact_cost_weight": 1e-3,
                "healthy_z_range": (0.3, 0.9),
                "contact_force_range": (-0.5, 2.0),
                "reset_noise_scale": 0.2,
                "exclude_current_positions_from_observation": False,
                "include_cfrc_ext_in_observation": False,
                "main_body": 2,
            },
        ),
        ("Ant-v4", {"use_contact_forces": True, "terminate_when_unhealthy": False, "healthy_reward": 2.0}),
        ("HalfCheetah-v5", {"forward_reward_weight": 2.0, "exclude_current_positions_from_observation": False}),
        (
            "Hopper-v5",
            {"healthy_angle_range": (-0.3, 0.3), "terminate_when_unhealthy": False, "xml_file": "hopper.xml"},
        ),
        (
            "Humanoid-v5",
            {
                "include_cinert_in_observation": False,
                "include_cvel_in_observation": False,
                "contact_cost_range": (0.0, 1.0),
                "healthy_z_range": (0.9, 2.1),
            },
        ),
        ("HumanoidStandup-v5", {"include_cfrc_ext_in_observation": False, "impact_cost_weight": 1e-5}),
        ("InvertedDoublePendulum-v5", {"healthy_reward": 5.0, "reset_noise_scale": 0.05}),
        ("Pusher-v5", {"reward_near_weight": 1.0, "reward_control_weight": 0.5, "frame_skip": 2}),
        ("Reacher-v5", {"reward_dist_weight": 2.0, "reward_control_weight": 0.1}),
        ("Walker2d-v5", {"xml_file": "walker2d.xml", "healthy_z_range": (0.7, 2.5)}),
        ("Swimmer-v5", {"ctrl_cost_weight": 0.1, "reset_noise_scale": 0.5}),
    ],
)
def test_kwargs_match_gymnasium(task_id: str, kwargs: dict[str, Any]) -> None:
    lockstep(task_id, "next_step", seed=3, n_steps=200, max_episode_steps=150, **kwargs)


@pytest.mark.parametrize("task_id", ["Ant-v5", "HalfCheetah-v4", "InvertedDoublePendulum-v5"])
def test_reset_noise_is_numpys(task_id: str) -> None:
    """Resets draw numpy's standard_normal bit for bit, for many seeds."""
    seeds = list(range(1000, 1064))
    hive = envhive.make(task_id, num_envs=len(seeds), seed=seeds)
    ref = gym_reference(task_id, len(seeds))
    try:
        h_obs, _ = hive.reset()
        g_obs, _ = ref.reset(seed=seeds)
        np.testing.assert_array_equal(h_obs, g_obs)
    finally:
        hive.close()
        ref.close()
