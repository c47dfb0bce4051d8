"""crafter's constructor kwargs (area, view, size, length) on envhive's Crafter, step for step
against crafter built with the same kwargs."""

from __future__ import annotations

from typing import Any

import pytest
from crafter_helpers import lockstep

import envhive

ODD = {"area": [40, 52], "view": [7, 11], "size": [90, 72], "length": 60}


def test_kwargs_match_crafter() -> None:
    """A smaller world, a non-square view and image, and crafter's own episode length (a
    truncation): each env is cut at 60 steps, resets, and plays on."""
    seen = lockstep("CrafterReward-v1", 2, 2, 130, **ODD)
    assert seen["ends"] >= 2, seen


def test_length_is_a_truncation() -> None:
    env = envhive.make("CrafterNoReward-v1", num_envs=1, seed=0, length=5, view=[9, 9])
    env.reset(seed=0)
    for _t in range(5):
        _, reward, term, trunc, _ = env.step([0])
        assert reward[0] == 0.0
    assert bool(trunc[0]) and not bool(term[0])
    env.close()


def test_observation_space_follows_size() -> None:
    env = envhive.make("CrafterReward-v1", num_envs=2, size=[90, 72])
    assert env.single_observation_space.shape == (72, 90, 3)  # crafter's images are (y, x, 3)
    assert env.single_action_space.n == 17
    env.close()


@pytest.mark.deep
@pytest.mark.parametrize(
    "kwargs",
    [
        {"view": [5, 8], "size": [40, 40], "length": 120},
        {"area": [20, 20], "length": 40},
        {"size": [128, 128], "length": 120},
        {"area": [100, 70], "view": [13, 13], "size": [100, 100], "length": 120},
    ],
)
def test_kwargs_matrix_matches_crafter(kwargs: dict[str, Any]) -> None:
    seen = lockstep("CrafterReward-v1", 2, 7, 160, **kwargs)
    assert seen["ends"] >= 1, seen
