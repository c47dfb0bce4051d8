"""Lock-step tests of every Gymnasium-Robotics id against the real gymnasium-robotics 1.4.x.

Env i of a pool made with seed=s plays the episodes of gymnasium.make(id) reset with seed=s+i first
and without a seed afterwards (its generator continues), with the same actions: every observation
leaf, reward (bit for bit, sign of zero included), termination, truncation and info.

Every leaf bit for bit on every CPU: the site velocities (`jac @ qvel`, OpenBLAS dgemv) and the
object's Euler angles (np.arctan2: SVML's on AVX-512 CPUs) are computed with numpy's own kernels
(core/numpy_kernels.h, through csrc/envs/robotics/numerics.h).
"""

from __future__ import annotations

import pytest
from robotics_helpers import lockstep

from envhive.families.robotics import FETCH_IDS


@pytest.mark.parametrize("task_id", FETCH_IDS)
def test_fetch_lockstep(task_id: str) -> None:
    """One seed, two envs, past the 50-step time limit: an episode end and an autoreset each."""
    counts = lockstep(task_id, seed=7, steps=53)
    assert counts["ends"] == 2 and counts["resets"] == 2


@pytest.mark.deep
@pytest.mark.parametrize("seed", [0, 1234, 2**40 + 5])
@pytest.mark.parametrize("task_id", FETCH_IDS)
def test_fetch_lockstep_deep(task_id: str, seed: int) -> None:
    """Several seeds, three episodes per env (later resets draw from the continued generator)."""
    counts = lockstep(task_id, seed=seed, steps=153, num_envs=3, action_seed=seed % 97)
    assert counts["ends"] == 9 and counts["resets"] == 9


@pytest.mark.parametrize("task_id", ["FetchReach-v4", "FetchPushDense-v4"])
def test_reward_type_kwarg(task_id: str) -> None:
    """reward_type overrides the id's default, as gymnasium.make(id, reward_type=...) does."""
    other = "dense" if "Dense" not in task_id else "sparse"
    counts = lockstep(task_id, seed=3, steps=51, num_envs=1, reward_type=other)
    assert counts["ends"] == 1
