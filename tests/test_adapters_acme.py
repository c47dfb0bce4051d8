"""Acme's EnvironmentLoop on envhive: one env (HiveSingleDmEnv) and a batch (LockstepEpisodes)."""

from __future__ import annotations

import sys

import dm_env
import numpy as np
import pytest

import envhive
from envhive.adapters.acme import LockstepEpisodes, make_single_env

import acme  # isort: skip  (after envhive.adapters.acme, which makes launchpad importable)
from acme.utils import loggers  # isort: skip


class LeanActor(acme.core.Actor):
    """Pushes the cart towards the side the pole leans to (one env or a batch of them)."""

    def __init__(self) -> None:
        self.first = 0
        self.observed = 0

    def select_action(self, observation: np.ndarray) -> np.ndarray:
        return (np.asarray(observation)[..., 2] > 0).astype(np.int64)

    def observe_first(self, timestep: dm_env.TimeStep) -> None:
        self.first += 1

    def observe(self, action: np.ndarray, next_timestep: dm_env.TimeStep) -> None:
        self.observed += 1

    def update(self, wait: bool = False) -> None:
        pass


def reference_returns(num_envs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Each env's first-episode return and length under LeanActor, through the Gymnasium facade."""
    env = envhive.make("CartPole-v1", num_envs=num_envs, seed=seed)
    obs, _ = env.reset()
    returns, lengths = np.zeros(num_envs), np.zeros(num_envs, dtype=int)
    ended = np.zeros(num_envs, dtype=bool)
    while not ended.all():
        obs, reward, term, trunc, _ = env.step((obs[:, 2] > 0).astype(np.int64))
        returns += np.where(ended, 0.0, reward)
        lengths += ~ended
        ended |= term | trunc
    return returns, lengths


def test_launchpad_stand_in_only_when_launchpad_is_missing() -> None:
    lp = sys.modules["launchpad"]
    assert "stand-in" in (lp.__doc__ or "")
    lp.register_stop_handler(lambda: None)
    lp.unregister_stop_handler(lambda: None)


def test_environment_loop_on_one_env() -> None:
    env = make_single_env("CartPole-v1", seed=5)
    actor = LeanActor()
    loop = acme.EnvironmentLoop(env, actor, logger=loggers.NoOpLogger())
    result = loop.run_episode()
    returns, lengths = reference_returns(1, seed=5)
    assert result["episode_return"] == returns[0] and result["episode_length"] == lengths[0]
    loop.run(num_episodes=3)
    assert actor.first == 4 and actor.observed > 3 * 8


def test_environment_loop_on_a_batch() -> None:
    batch = LockstepEpisodes(envhive.make_dm("CartPole-v1", num_envs=6, seed=9))
    loop = acme.EnvironmentLoop(batch, LeanActor(), logger=loggers.NoOpLogger())
    result = loop.run_episode()
    returns, lengths = reference_returns(6, seed=9)
    assert len(set(lengths.tolist())) > 1  # episodes of different lengths: some envs are held
    np.testing.assert_array_equal(result["episode_return"], returns)
    assert result["episode_length"] == lengths.max()
    second = loop.run_episode()  # the next loop episode restarts every env
    assert second["episode_return"].shape == (6,) and np.all(second["episode_return"] > 0)


def test_lockstep_holds_ended_envs() -> None:
    batch = LockstepEpisodes(envhive.make_dm("Dummy-v0", num_envs=3, seed=0, episode_length=0, max_episode_steps=0))
    assert batch.step(np.zeros(3, dtype=np.int64)).first()  # a fresh batch: step() resets
    env = LockstepEpisodes(envhive.make_dm("CartPole-v1", num_envs=4, seed=2))
    ts = env.reset()
    held_at = {}
    while not ts.last():
        ts = env.step(np.zeros(4, dtype=np.int64))  # always push left: episodes end at various steps
        for i in np.flatnonzero(ts.step_type == int(dm_env.StepType.LAST)).tolist():
            if i in held_at:
                assert ts.reward[i] == 0.0
                np.testing.assert_array_equal(ts.observation[i], held_at[i])
            else:
                held_at[i] = ts.observation[i].copy()
    assert ts.last() and not ts.mid() and not ts.first()
    assert env.step(np.zeros(4, dtype=np.int64)).first()
    assert env.reward_spec().shape == (4,) and env.observation_spec().shape == (4, 4)
    env.action_spec().validate(np.ones(4, dtype=np.int64))


def test_lockstep_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="async"):
        LockstepEpisodes(envhive.make_dm("CartPole-v1", num_envs=4, batch_size=2))
    with pytest.raises(TypeError, match="make_single_env"):
        LockstepEpisodes(make_single_env("CartPole-v1"))  # type: ignore[arg-type]
