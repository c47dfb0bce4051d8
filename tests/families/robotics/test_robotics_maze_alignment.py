"""Lock-step tests of PointMaze (v3) and AntMaze (v4, v5) against the real gymnasium-robotics 1.4.x:
every maze layout, sparse and dense, continuing_task and reset_target.

Env i of a pool made with seed=s plays the episodes of gymnasium.make(id) reset with seed=s+i first
(the maze's generator and the agent env's generator both seeded with it, as the reference does) and
without a seed afterwards. Bit for bit: observations (qpos, qvel, the Ant's clipped cfrc_ext), goals,
sparse rewards, terminations, truncations, "success" and the Ant's own infos, except:
- dense rewards, exp(-distance): np.exp is numpy's own AVX512F kernel on AVX-512 CPUs and glibc's
  elsewhere (1 ulp);
- the Ant's distance_from_origin info, np.linalg.norm of its x, y: OpenBLAS ddot (2 ulp).
Goals are placed with np.linalg.norm comparisons (BLAS too): a draw within an ulp of the 0.45 /
0.5 * scaling thresholds could differ, which no seed here hits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from robotics_helpers import lockstep

from envhive.families.robotics import ANT_MAZE_IDS, POINT_MAZE_IDS

ANT_INFO_ULPS = {"distance_from_origin": 2}


def _ulps(task_id: str) -> int:
    return 1 if "Dense" in task_id else 0


@pytest.mark.parametrize("task_id", POINT_MAZE_IDS)
def test_point_maze_lockstep(task_id: str) -> None:
    """One seed, one env, a 10-step time limit: episode ends and autoresets."""
    counts = lockstep(task_id, seed=5, steps=22, num_envs=1, reward_ulps=_ulps(task_id), max_episode_steps=10)
    assert counts["ends"] == 2 and counts["resets"] == 2


@pytest.mark.parametrize("task_id", ANT_MAZE_IDS)
def test_ant_maze_lockstep(task_id: str) -> None:
    """One seed, two envs, a 20-step time limit: episode ends and autoresets."""
    counts = lockstep(
        task_id, seed=5, steps=22, reward_ulps=_ulps(task_id), info_ulps=ANT_INFO_ULPS, max_episode_steps=20
    )
    assert counts["ends"] == 2 and counts["resets"] == 2


def _seek(gain: float, damping: float) -> Any:
    """Actions that steer the agent's x, y towards the desired goal (a PD controller on the goal)."""

    def policy(obs: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        error = obs["desired_goal"] - obs["achieved_goal"]
        velocity = obs["observation"][:, 2:4]
        push = np.clip(gain * error - damping * velocity, -1, 1)
        return push + rng.normal(0, 0.05, push.shape)

    return policy


@pytest.mark.parametrize("task_id", ["PointMaze_Open-v3", "PointMaze_OpenDense-v3"])
def test_point_maze_terminates_when_not_continuing(task_id: str) -> None:
    """continuing_task=False: reaching the goal terminates the episode (in both implementations)."""
    counts = lockstep(
        task_id, seed=9, steps=150, reward_ulps=_ulps(task_id), policy=_seek(2.0, 0.5), continuing_task=False
    )
    assert counts["terminations"] >= 2


def test_point_maze_reset_target() -> None:
    """continuing_task with reset_target=True: a reached goal is replaced by a new one, drawn from
    the same generator as the reference's."""
    counts = lockstep("PointMaze_Open_Diverse_GR-v3", seed=4, steps=200, policy=_seek(2.0, 0.5), reset_target=True)
    assert counts["goal_changes"] >= 2 and counts["terminations"] == 0


@pytest.mark.deep
@pytest.mark.parametrize("seed", [0, 77, 2**33 + 1])
@pytest.mark.parametrize("task_id", [i for i in POINT_MAZE_IDS + ANT_MAZE_IDS if "Large" in i or "UMaze" in i])
def test_maze_lockstep_deep(task_id: str, seed: int) -> None:
    """Several seeds, three envs, several episodes each."""
    ant = task_id.startswith("Ant")
    counts = lockstep(
        task_id,
        seed=seed,
        steps=93 if ant else 183,
        num_envs=3,
        action_seed=seed % 31,
        reward_ulps=_ulps(task_id),
        info_ulps=ANT_INFO_ULPS if ant else None,
        max_episode_steps=30 if ant else 60,
    )
    assert counts["ends"] == 9


@pytest.mark.deep
@pytest.mark.parametrize("task_id", ["AntMaze_UMaze-v4", "AntMaze_Open_Diverse_GRDense-v5"])
def test_ant_maze_full_episode(task_id: str) -> None:
    """A whole episode at the registered time limit (700 steps), one env."""
    counts = lockstep(task_id, seed=1, steps=702, num_envs=1, reward_ulps=_ulps(task_id), info_ulps=ANT_INFO_ULPS)
    assert counts["ends"] == 1 and counts["resets"] == 1
