"""Bad kwargs and actions get a clear Python exception, never a crash; the numerics the tasks reproduce
(scipy's quaternions, numpy's PCG64 choice) checked against the real libraries."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import envhive
from envhive import _mujoco

H = pytest.importorskip("metaworld_helpers")


@pytest.mark.parametrize(
    ("task_id", "kwargs", "message"),
    [
        ("Meta-World/reach-v3", {"max_episode_steps": 501}, "max_episode_steps must be in \\[1, 500\\]"),
        ("Meta-World/reach-v3", {"max_episode_steps": 0}, "max_episode_steps"),
        ("Meta-World/MT1", {"env_name": "fly-v3"}, "unknown Meta-World task 'fly-v3'"),
        ("Meta-World/goal_hidden", {"env_name": ""}, "unknown Meta-World task"),
        ("Meta-World/ML10-train", {"meta_batch_size": 15}, "divisible by the 10 task classes"),
        ("Meta-World/ML10-test", {"meta_batch_size": 20}, "multiple of it"),  # 50 goals over 4 envs per class
        ("Meta-World/ML10-train", {"meta_batch_size": 0}, "meta_batch_size must be in"),
        ("Meta-World/ML1-train", {"total_tasks_per_cls": 51}, "total_tasks_per_cls must be in"),
        ("Meta-World/MT10", {"use_one_hot": True, "num_tasks": 3}, "num_tasks must be at least"),
        ("Meta-World/MT10", {"use_one_hot": True, "num_tasks": 10**9}, "num_tasks must be at least"),
        ("Meta-World/reach-v3", {"width": 0}, "width must be in"),
        ("Meta-World/reach-v3", {"camera_id": 1, "camera_name": "corner"}, "cannot both be given"),
    ],
)
def test_bad_kwargs_raise(task_id: str, kwargs: dict, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        env = envhive.make(task_id, num_envs=2, **kwargs)
        env.reset()


def test_wrong_kwarg_type() -> None:
    with pytest.raises((ValueError, TypeError)):
        envhive.make("Meta-World/reach-v3", num_envs=1, partially_observable="yes")


def test_legacy_seed_range() -> None:
    """The ids that seed numpy's legacy RandomState refuse seeds past 2**32 - 1, as numpy does."""
    with pytest.raises((ValueError, OverflowError)):
        envhive.make("Meta-World/goal_observable", env_name="reach-v3", num_envs=1, seed=2**32).reset()
    envhive.make("Meta-World/reach-v3", num_envs=1, seed=2**40).reset()  # PCG64 only: any 64-bit seed


def test_non_finite_action_is_refused() -> None:
    """NaN / inf actions are refused before any env sees them (Meta-World itself would step MuJoCo into
    its unstable-state reset): a ValueError naming the env."""
    env = envhive.make("Meta-World/pick-place-v3", num_envs=2, seed=0)
    env.reset()
    act = np.zeros((2, 4), np.float32)
    act[1, 3] = np.nan
    with pytest.raises(ValueError, match="action for env 1 is not finite"):
        env.step(act)
    act[1, 3] = np.inf
    with pytest.raises(ValueError, match="action for env 1 is not finite"):
        env.step(act)


def test_huge_actions_step_like_metaworld() -> None:
    """Actions far outside [-1, 1] (the arm's are clipped; the gripper's reaches MuJoCo's ctrlrange and
    the reward raw) play exactly as in Meta-World."""
    env = envhive.make("Meta-World/pick-place-v3", num_envs=1, seed=2, max_episode_steps=6)
    ref = H.seeded_env("pick-place-v3", 2)
    np.testing.assert_array_equal(env.reset()[0][0], ref.reset()[0])
    for a in ([1e30, -1e30, 3.0, 1e30], [-5.0, 7.0, -1e20, -1e30], [0.5, 0.5, 0.5, 3e38]):
        act = np.array([a], np.float32)
        obs, reward, *_ = env.step(act)
        ro, rr, *_ = ref.step(act[0])
        np.testing.assert_array_equal(obs[0], ro)
        assert reward[0] == float(rr)


def test_quaternions_equal_scipys() -> None:
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(0)
    mats = Rotation.random(4000, random_state=1).as_matrix()
    # near the branch boundaries too: identity-like, and 180-degree turns about each axis
    special = [np.diag(d) for d in ([1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1])]
    mats = np.concatenate([mats, np.array(special, dtype=float), mats[:50] + rng.normal(0, 1e-14, (50, 3, 3))])
    ours = np.array(_mujoco._metaworld_quat_from_matrix(mats.reshape(-1).tolist())).reshape(-1, 4)
    want = np.array([Rotation.from_matrix(m).as_quat() for m in mats])
    np.testing.assert_array_equal(ours, want)


def test_without_metaworld_a_task_names_the_install_command() -> None:
    """Without the metaworld package (its models) the ids are still listed and making one raises a
    ValueError naming the install command; the module's other families (Gymnasium's MuJoCo) still run."""
    code = """
import sys
sys.modules["metaworld"] = None  # importlib.util.find_spec finds nothing, import fails
import envhive
print(sum(i.startswith(("Meta-World/", "MetaWorld/")) for i in envhive.list_envs()))
for task_id in ("Meta-World/reach-v3", "MetaWorld/PickPlace-v3", "Meta-World/MT10"):
    try:
        envhive.make(task_id, num_envs=1).reset()
    except ValueError as e:
        print(type(e).__name__, 'pip install --no-deps "metaworld==3.1.1"' in str(e))
env = envhive.make("HalfCheetah-v5", num_envs=1)
env.reset(seed=0)
print("mujoco ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:5] == ["114", "ValueError True", "ValueError True", "ValueError True", "mujoco ok"]
