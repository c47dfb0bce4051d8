"""Lock-step tests of every Gymnasium-Robotics id against the real gymnasium-robotics 1.4.x (with
the tests' MuJoCo 4 shim, robotics_helpers), through envhive.testing.assert_matches_reference.

Env i of a pool made with seed=s plays the episodes of gymnasium.make(id) reset with seed=s+i first
and as Gymnasium's SyncVectorEnv resets it afterwards (its generator continues), with the same
actions: every observation leaf (the goal Dicts leaf by leaf), reward, termination, truncation and
info, bit for bit on every CPU (no Tolerance anywhere). Where the reference calls numpy, envhive
calls numpy's own kernels (core/numpy_kernels.h, through csrc/envs/robotics/numerics.h): the site
velocities (`jac @ qvel`, OpenBLAS dgemv), the norms (OpenBLAS ddot), np.exp (dense maze rewards),
np.arctan2 / np.arccos / np.sin / np.cos (Euler angles, quaternion goals).

- Fetch: MujocoFetchEnv's settling, mocap and actuator control, 20 substeps.
- Mazes (PointMaze v3, AntMaze v4 / v5): every layout, sparse and dense; the maze's generator and
  the agent env's both seeded with the env's seed, as the reference does; continuing_task and
  reset_target.
- Adroit: each reset moves the task's object in the env's own model (door frame, nail board, target
  pen orientation, ball and target) with the same draws.
- Shadow Hand (HandReach v3, every HandManipulate v1 id): the manipulation resets keep the env's
  mjData as the reference does (only time, qpos and qvel restored, so MuJoCo's warm start carries
  over) and retry the object's placement until it lies on the palm.
- FrankaKitchen: the robot env's generator draws the observation noise (robot joints, then objects)
  at every reset and step, in the reference's order; its infos (lists of task names) compared as
  envhive reports them, masks over the seven tasks (KitchenTaskMasks).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from robotics_helpers import KitchenTaskMasks, lockstep

from envhive.families.robotics import ADROIT_IDS, ANT_MAZE_IDS, FETCH_IDS, HAND_IDS, POINT_MAZE_IDS

MODES = ("next_step", "same_step", "disabled")


# ------------------------------------------------------------------------------------------ Fetch
@pytest.mark.parametrize("task_id", FETCH_IDS)
def test_fetch_lockstep(task_id: str) -> None:
    """One seed, two envs, past the 50-step time limit: an episode end and an autoreset each."""
    stats = lockstep(task_id, seed=7, steps=53, min_episodes=1)
    assert (stats.truncated == 1).all()


@pytest.mark.deep
@pytest.mark.parametrize(("seed", "mode"), zip([0, 1234, 2**40 + 5], MODES, strict=True))
@pytest.mark.parametrize("task_id", FETCH_IDS)
def test_fetch_lockstep_deep(task_id: str, seed: int, mode: str) -> None:
    """Several seeds (one per autoreset mode), three envs, three episodes each (later resets draw
    from the continued generator)."""
    stats = lockstep(task_id, seed=seed, steps=153, num_envs=3, mode=mode, action_seed=seed % 97)
    assert (stats.truncated == 3).all()


# ------------------------------------------------------------------------------------------ mazes
@pytest.mark.parametrize("task_id", POINT_MAZE_IDS)
def test_point_maze_lockstep(task_id: str) -> None:
    """One seed, one env, a 10-step time limit: episode ends and autoresets."""
    lockstep(task_id, seed=5, steps=22, num_envs=1, max_episode_steps=10, min_episodes=2)


@pytest.mark.parametrize("task_id", ANT_MAZE_IDS)
def test_ant_maze_lockstep(task_id: str) -> None:
    """One seed, two envs, a 20-step time limit: an episode end and an autoreset each."""
    lockstep(task_id, seed=5, steps=22, max_episode_steps=20, min_episodes=1)


def _seek(gain: float, damping: float, goals: list[np.ndarray] | None = None) -> Any:
    """Actions that steer the agent's x, y towards the desired goal (a PD controller on the goal);
    ``goals`` collects the desired goals it saw."""

    def policy(obs: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        if goals is not None:
            goals.append(obs["desired_goal"].copy())
        error = obs["desired_goal"] - obs["achieved_goal"]
        velocity = obs["observation"][:, 2:4]
        push = np.clip(gain * error - damping * velocity, -1, 1)
        return push + rng.normal(0, 0.05, push.shape)

    return policy


@pytest.mark.parametrize("task_id", ["PointMaze_Open-v3", "PointMaze_OpenDense-v3"])
def test_point_maze_terminates_when_not_continuing(task_id: str) -> None:
    """continuing_task=False: reaching the goal terminates the episode (in both implementations)."""
    stats = lockstep(task_id, seed=9, steps=150, policy=_seek(2.0, 0.5), continuing_task=False)
    assert stats.terminated.sum() >= 2


def test_point_maze_reset_target() -> None:
    """continuing_task with reset_target=True: a reached goal is replaced by a new one, drawn from
    the same generator as the reference's."""
    goals: list[np.ndarray] = []
    stats = lockstep(
        "PointMaze_Open_Diverse_GR-v3", seed=4, steps=200, policy=_seek(2.0, 0.5, goals), reset_target=True
    )
    changes = sum(int((a != b).any(axis=-1).sum()) for a, b in zip(goals, goals[1:], strict=False))
    assert changes >= 2 and stats.terminated.sum() == 0 and stats.truncated.sum() == 0


@pytest.mark.deep
@pytest.mark.parametrize(("seed", "mode"), zip([0, 77, 2**33 + 1], MODES, strict=True))
@pytest.mark.parametrize("task_id", [i for i in POINT_MAZE_IDS + ANT_MAZE_IDS if "Large" in i or "UMaze" in i])
def test_maze_lockstep_deep(task_id: str, seed: int, mode: str) -> None:
    """Several seeds (one per autoreset mode), three envs, three episodes each."""
    ant = task_id.startswith("Ant")
    limit = 30 if ant else 60
    stats = lockstep(
        task_id, seed=seed, steps=3 * limit + 3, num_envs=3, mode=mode, action_seed=seed % 31, max_episode_steps=limit
    )
    assert (stats.episodes >= 3).all()


@pytest.mark.deep
@pytest.mark.parametrize("task_id", ["AntMaze_UMaze-v4", "AntMaze_Open_Diverse_GRDense-v5"])
def test_ant_maze_full_episode(task_id: str) -> None:
    """A whole episode at the registered time limit (700 steps), one env."""
    stats = lockstep(task_id, seed=1, steps=702, num_envs=1)
    assert stats.truncated.tolist() == [1]


# ----------------------------------------------------------------------------------------- Adroit
@pytest.mark.parametrize("task_id", ADROIT_IDS)
def test_adroit_lockstep(task_id: str) -> None:
    """One seed, two envs, a 10-step time limit: episode ends and autoresets (new placements)."""
    stats = lockstep(task_id, seed=3, steps=23, max_episode_steps=10)
    assert (stats.episodes == 2).all()


@pytest.mark.deep
@pytest.mark.parametrize(("seed", "mode"), zip([0, 99, 2**35 + 7], MODES, strict=True))
@pytest.mark.parametrize("task_id", ADROIT_IDS)
def test_adroit_lockstep_deep(task_id: str, seed: int, mode: str) -> None:
    """Several seeds (one per autoreset mode), three envs, whole episodes at the registered time
    limit (200)."""
    stats = lockstep(task_id, seed=seed, steps=203, num_envs=3, mode=mode, action_seed=seed % 13)
    assert (stats.episodes == 1).all()


# ----------------------------------------------------------------------------------- Shadow Hand
@pytest.mark.parametrize("task_id", HAND_IDS)
def test_hand_lockstep(task_id: str) -> None:
    """One seed, one env, a 3-step time limit: two episode ends and autoresets (new placements)."""
    stats = lockstep(task_id, seed=2, steps=8, num_envs=1, max_episode_steps=3)
    assert stats.episodes.tolist() == [2]


@pytest.mark.deep
@pytest.mark.parametrize(("seed", "mode"), [(0, "next_step"), (4321, "same_step")])
@pytest.mark.parametrize(
    "task_id",
    [
        "HandReach-v3",
        "HandManipulateBlock-v1",
        "HandManipulateBlockRotateParallelDense-v1",
        "HandManipulateEggRotate_BooleanTouchSensors-v1",
        "HandManipulatePen_ContinuousTouchSensorsDense-v1",
        "HandManipulatePenRotate-v1",
    ],
)
def test_hand_lockstep_deep(task_id: str, seed: int, mode: str) -> None:
    """Several seeds and autoreset modes, whole episodes at the registered time limits (50, 100),
    two envs."""
    steps = 103 if task_id.startswith("HandManipulate") else 53
    stats = lockstep(task_id, seed=seed, steps=steps, mode=mode, action_seed=seed % 7)
    assert (stats.episodes == 1).all()


# ---------------------------------------------------------------------------------------- Kitchen
def test_kitchen_lockstep() -> None:
    """One seed, two envs, a 10-step limit: episode ends and autoresets."""
    stats = lockstep("FrankaKitchen-v1", seed=4, steps=22, ref_wrappers=[KitchenTaskMasks], max_episode_steps=10)
    assert (stats.episodes == 2).all()


@pytest.mark.deep
@pytest.mark.parametrize(("seed", "mode"), zip([0, 31, 2**36 + 3], MODES, strict=True))
def test_kitchen_lockstep_deep(seed: int, mode: str) -> None:
    """Several seeds (one per autoreset mode), a whole episode at the registered time limit (280),
    two envs."""
    stats = lockstep(
        "FrankaKitchen-v1", seed=seed, steps=283, mode=mode, ref_wrappers=[KitchenTaskMasks], action_seed=seed % 5
    )
    assert (stats.episodes == 1).all()
