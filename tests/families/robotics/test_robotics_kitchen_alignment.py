"""Lock-step tests of FrankaKitchen-v1 against the real gymnasium-robotics 1.4.x (with the tests'
MuJoCo 4 shim).

Env i of a pool made with seed=s plays the episodes of gymnasium.make("FrankaKitchen-v1") reset with
seed=s+i first and without a seed afterwards: the robot env's generator draws the observation noise
(robot joints, then objects) at every reset and step, in the reference's order. Bit for bit: the
observation (noisy joints and objects), both goal Dicts, rewards (tasks completed at the step),
terminations. The reference's infos are lists of task names (their order follows a Python set's, so
it varies from process to process); envhive reports them as boolean masks over the seven tasks in
kitchen_env.py's order, compared here as sets.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from robotics_helpers import lockstep

import envhive

TASKS = ("bottom burner", "top burner", "light switch", "slide cabinet", "hinge cabinet", "microwave", "kettle")


def _masks(info: dict[str, Any]) -> dict[str, np.ndarray]:
    return {key: np.array([t in info[key] for t in TASKS]) for key in info}


def test_kitchen_lockstep() -> None:
    """One seed, two envs, a 10-step limit: episode ends and autoresets."""
    counts = lockstep("FrankaKitchen-v1", seed=4, steps=22, info_of=_masks, max_episode_steps=10)
    assert counts["ends"] == 4 and counts["resets"] == 4


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
    counts = lockstep(
        "FrankaKitchen-v1", seed=8, steps=13, info_of=_masks, ref_kwargs=ref_kwargs, max_episode_steps=12, **kwargs
    )
    assert counts["ends"] == 2


def test_kitchen_bad_task_name() -> None:
    with pytest.raises(ValueError, match="unknown task 'oven'"):
        envhive.make("FrankaKitchen-v1", num_envs=1, tasks_to_complete="microwave, oven")


@pytest.mark.deep
@pytest.mark.parametrize("seed", [0, 31, 2**36 + 3])
def test_kitchen_lockstep_deep(seed: int) -> None:
    """Several seeds, a whole episode at the registered time limit (280), two envs."""
    counts = lockstep("FrankaKitchen-v1", seed=seed, steps=283, info_of=_masks, action_seed=seed % 5)
    assert counts["ends"] == 2 and counts["resets"] == 2
