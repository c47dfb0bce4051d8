"""Classic-control tasks reproduce Gymnasium 1.4 step for step (same seeds, same actions)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector.utils import batch_space

import envhive
from helpers import (
    CLASSIC_TASKS,
    DEFAULT_MAX_EPISODE_STEPS,
    MODES,
    assert_same,
    gym_vec,
    lockstep,
    random_actions,
)

NUM_ENVS = 4


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("task_id", CLASSIC_TASKS)
def test_trajectories_match_gymnasium(task_id: str, mode: str) -> None:
    seed = 1234
    hive = envhive.make(task_id, num_envs=NUM_ENVS, seed=seed, autoreset_mode=mode)
    ref = gym_vec(task_id, NUM_ENVS, mode)
    # CartPole: random play ends episodes every ~20 steps; the others: three full time limits.
    n_steps = 300 if task_id.startswith("CartPole") else 3 * (DEFAULT_MAX_EPISODE_STEPS[task_id] + 1)
    try:
        stats = lockstep(hive, ref, mode, seed, n_steps)
    finally:
        hive.close()
        ref.close()
    assert stats.episodes.min() >= 3, "every env should have finished several episodes"
    if task_id in ("Pendulum-v1", "MountainCar-v0", "MountainCarContinuous-v0"):
        assert stats.truncated.min() >= 2, "random play should hit the time limit"
    if task_id.startswith("CartPole"):
        assert stats.terminated.min() >= 3


@pytest.mark.parametrize("mode", MODES)
def test_custom_time_limit_matches_gymnasium(mode: str) -> None:
    # A short limit mixes terminations and truncations (and, at step 12, possibly both).
    hive = envhive.make("CartPole-v1", num_envs=6, seed=3, max_episode_steps=12, autoreset_mode=mode)
    ref = gym_vec("CartPole-v1", 6, mode, max_episode_steps=12)
    stats = lockstep(hive, ref, mode, 3, 150)
    assert stats.truncated.sum() > 0 and stats.terminated.sum() > 0
    assert hive.task_spec.max_episode_steps == 12


def _pump(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """MountainCar energy pumping (push along the velocity) with some random actions mixed in."""
    act = np.where(obs[:, 1] >= 0, 2, 0)
    noise = rng.random(len(act)) < 0.1
    return np.where(noise, rng.integers(0, 3, size=len(act)), act)


def _pump_continuous(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    act = np.where(obs[:, 1] >= 0, 0.5, -0.5) + rng.normal(0, 0.3, size=len(obs))
    return act.astype(np.float32)[:, None]


@pytest.mark.parametrize(
    ("task_id", "kwargs", "policy", "n_steps"),
    [
        ("Pendulum-v1", {"g": 9.81}, None, 402),
        ("CartPole-v1", {"sutton_barto_reward": True}, None, 200),
        ("MountainCar-v0", {"goal_velocity": 0.02}, _pump, 600),
        ("MountainCarContinuous-v0", {"goal_velocity": 0.02}, _pump_continuous, 600),
    ],
    ids=["pendulum-g", "cartpole-sutton-barto", "mountaincar-goal-velocity", "mcc-goal-velocity"],
)
def test_task_kwargs_match_gymnasium(task_id, kwargs, policy, n_steps) -> None:
    # The MountainCar policies reach the goal, some of the time too slowly for goal_velocity:
    # with these seeds Gymnasium's termination steps differ from goal_velocity=0's.
    for mode in ("next_step", "same_step"):
        hive = envhive.make(task_id, num_envs=NUM_ENVS, seed=99, autoreset_mode=mode, **kwargs)
        ref = gym_vec(task_id, NUM_ENVS, mode, **kwargs)
        stats = lockstep(hive, ref, mode, 99, n_steps, policy=policy)
        assert hive.task_spec.config | kwargs == hive.task_spec.config
        if policy is not None:
            assert stats.terminated.sum() > 0, "the pumping policy should reach the goal"
        hive.close()
        ref.close()


def test_task_kwarg_changes_dynamics() -> None:
    # Guards the kwarg tests above against a kwarg that is accepted but ignored.
    a = envhive.make("Pendulum-v1", num_envs=2, seed=0)
    b = envhive.make("Pendulum-v1", num_envs=2, seed=0, g=3.0)
    a.reset()
    b.reset()
    act = np.zeros((2, 1), dtype=np.float32)
    for _ in range(5):
        obs_a = a.step(act)[0]
        obs_b = b.step(act)[0]
    assert not np.array_equal(obs_a, obs_b)
    c = envhive.make("CartPole-v1", num_envs=2, sutton_barto_reward=True)
    c.reset()
    assert np.all(c.step(np.zeros(2, dtype=np.int64))[1] == 0.0)


def _assert_space_equal(actual: gymnasium.Space, expected: gymnasium.Space) -> None:
    assert type(actual) is type(expected)
    assert actual == expected
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    if isinstance(expected, gymnasium.spaces.Box):
        np.testing.assert_array_equal(actual.low, expected.low)
        np.testing.assert_array_equal(actual.high, expected.high)
    elif isinstance(expected, gymnasium.spaces.Discrete):
        assert (actual.n, actual.start) == (expected.n, expected.start)
    else:
        np.testing.assert_array_equal(actual.nvec, expected.nvec)
        np.testing.assert_array_equal(actual.start, expected.start)


@pytest.mark.parametrize("task_id", CLASSIC_TASKS)
def test_spaces_match_gymnasium(task_id: str) -> None:
    hive = envhive.make(task_id, num_envs=3)
    ref = gym_vec(task_id, 3)
    _assert_space_equal(hive.single_observation_space, ref.single_observation_space)
    _assert_space_equal(hive.single_action_space, ref.single_action_space)
    _assert_space_equal(hive.observation_space, batch_space(ref.single_observation_space, 3))
    _assert_space_equal(hive.action_space, batch_space(ref.single_action_space, 3))
    _assert_space_equal(hive.observation_space, ref.observation_space)
    _assert_space_equal(hive.action_space, ref.action_space)
    spec = envhive.make_spec(task_id)
    _assert_space_equal(spec.observation_space, ref.single_observation_space)
    _assert_space_equal(spec.action_space, ref.single_action_space)
    hive.close()
    ref.close()


@pytest.mark.parametrize("task_id", CLASSIC_TASKS)
def test_default_max_episode_steps(task_id: str) -> None:
    expected = DEFAULT_MAX_EPISODE_STEPS[task_id]
    assert gymnasium.spec(task_id).max_episode_steps == expected
    assert envhive.make_spec(task_id).max_episode_steps == expected
    assert envhive.make_spec(task_id).config["max_episode_steps"] == expected
    assert gymnasium.spec(f"envhive/{task_id}").max_episode_steps == expected


@pytest.mark.parametrize("task_id", ["Pendulum-v1", "MountainCar-v0"])
def test_default_time_limit_truncates_exactly_there(task_id: str) -> None:
    limit = DEFAULT_MAX_EPISODE_STEPS[task_id]
    env = envhive.make(task_id, num_envs=2, seed=5)
    env.reset()
    rng = np.random.default_rng(0)
    for t in range(1, limit + 1):
        _, _, term, trunc, info = env.step(random_actions(env.single_action_space, 2, rng))
        np.testing.assert_array_equal(info["elapsed_step"], [t, t])
        assert not term.any()
        assert trunc.all() == (t == limit)
    env.close()


def test_out_of_range_box_actions_are_clipped_like_gymnasium() -> None:
    # Pendulum clips torque to [-2, 2]: 50 and 2 give the same next state (reward too).
    a = envhive.make("Pendulum-v1", num_envs=1, seed=8)
    b = envhive.make("Pendulum-v1", num_envs=1, seed=8)
    a.reset()
    b.reset()
    ra = a.step(np.array([[50.0]], dtype=np.float32))
    rb = b.step(np.array([[2.0]], dtype=np.float32))
    assert_same(ra[0], rb[0])
    assert_same(ra[1], rb[1])


@pytest.mark.deep
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_partial_resets_match_gymnasium(mode: str) -> None:
    # Masked resets (some seeded) in the middle of episodes, including of envs that just ended.
    n = 5
    hive = envhive.make("CartPole-v1", num_envs=n, seed=8, autoreset_mode=mode)
    ref = gym_vec("CartPole-v1", n, mode)
    assert_same(hive.reset()[0], ref.reset(seed=8)[0])
    rng = np.random.default_rng(2)
    for t in range(200):
        if t % 7 == 6:
            mask = rng.random(n) < 0.5
            mask[t % n] = True
            seed = [int(s) if rng.random() < 0.5 else None for s in rng.integers(0, 2**63, size=n)]
            h_obs, h_info = hive.reset(seed=seed, options={"reset_mask": mask.copy()})
            g_obs, _ = ref.reset(seed=seed, options={"reset_mask": mask.copy()})
            assert_same(h_obs, g_obs, what=f"masked reset at {t}")
            assert np.all(h_info["elapsed_step"][mask] == 0)
        a = random_actions(hive.single_action_space, n, rng)
        h_out = hive.step(a)
        g_out = ref.step(a)
        for name, x, y in zip(("obs", "reward", "terminated", "truncated"), h_out, g_out, strict=False):
            assert_same(x, y, what=f"step {t} {name}")
    hive.close()
    ref.close()
