"""Bad kwargs and actions get clear Python exceptions naming the problem."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import envhive


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"area": [0, 64]}, "area"),
        ({"area": [-5, 64]}, "area"),
        ({"area": [10**7, 64]}, "area"),
        ({"area": [float("nan"), 64]}, "area"),
        ({"area": [64]}, "area"),
        ({"view": [3, 3]}, "inventory rows"),
        ({"view": [9.5, 9]}, "view"),
        ({"size": [9, 9]}, "size"),
        ({"size": [64, 10**6]}, "size"),
        ({"length": -1}, "length"),
    ],
)
def test_bad_kwargs_raise_value_error(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        envhive.make("CrafterReward-v1", num_envs=1, **kwargs)


def test_wrong_kwarg_type_raises() -> None:
    with pytest.raises((TypeError, ValueError)):
        envhive.make("CrafterReward-v1", num_envs=1, area="big")


@pytest.mark.parametrize("action", [17, -1])
def test_bad_action_is_refused_naming_the_env(action: int) -> None:
    """The pool checks Discrete actions before any env sees them (the task checks again and would
    raise an EnvError); the env is left untouched and steps on."""
    env = envhive.make("CrafterReward-v1", num_envs=2, seed=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=f"action {action} for env 1 .*Discrete\\(17\\)"):
        env.step(np.array([0, action]))
    obs, *_ = env.step(np.array([0, 0]))
    assert obs.shape == (2, 64, 64, 3)
    env.close()
