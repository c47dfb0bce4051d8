"""The robotics tasks' kwargs, lock-step with the reference given the same kwargs (its spelling of
them where it differs): reward_type against the id's default, and FrankaKitchen's task set,
termination and noise (the mazes' continuing_task and reset_target: test_robotics_alignment.py)."""

from __future__ import annotations

from typing import Any

import pytest
from robotics_helpers import KitchenTaskMasks, lockstep


@pytest.mark.parametrize("task_id", ["FetchReach-v4", "FetchPushDense-v4", "HandReach-v3", "PointMaze_UMazeDense-v3"])
def test_reward_type_kwarg(task_id: str) -> None:
    """reward_type overrides the id's default, as gymnasium.make(id, reward_type=...) does."""
    other = "dense" if "Dense" not in task_id else "sparse"
    lockstep(task_id, seed=3, steps=12, num_envs=1, reward_type=other, max_episode_steps=10, min_episodes=1)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"tasks_to_complete": "microwave, kettle"},
        {"terminate_on_tasks_completed": False, "remove_task_when_completed": False},
        {"object_noise_ratio": 0.01, "robot_noise_ratio": 0.0},
    ],
)
def test_kitchen_kwargs(kwargs: dict[str, Any]) -> None:
    """The reference's kwargs (tasks_to_complete: a list there, comma-separated here)."""
    ref_kwargs = dict(kwargs, max_episode_steps=12)
    if "tasks_to_complete" in kwargs:
        ref_kwargs["tasks_to_complete"] = [t.strip() for t in kwargs["tasks_to_complete"].split(",")]
    lockstep(
        "FrankaKitchen-v1",
        seed=8,
        steps=13,
        ref_kwargs=ref_kwargs,
        ref_wrappers=[KitchenTaskMasks],
        max_episode_steps=12,
        min_episodes=1,
        **kwargs,
    )
