"""The dm_env facade: batched TimeSteps, FIRST/MID/LAST, discount on termination vs truncation."""

from __future__ import annotations

import dm_env
import numpy as np
import pytest
from dm_env import StepType

import envhive
from helpers import gym_vec, random_actions

FIRST, MID, LAST = int(StepType.FIRST), int(StepType.MID), int(StepType.LAST)


def test_reset_timestep() -> None:
    env = envhive.make_dm("CartPole-v1", num_envs=4, seed=6)
    assert isinstance(env, dm_env.Environment)
    ts = env.reset()
    np.testing.assert_array_equal(ts.step_type, FIRST)
    np.testing.assert_array_equal(ts.reward, 0.0)
    np.testing.assert_array_equal(ts.discount, 1.0)
    assert ts.observation.shape == (4, 4)
    # Same initial states as Gymnasium for the same seed.
    np.testing.assert_array_equal(ts.observation, gym_vec("CartPole-v1", 4).reset(seed=6)[0])
    np.testing.assert_array_equal(env.last_info["env_id"], np.arange(4))
    env.close()


def test_termination_gives_last_with_discount_zero_then_first() -> None:
    env = envhive.make_dm("CartPole-v1", num_envs=4, seed=1)
    ref = gym_vec("CartPole-v1", 4)
    env.reset()
    ref.reset(seed=1)
    rng = np.random.default_rng(0)
    prev_last = np.zeros(4, dtype=bool)
    lasts = 0
    for _ in range(150):
        a = random_actions(env.task_spec.action_space, 4, rng)
        ts = env.step(a)
        obs, rew, term, trunc, _ = ref.step(a)
        np.testing.assert_array_equal(ts.observation, obs)
        np.testing.assert_array_equal(ts.reward, rew)
        last = term | trunc
        expected = np.where(last, LAST, np.where(prev_last, FIRST, MID))
        np.testing.assert_array_equal(ts.step_type, expected)
        np.testing.assert_array_equal(ts.discount, np.where(term, 0.0, 1.0))
        np.testing.assert_array_equal(env.last_info["terminated"], term)
        np.testing.assert_array_equal(env.last_info["truncated"], trunc)
        # FIRST rows of a step start a new episode: reward 0.
        np.testing.assert_array_equal(ts.reward[prev_last], 0.0)
        lasts += int(term.sum())
        prev_last = last
    assert lasts >= 10
    assert ts.discount.dtype == np.float32 and ts.step_type.dtype == np.int8


def test_truncation_gives_last_with_discount_one() -> None:
    env = envhive.make_dm("Pendulum-v1", num_envs=2, seed=0)
    env.reset()
    action = np.zeros((2, 1), dtype=np.float32)
    for t in range(1, 200):
        ts = env.step(action)
        np.testing.assert_array_equal(ts.step_type, MID)
        np.testing.assert_array_equal(env.last_info["elapsed_step"], t)
    ts = env.step(action)
    np.testing.assert_array_equal(ts.step_type, LAST)
    np.testing.assert_array_equal(ts.discount, 1.0)  # truncated, not terminated: bootstrap
    np.testing.assert_array_equal(env.last_info["truncated"], True)
    np.testing.assert_array_equal(env.last_info["terminated"], False)
    assert np.all(ts.reward < 0)
    ts = env.step(action)
    np.testing.assert_array_equal(ts.step_type, FIRST)
    np.testing.assert_array_equal(ts.reward, 0.0)
    np.testing.assert_array_equal(ts.discount, 1.0)
    ts = env.step(action)
    np.testing.assert_array_equal(ts.step_type, MID)


def test_terminated_and_truncated_together_discount_zero() -> None:
    env = envhive.make_dm("Dummy-v0", num_envs=2, episode_length=3, max_episode_steps=3)
    env.reset()
    for _ in range(3):
        ts = env.step(np.array([1, 1]))
    np.testing.assert_array_equal(ts.step_type, LAST)
    np.testing.assert_array_equal(ts.discount, 0.0)


def test_specs() -> None:
    env = envhive.make_dm("CartPole-v1", num_envs=2)
    obs_spec = env.observation_spec()
    assert isinstance(obs_spec, dm_env.specs.BoundedArray)
    assert obs_spec.shape == (4,) and obs_spec.dtype == np.float32
    np.testing.assert_array_equal(obs_spec.maximum, env.task_spec.observation_space.high)
    act_spec = env.action_spec()
    assert isinstance(act_spec, dm_env.specs.DiscreteArray) and act_spec.num_values == 2
    assert env.reward_spec().dtype == np.float64
    assert env.discount_spec().minimum == 0.0 and env.discount_spec().maximum == 1.0
    pend = envhive.make_dm("Pendulum-v1")
    spec = pend.action_spec()
    assert isinstance(spec, dm_env.specs.BoundedArray) and spec.shape == (1,)
    np.testing.assert_array_equal(spec.minimum, [-2.0])
    np.testing.assert_array_equal(spec.maximum, [2.0])
    spec.validate(np.array([1.5], dtype=np.float32))


def test_async_dm() -> None:
    env = envhive.make_dm("Dummy-v0", num_envs=4, batch_size=2, episode_length=2)
    ts = env.reset()  # the first two envs to finish their reset
    assert ts.step_type.shape == (2,)
    np.testing.assert_array_equal(ts.step_type, FIRST)
    ids = env.last_info["env_id"].copy()
    env.send(ids * 10, ids)
    # The next two batches hold the other two envs' resets (FIRST) and these two envs' steps
    # (MID), in whatever order they complete: async mode promises first-ready, not FIFO.
    rows: dict[int, tuple[int, float]] = {}
    for _ in range(2):
        ts = env.recv()
        for r, env_id in enumerate(env.last_info["env_id"].tolist()):
            assert env_id not in rows
            rows[env_id] = (int(ts.step_type[r]), float(ts.reward[r]))
    assert sorted(rows) == [0, 1, 2, 3]
    for env_id, (step_type, reward) in rows.items():
        if env_id in ids.tolist():
            assert (step_type, reward) == (int(MID), env_id * 10.0)
        else:
            assert (step_type, reward) == (int(FIRST), 0.0)
    env.close()


def test_dm_rejects_other_autoreset_modes() -> None:
    with pytest.raises(ValueError, match="autoreset"):
        envhive.make_dm("CartPole-v1", autoreset_mode="same_step")
    assert envhive.make_dm("CartPole-v1", autoreset_mode="next_step").num_envs == 1
