"""Lock-step tests of the Adroit hand tasks (v1, dense and sparse) against the real
gymnasium-robotics 1.4.x (they run on MuJoCo 4 unmodified).

Env i of a pool made with seed=s plays the episodes of gymnasium.make(id) reset with seed=s+i first
and without a seed afterwards: each reset moves the task's object in the env's own model (door
frame, nail board, target pen orientation, ball and target) with the same draws. Bit for bit:
observations, rewards, "success", episode ends (the norms, OpenBLAS ddot, and the hammer's Euler
angles, np.arctan2, through numpy's own kernels).
"""

from __future__ import annotations

import pytest
from robotics_helpers import lockstep

from envhive.families.robotics import ADROIT_IDS


@pytest.mark.parametrize("task_id", ADROIT_IDS)
def test_adroit_lockstep(task_id: str) -> None:
    """One seed, two envs, a 10-step time limit: episode ends and autoresets (new placements)."""
    counts = lockstep(task_id, seed=3, steps=23, max_episode_steps=10)
    assert counts["ends"] == 4 and counts["resets"] == 4


@pytest.mark.deep
@pytest.mark.parametrize("seed", [0, 99, 2**35 + 7])
@pytest.mark.parametrize("task_id", ADROIT_IDS)
def test_adroit_lockstep_deep(task_id: str, seed: int) -> None:
    """Several seeds, three envs, whole episodes at the registered time limit (200)."""
    counts = lockstep(task_id, seed=seed, steps=203, num_envs=3, action_seed=seed % 13)
    assert counts["ends"] == 3 and counts["resets"] == 3
