"""Autoreset semantics of each mode, observed on Dummy-v0 (obs = [draw, elapsed, last action])."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envhive

EPISODE = 3


def _dummy(mode: str, num_envs: int = 2, **kw) -> envhive.HiveVectorEnv:
    return envhive.make("Dummy-v0", num_envs=num_envs, episode_length=EPISODE, autoreset_mode=mode, seed=0, **kw)


def test_next_step_reset_step() -> None:
    env = _dummy("next_step")
    obs, info = env.reset()
    draws = obs[:, 0].copy()
    np.testing.assert_array_equal(obs[:, 1:], [[0, -1], [0, -1]])
    for t in range(1, EPISODE + 1):
        obs, rew, term, trunc, info = env.step(np.array([10 + t, 20 + t]))
        np.testing.assert_array_equal(rew, [10 + t, 20 + t])
        np.testing.assert_array_equal(obs[:, 1], t)
        np.testing.assert_array_equal(obs[:, 2], [10 + t, 20 + t])
        np.testing.assert_array_equal(info["elapsed_step"], t)
        np.testing.assert_array_equal(info["last_action"], [10 + t, 20 + t])
        np.testing.assert_array_equal(obs[:, 0], draws)
        assert term.all() == (t == EPISODE)
        assert not trunc.any()
    assert "final_obs" not in info
    # The step after the episode ended is the reset: action ignored, reward 0, no flags.
    obs, rew, term, trunc, info = env.step(np.array([777, 888]))
    np.testing.assert_array_equal(rew, 0.0)
    assert not term.any() and not trunc.any()
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    np.testing.assert_array_equal(info["last_action"], -1)
    np.testing.assert_array_equal(obs[:, 1:], [[0, -1], [0, -1]])
    assert not np.isin(obs[:, 0], draws).any(), "the new episode should draw a new start"
    # And the new episode runs normally.
    obs, rew, term, _, info = env.step(np.array([1, 2]))
    np.testing.assert_array_equal(rew, [1, 2])
    np.testing.assert_array_equal(info["elapsed_step"], 1)
    assert not term.any()


def test_next_step_only_ended_envs_reset() -> None:
    env = _dummy("next_step")
    env.reset()
    env.step(np.array([1, 1]))
    # Restart env 1 only so the two envs are out of phase.
    obs, info = env.reset(options={"reset_mask": np.array([False, True])})
    np.testing.assert_array_equal(info["elapsed_step"], [1, 0])
    np.testing.assert_array_equal(obs[:, 1:], [[1, 1], [0, -1]])
    flags = []
    for _ in range(4):
        _, rew, term, _, info = env.step(np.array([5, 6]))
        flags.append((term.tolist(), info["elapsed_step"].tolist(), rew.tolist()))
    assert flags == [
        ([False, False], [2, 1], [5, 6]),
        ([True, False], [3, 2], [5, 6]),
        ([False, True], [0, 3], [0, 6]),
        ([False, False], [1, 0], [5, 0]),
    ]


def test_truncation_by_time_limit() -> None:
    env = _dummy("next_step", max_episode_steps=2)
    env.reset()
    _, _, term, trunc, _ = env.step(np.array([1, 1]))
    assert not term.any() and not trunc.any()
    _, _, term, trunc, info = env.step(np.array([1, 1]))
    assert not term.any() and trunc.all()
    np.testing.assert_array_equal(info["elapsed_step"], 2)


def test_termination_and_truncation_on_the_same_step() -> None:
    # Like Gymnasium's TimeLimit, hitting the limit truncates even when the env also terminates.
    env = _dummy("next_step", max_episode_steps=EPISODE)
    env.reset()
    for _ in range(EPISODE):
        _, _, term, trunc, _ = env.step(np.array([1, 1]))
    assert term.all() and trunc.all()


def test_same_step_final_obs_and_final_info() -> None:
    env = _dummy("same_step")
    obs, _ = env.reset()
    env.step(np.array([1, 1]))
    obs, info = env.reset(options={"reset_mask": np.array([True, False])})  # env 0 one step behind
    draws = obs[:, 0].copy()
    for _ in range(EPISODE - 2):
        obs, _, term, trunc, info = env.step(np.array([3, 4]))
        assert "final_obs" not in info and "_final_obs" not in info and "final_info" not in info
    # Env 1 ends now; env 0 next step.
    obs, rew, term, trunc, info = env.step(np.array([40, 41]))
    np.testing.assert_array_equal(term, [False, True])
    np.testing.assert_array_equal(rew, [40, 41])  # the terminal step's own reward
    np.testing.assert_array_equal(info["_final_obs"], [False, True])
    np.testing.assert_array_equal(info["_final_info"], [False, True])
    assert info["final_obs"].dtype == object and info["final_obs"][0] is None
    np.testing.assert_array_equal(info["final_obs"][1], [draws[1], EPISODE, 41])
    final_info = info["final_info"]
    assert final_info["elapsed_step"][1] == EPISODE
    assert final_info["last_action"][1] == 41
    np.testing.assert_array_equal(final_info["_elapsed_step"], [False, True])
    np.testing.assert_array_equal(final_info["_last_action"], [False, True])
    # The row itself already holds the next episode's first observation.
    assert obs[1, 0] != draws[1]
    np.testing.assert_array_equal(obs[1, 1:], [0, -1])
    np.testing.assert_array_equal(info["elapsed_step"], [2, 0])
    np.testing.assert_array_equal(info["last_action"], [40, -1])

    obs, rew, term, _, info = env.step(np.array([50, 51]))
    np.testing.assert_array_equal(term, [True, False])
    np.testing.assert_array_equal(rew, [50, 51])  # no reset step in SAME_STEP
    np.testing.assert_array_equal(info["_final_obs"], [True, False])
    np.testing.assert_array_equal(info["final_obs"][0], [draws[0], EPISODE, 50])
    assert info["final_obs"][1] is None
    np.testing.assert_array_equal(info["elapsed_step"], [0, 1])


def test_same_step_truncation_also_reports_final_obs() -> None:
    env = _dummy("same_step", max_episode_steps=2)
    env.reset()
    env.step(np.array([1, 2]))
    obs, _, term, trunc, info = env.step(np.array([3, 4]))
    assert trunc.all() and not term.any()
    np.testing.assert_array_equal(info["_final_obs"], [True, True])
    np.testing.assert_array_equal(np.stack(info["final_obs"])[:, 1:], [[2, 3], [2, 4]])
    np.testing.assert_array_equal(obs[:, 1:], [[0, -1], [0, -1]])


def test_disabled_requires_reset_mask() -> None:
    env = _dummy("disabled")
    env.reset()
    for _ in range(EPISODE):
        obs, _, term, _, info = env.step(np.array([9, 9]))
    assert term.all()
    assert "final_obs" not in info
    # No autoreset: the row keeps the terminal observation.
    np.testing.assert_array_equal(obs[:, 1:], [[EPISODE, 9], [EPISODE, 9]])
    with pytest.raises(ValueError, match="reset_mask"):
        env.step(np.array([1, 1]))
    obs, info = env.reset(options={"reset_mask": np.array([True, False])})
    np.testing.assert_array_equal(info["elapsed_step"], [0, EPISODE])
    np.testing.assert_array_equal(obs[:, 1:], [[0, -1], [EPISODE, 9]])
    with pytest.raises(ValueError, match="env 1"):
        env.step(np.array([1, 1]))
    env.reset(options={"reset_mask": np.array([False, True])})
    obs, rew, term, _, info = env.step(np.array([4, 5]))
    np.testing.assert_array_equal(rew, [4, 5])
    np.testing.assert_array_equal(info["elapsed_step"], [1, 1])
    assert not term.any()


def test_disabled_full_reset_also_works() -> None:
    env = _dummy("disabled")
    env.reset()
    for _ in range(EPISODE):
        env.step(np.array([1, 1]))
    obs, info = env.reset()
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    _, rew, _, _, _ = env.step(np.array([2, 3]))
    np.testing.assert_array_equal(rew, [2, 3])


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("next_step", AutoresetMode.NEXT_STEP),
        ("same_step", AutoresetMode.SAME_STEP),
        ("disabled", AutoresetMode.DISABLED),
        ("SAME_STEP", AutoresetMode.SAME_STEP),
        ("SameStep", AutoresetMode.SAME_STEP),
        (AutoresetMode.DISABLED, AutoresetMode.DISABLED),
    ],
)
def test_autoreset_mode_spellings(given, expected) -> None:
    env = envhive.make("Dummy-v0", num_envs=1, autoreset_mode=given)
    assert env.autoreset_mode is expected
    assert env.metadata["autoreset_mode"] is expected


def test_default_mode_is_next_step() -> None:
    assert envhive.make("Dummy-v0").metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP


def test_same_step_final_info_is_zero_where_no_episode_ended() -> None:
    """Gymnasium batches final_info with zeros in the rows that did not end; recycled batch memory
    must never show through there."""
    env = envhive.make("Dummy-v0", num_envs=4, episode_length=3, autoreset_mode="same_step", seed=0)
    env.reset()
    seen = 0
    for t in range(40):
        # Stagger the episodes: env i is held back i steps at the start.
        actions = np.full(4, 7, dtype=np.int64)
        _, _, term, trunc, info = env.step(actions)
        if "final_info" not in info:
            continue
        mask = info["_final_info"]
        final = info["final_info"]
        np.testing.assert_array_equal(mask, term | trunc)
        assert np.all(final["elapsed_step"][~mask] == 0)
        assert np.all(final["last_action"][~mask] == 0)
        assert np.all(final["elapsed_step"][mask] == 3)
        seen += int(mask.sum())
        if t == 5:
            env.reset(options={"reset_mask": np.array([True, False, True, False])})
    assert seen > 0
    env.close()
