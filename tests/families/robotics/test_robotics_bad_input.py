"""Bad kwargs of the robotics tasks raise a clear Python exception naming the problem."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import envhive


@pytest.mark.parametrize("task_id", ["FetchReach-v4", "PointMaze_UMaze-v3", "AntMaze_UMaze-v5"])
def test_bad_reward_type(task_id: str) -> None:
    with pytest.raises(ValueError, match="reward_type must be 'sparse' or 'dense'"):
        envhive.make(task_id, num_envs=1, reward_type="shaped")


@pytest.mark.parametrize("value", ["yes", 1.5])
def test_bad_continuing_task(value: object) -> None:
    with pytest.raises((TypeError, ValueError), match="continuing_task"):
        envhive.make("PointMaze_UMaze-v3", num_envs=1, continuing_task=value)


def test_unknown_kwarg_is_named() -> None:
    with pytest.raises((TypeError, ValueError), match="target_range"):
        envhive.make("FetchReach-v4", num_envs=1, target_range=0.3)


def test_kitchen_bad_task_name() -> None:
    with pytest.raises(ValueError, match="unknown task 'oven'"):
        envhive.make("FrankaKitchen-v1", num_envs=1, tasks_to_complete="microwave, oven")


def test_goal_methods_reject_bad_shapes_and_types() -> None:
    pool = envhive.make("AntMaze_UMaze-v5", num_envs=1)
    try:
        with pytest.raises(ValueError, match="same shape"):
            pool.compute_reward(np.zeros((3, 2)), np.zeros((3, 3)), None)
        with pytest.raises(ValueError, match="same shape"):
            pool.compute_terminated(np.zeros(2), np.zeros(3), None)
    finally:
        pool.close()


def test_non_finite_actions_are_refused() -> None:
    pool = envhive.make("FetchPush-v4", num_envs=2, seed=0)
    try:
        pool.reset()
        actions = np.zeros((2, 4), np.float32)
        actions[1, 2] = np.nan
        with pytest.raises(ValueError, match="finite|nan|NaN"):
            pool.step(actions)
        obs, *_ = pool.step(np.zeros((2, 4), np.float32))  # the pool is still usable
        assert np.isfinite(obs["observation"]).all()
    finally:
        pool.close()


def test_without_gymnasium_robotics_a_task_names_the_extra() -> None:
    """Without gymnasium-robotics (its models), making a task raises naming the extra; the module's
    other families (Gymnasium's MuJoCo tasks) still run."""
    code = """
import sys
sys.modules["gymnasium_robotics"] = None  # importlib.util.find_spec finds nothing, import fails
import envhive
for task_id in ("FetchReach-v4", "PointMaze_UMaze-v3"):
    try:
        envhive.make(task_id, num_envs=1).reset()
    except (ValueError, ImportError) as e:
        print(type(e).__name__, "envhive[robotics]" in str(e))
env = envhive.make("HalfCheetah-v5", num_envs=1)
env.reset(seed=0)
print("mujoco ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["ValueError True", "MissingExtraError True", "mujoco ok"]
