"""Gymnasium-Robotics (``envhive._robotics``): everything the Python side knows about the family.

- ``assets_dir()``: the installed gymnasium-robotics package's model folder, which the C++ tasks
  load their XML from (found without importing the package, which imports PettingZoo).
- The goal-conditioned API of its GoalEnv tasks: ``compute_reward`` / ``compute_terminated`` /
  ``compute_truncated`` over batches of goals, callable without stepping (HER relabels with them):
  ``goal_methods(spec)`` gives them for a pool's task, and every envhive facade answers them
  (``HiveVectorEnv``, the single env, SB3's ``env_method``). They compute exactly what the
  reference's methods compute, with the same numpy operations, so relabelled rewards are equal
  bit for bit.
- The id lists, the pip extra and EnvPool's names of the tasks.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

EXTRA = "robotics"
REQUIRES = "gymnasium_robotics"
REFERENCE = "gymnasium-robotics"
FAMILY = "robotics"

FETCH_TASKS = ("Reach", "Push", "Slide", "PickAndPlace")
FETCH_IDS = tuple(f"Fetch{t}{dense}-v4" for t in FETCH_TASKS for dense in ("", "Dense"))
ALL_IDS = FETCH_IDS

# The goal methods every GoalEnv facade answers.
GOAL_METHODS = ("compute_reward", "compute_terminated", "compute_truncated")

# EnvPool 1.2.5's ids of these tasks (EnvPool's Gymnasium-Robotics port), where it has them.
ENVPOOL_IDS: dict[str, str] = {}


def assets_dir() -> str | None:
    """gymnasium_robotics/envs/assets of the installed package, or None when it is not installed."""
    spec = importlib.util.find_spec("gymnasium_robotics")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "envs" / "assets"
    return str(folder) if folder.is_dir() else None


@dataclass(frozen=True)
class DistanceGoal:
    """The goal test of Fetch: the Euclidean distance between achieved and desired goals (over the
    last axis) against ``distance_threshold``; sparse rewards are -1 / 0 (float32), dense ones minus
    the distance. Tasks never terminate nor truncate by themselves (the time limit is the pool's)."""

    dense: bool
    distance_threshold: float

    def distance(self, achieved_goal: Any, desired_goal: Any) -> Any:
        achieved_goal = np.asarray(achieved_goal)
        desired_goal = np.asarray(desired_goal)
        if achieved_goal.shape != desired_goal.shape:
            raise ValueError(
                f"achieved_goal and desired_goal must have the same shape, got {achieved_goal.shape} "
                f"and {desired_goal.shape}"
            )
        return np.linalg.norm(achieved_goal - desired_goal, axis=-1)

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        d = self.distance(achieved_goal, desired_goal)
        if self.dense:
            return -d
        return -(d > self.distance_threshold).astype(np.float32)

    def compute_terminated(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        return _never(achieved_goal)

    def compute_truncated(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        return _never(achieved_goal)


def _never(achieved_goal: Any) -> Any:
    """False for one goal (the reference's plain ``False``), an array of False for a batch."""
    shape = np.shape(achieved_goal)[:-1]
    return False if shape == () else np.zeros(shape, dtype=bool)


def goal_functions(task_id: str, config: dict[str, Any]) -> DistanceGoal | None:
    """The goal test of a task with its kwargs, or None for a task that is not a GoalEnv."""
    if task_id in FETCH_IDS:
        reward_type = config.get("reward_type", "sparse")
        if reward_type not in ("sparse", "dense"):
            raise ValueError(f"reward_type must be 'sparse' or 'dense', got {reward_type!r}")
        return DistanceGoal(dense=reward_type == "dense", distance_threshold=0.05)
    return None


def goal_methods(task_id: str, family: str, config: dict[str, Any]) -> dict[str, Callable[..., Any]]:
    """compute_reward / compute_terminated / compute_truncated of a pool's task, by name (empty for
    a task of another family or one that is not a GoalEnv)."""
    if family != FAMILY:
        return {}
    goal = goal_functions(task_id, config)
    if goal is None:
        return {}
    return {name: getattr(goal, name) for name in GOAL_METHODS}
