"""Lock-step tests of every Gymnasium-Robotics id against the real gymnasium-robotics 1.4.x.

Env i of a pool made with seed=s plays the episodes of gymnasium.make(id) reset with seed=s+i first
and without a seed afterwards (its generator continues), with the same actions: every observation
leaf, reward (bit for bit, sign of zero included), termination, truncation and info.

Per leaf: goals, positions, gripper state and velocity, rewards and infos are bit for bit on every
CPU. The site velocities (`jac @ qvel` through OpenBLAS dgemv, whose kernel is CPU-dependent) and
the object's Euler angles (np.arctan2: SVML on AVX-512 CPUs) are compared within the bounds
robotics_helpers.fetch_obs_bounds states (8 ulp of sum |terms|; 2 ulp of pi). They are
observations only: no state depends on them, so the bound does not grow along an episode.
"""

from __future__ import annotations

import pytest
from robotics_helpers import fetch_obs_bounds, lockstep

from envhive.families.robotics import FETCH_IDS


def _bounds(task_id: str):  # type: ignore[no-untyped-def]
    has_object = "Reach" not in task_id
    return lambda env: fetch_obs_bounds(env, has_object)


@pytest.mark.parametrize("task_id", FETCH_IDS)
def test_fetch_lockstep(task_id: str) -> None:
    """One seed, two envs, past the 50-step time limit: an episode end and an autoreset each."""
    counts = lockstep(task_id, seed=7, steps=53, obs_bounds=_bounds(task_id))
    assert counts["ends"] == 2 and counts["resets"] == 2


@pytest.mark.deep
@pytest.mark.parametrize("seed", [0, 1234, 2**40 + 5])
@pytest.mark.parametrize("task_id", FETCH_IDS)
def test_fetch_lockstep_deep(task_id: str, seed: int) -> None:
    """Several seeds, three episodes per env (later resets draw from the continued generator)."""
    counts = lockstep(task_id, seed=seed, steps=153, num_envs=3, obs_bounds=_bounds(task_id), action_seed=seed % 97)
    assert counts["ends"] == 9 and counts["resets"] == 9


@pytest.mark.parametrize("task_id", ["FetchReach-v4", "FetchPushDense-v4"])
def test_reward_type_kwarg(task_id: str) -> None:
    """reward_type overrides the id's default, as gymnasium.make(id, reward_type=...) does."""
    other = "dense" if "Dense" not in task_id else "sparse"
    counts = lockstep(task_id, seed=3, steps=51, num_envs=1, obs_bounds=_bounds(task_id), reward_type=other)
    assert counts["ends"] == 1
