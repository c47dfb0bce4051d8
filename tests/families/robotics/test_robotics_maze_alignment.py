"""Lock-step tests of PointMaze (v3) and AntMaze (v4, v5) against the real gymnasium-robotics 1.4.x:
every maze layout, sparse and dense, continuing_task and reset_target.

Env i of a pool made with seed=s plays the episodes of gymnasium.make(id) reset with seed=s+i first
(the maze's generator and the agent env's generator both seeded with it, as the reference does) and
without a seed afterwards. Bit for bit: observations (qpos, qvel, the Ant's clipped cfrc_ext), goals,
rewards (dense: np.exp, numpy's own kernel), terminations, truncations, "success" and the Ant's own
infos (distance_from_origin: np.linalg.norm, OpenBLAS ddot): numpy's kernels are called where the
reference calls numpy (core/numpy_kernels.h), goal placement's norms included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from robotics_helpers import lockstep

from envhive.families.robotics import ANT_MAZE_IDS, POINT_MAZE_IDS


@pytest.mark.parametrize("task_id", POINT_MAZE_IDS)
def test_point_maze_lockstep(task_id: str) -> None:
    """One seed, one env, a 10-step time limit: episode ends and autoresets."""
    counts = lockstep(task_id, seed=5, steps=22, num_envs=1, max_episode_steps=10)
    assert counts["ends"] == 2 and counts["resets"] == 2


@pytest.mark.parametrize("task_id", ANT_MAZE_IDS)
def test_ant_maze_lockstep(task_id: str) -> None:
    """One seed, two envs, a 20-step time limit: episode ends and autoresets."""
    counts = lockstep(task_id, seed=5, steps=22, max_episode_steps=20)
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
    counts = lockstep(task_id, seed=9, steps=150, policy=_seek(2.0, 0.5), continuing_task=False)
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
        max_episode_steps=30 if ant else 60,
    )
    assert counts["ends"] == 9


@pytest.mark.deep
@pytest.mark.parametrize("task_id", ["AntMaze_UMaze-v4", "AntMaze_Open_Diverse_GRDense-v5"])
def test_ant_maze_full_episode(task_id: str) -> None:
    """A whole episode at the registered time limit (700 steps), one env."""
    counts = lockstep(task_id, seed=1, steps=702, num_envs=1)
    assert counts["ends"] == 1 and counts["resets"] == 1
