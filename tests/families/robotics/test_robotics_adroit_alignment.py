"""Lock-step tests of the Adroit hand tasks (v1, dense and sparse) against the real
gymnasium-robotics 1.4.x (they run on MuJoCo 4 unmodified).

Env i of a pool made with seed=s plays the episodes of gymnasium.make(id) reset with seed=s+i first
and without a seed afterwards: each reset moves the task's object in the env's own model (door
frame, nail board, target pen orientation, ball and target) with the same draws. Bit for bit:
observations, rewards, "success", episode ends; except
- AdroitHandHammer's dense reward, which subtracts 1e-2 * np.linalg.norm(qvel) over 33 velocities:
  OpenBLAS ddot's SIMD kernel (CPU-dependent order) against envhive's FMA loop; bounded by 40 ulp of
  that norm times 1e-2 (plus 2 ulp of the reward);
- AdroitHandHammer's object Euler angles (np.arctan2: SVML on AVX-512 CPUs): 2 ulp of pi.
The norms of 3-vectors (OpenBLAS's short-vector loop, FMA-accumulated) are exact on FMA CPUs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from robotics_helpers import lockstep

from envhive.families.robotics import ADROIT_IDS


def _hammer_obs_bound(env: Any) -> np.ndarray:
    bound = np.zeros(46)
    bound[39:42] = 2 * np.spacing(np.pi)
    return bound


def _hammer_reward_bound(env: Any) -> float:
    qvel = env.unwrapped.data.qvel
    return 1e-2 * 40 * np.finfo(np.float64).eps * float(np.sqrt(np.sum(qvel * qvel)))


def _kwargs(task_id: str) -> dict[str, Any]:
    if task_id.startswith("AdroitHandHammer"):
        return {"obs_bounds": _hammer_obs_bound, "reward_bound": None if "Sparse" in task_id else _hammer_reward_bound}
    return {}


@pytest.mark.parametrize("task_id", ADROIT_IDS)
def test_adroit_lockstep(task_id: str) -> None:
    """One seed, two envs, a 10-step time limit: episode ends and autoresets (new placements)."""
    counts = lockstep(task_id, seed=3, steps=23, max_episode_steps=10, **_kwargs(task_id))
    assert counts["ends"] == 4 and counts["resets"] == 4


@pytest.mark.deep
@pytest.mark.parametrize("seed", [0, 99, 2**35 + 7])
@pytest.mark.parametrize("task_id", ADROIT_IDS)
def test_adroit_lockstep_deep(task_id: str, seed: int) -> None:
    """Several seeds, three envs, whole episodes at the registered time limit (200)."""
    counts = lockstep(task_id, seed=seed, steps=203, num_envs=3, action_seed=seed % 13, **_kwargs(task_id))
    assert counts["ends"] == 3 and counts["resets"] == 3
