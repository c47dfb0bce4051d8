"""The goal-conditioned API: compute_reward / compute_terminated / compute_truncated over batches
of goals, callable without stepping, equal to the reference's on relabelled batches (HER swaps
desired goals for achieved ones), from the pool, the single env and SB3's env_method; SB3's
HerReplayBuffer runs on an envhive pool unchanged."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from robotics_helpers import reference

import envhive
from envhive.families.robotics import FETCH_IDS

GOAL_IDS = FETCH_IDS + (
    "PointMaze_UMaze-v3",
    "PointMaze_UMazeDense-v3",
    "AntMaze_Medium-v5",
    "AntMaze_MediumDense-v4",
    "HandReach-v3",
    "HandReachDense-v3",
    "HandManipulateBlock-v1",
    "HandManipulateBlockDense-v1",
    "HandManipulatePenRotateDense-v1",
    "HandManipulateEgg_BooleanTouchSensors-v1",
)


def _relabelled_batch(task_id: str, n_steps: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """(achieved, desired) goals of a short rollout of an envhive pool, the desired ones relabelled
    with achieved goals of later steps (HER's 'future' strategy), plus exact hits, goals around the
    success threshold and far misses."""
    pool = envhive.make(task_id, num_envs=4, seed=11)
    rng = np.random.default_rng(5)
    obs, _ = pool.reset()
    achieved = [obs["achieved_goal"]]
    shape = (4, *pool.single_action_space.shape)
    for _ in range(n_steps):
        obs, *_ = pool.step(rng.uniform(-1, 1, shape).astype(np.float32))
        achieved.append(obs["achieved_goal"])
    pool.close()
    a = np.concatenate(achieved)  # (n, goal size)
    future = a[rng.integers(0, len(a), len(a))]
    threshold = 0.05 if task_id in FETCH_IDS else (0.01 if task_id.startswith("Hand") else 0.45)
    near = a + rng.normal(0, threshold * 0.6, a.shape)  # around the success threshold
    desired = np.concatenate([future, a, near, a + 1.0])
    return np.concatenate([a, a, a, a]), desired


@pytest.mark.parametrize("task_id", GOAL_IDS)
def test_compute_reward_equals_reference(task_id: str) -> None:
    achieved, desired = _relabelled_batch(task_id)
    ref = reference(task_id).unwrapped
    pool = envhive.make(task_id, num_envs=2)
    single = gymnasium.make(f"envhive/{task_id}")
    infos = np.array([{"is_success": 0.0}] * len(achieved))
    try:
        expected = ref.compute_reward(achieved, desired, infos)
        assert len(np.unique(expected)) > 1  # the batch holds successes and failures
        for name, fn in (("pool", pool.compute_reward), ("single", single.unwrapped.compute_reward)):
            got = fn(achieved, desired, infos)
            assert got.dtype == expected.dtype, name
            assert got.tobytes() == expected.tobytes(), name
            # one goal at a time, as the env itself computes it
            for k in (0, len(achieved) - 1):
                one = fn(achieved[k], desired[k], {})
                expected_one = ref.compute_reward(achieved[k], desired[k], {})
                assert np.asarray(one).tobytes() == np.asarray(expected_one).tobytes()
            term = pool.compute_terminated(achieved, desired, infos)
            trunc = pool.compute_truncated(achieved, desired, infos)
            assert term.shape == trunc.shape == (len(achieved),) and not term.any() and not trunc.any()
            one_term = pool.compute_terminated(achieved[0], desired[0], {})
            assert one_term == ref.compute_terminated(achieved[0], desired[0], {})
    finally:
        pool.close()
        single.close()


@pytest.mark.parametrize("task_id", ["PointMaze_Open-v3", "AntMaze_UMazeDense-v5"])
def test_maze_compute_terminated_when_not_continuing(task_id: str) -> None:
    """continuing_task=False: compute_terminated is the reference's for one goal, and row by row
    for a batch."""
    achieved, desired = _relabelled_batch(task_id, n_steps=10)
    ref = reference(task_id, continuing_task=False).unwrapped
    pool = envhive.make(task_id, num_envs=1, continuing_task=False)
    try:
        rows = pool.compute_terminated(achieved, desired, None)
        assert rows.dtype == bool and rows.any() and not rows.all()
        for k in range(len(achieved)):
            one = pool.compute_terminated(achieved[k], desired[k], {})
            assert one is ref.compute_terminated(achieved[k], desired[k], {}) is bool(rows[k])
    finally:
        pool.close()


def test_compute_reward_rejects_mismatched_goals() -> None:
    pool = envhive.make("FetchReach-v4", num_envs=1)
    try:
        with pytest.raises(ValueError, match="same shape"):
            pool.compute_reward(np.zeros((4, 3)), np.zeros((5, 3)), None)
    finally:
        pool.close()


def test_reward_of_a_step_equals_compute_reward() -> None:
    """A step's reward is compute_reward of its achieved and desired goals (HER's assumption)."""
    for task_id in ("FetchPush-v4", "FetchPushDense-v4"):
        pool = envhive.make(task_id, num_envs=3, seed=2)
        pool.reset()
        rng = np.random.default_rng(0)
        for _ in range(10):
            obs, reward, *_ = pool.step(rng.uniform(-1, 1, (3, 4)).astype(np.float32))
            expected = pool.compute_reward(obs["achieved_goal"], obs["desired_goal"], None)
            assert reward.tobytes() == expected.astype(np.float64).tobytes()
        pool.close()


def test_sb3_env_method_and_her_replay_buffer() -> None:
    """SB3's HerReplayBuffer on an envhive pool, unchanged: it relabels through
    env_method('compute_reward', ..., indices=[0]) and samples batches whose rewards are the
    reference's compute_reward of the relabelled goals."""
    pytest.importorskip("torch")
    from stable_baselines3.her import HerReplayBuffer

    from envhive.adapters.sb3 import make_vec_env

    np.random.seed(0)  # HerReplayBuffer samples with numpy's global generator
    vec = make_vec_env("FetchPush-v4", num_envs=2, seed=3)
    ref = reference("FetchPush-v4").unwrapped
    try:
        a, d = np.zeros((5, 3)), np.full((5, 3), 0.01)
        (got,) = vec.env_method("compute_reward", a, d, [{}] * 5, indices=[0])
        assert got.tobytes() == ref.compute_reward(a, d, {}).tobytes()
        buffer = HerReplayBuffer(
            200,
            vec.observation_space,
            vec.action_space,
            env=vec,
            n_envs=2,
            n_sampled_goal=4,
            goal_selection_strategy="future",
        )
        obs = vec.reset()
        rng = np.random.default_rng(1)
        for _ in range(60):
            actions = rng.uniform(-1, 1, (2, 4)).astype(np.float32)
            next_obs, rewards, dones, infos = vec.step(actions)
            buffer.add(obs, next_obs, actions, rewards, dones, infos)
            obs = next_obs
        batch = buffer.sample(64)
        next_achieved = batch.next_observations["achieved_goal"].numpy()
        desired = batch.observations["desired_goal"].numpy()
        expected = ref.compute_reward(next_achieved, desired, {}).astype(np.float32)
        np.testing.assert_array_equal(batch.rewards.numpy().ravel(), expected)
    finally:
        vec.close()
