"""A task's kwargs at the values an adversarial user tries (issue 40's sweep, tools/edge_sweep.py):
NaN configures nothing and is refused for every number of every task, in lists and tables too;
probabilities are refused outside [0, 1]. Each before any env is made (make_spec refuses too)."""

from __future__ import annotations

import math

import pytest

import envhive


@pytest.mark.parametrize(
    ("task_id", "kwargs"),
    [
        ("Pendulum-v1", {"g": math.nan}),
        ("MountainCar-v0", {"goal_velocity": math.nan}),
        ("FrozenLake-v1", {"reward_schedule": [1.0, math.nan, 0.0]}),
        ("HalfCheetah-v5", {"default_camera_config": {"distance": [math.nan]}}),
    ],
)
def test_nan_is_refused_for_every_number(task_id: str, kwargs: dict) -> None:
    name = next(iter(kwargs))
    for make in (envhive.make_spec, envhive.make):
        with pytest.raises(ValueError, match=rf"{task_id}: {name} is NaN"):
            make(task_id, **kwargs)


@pytest.mark.parametrize(
    ("task_id", "name"),
    [("FrozenLake-v1", "success_rate"), ("Taxi-v4", "rainy_probability"), ("Taxi-v4", "fickle_probability")],
)
@pytest.mark.parametrize("value", [-1.0, 1.5, math.inf])
def test_probabilities_outside_0_1_are_refused(task_id: str, name: str, value: float) -> None:
    for make in (envhive.make_spec, envhive.make):
        with pytest.raises(ValueError, match=rf"{name} must be in \[0, 1\] \(a probability\)"):
            make(task_id, **{name: value})
    envhive.make(task_id, num_envs=1, **{name: 0.0}).close()  # the ends are probabilities
    envhive.make(task_id, num_envs=1, **{name: 1.0}).close()


def test_unusual_physics_is_still_the_users_choice() -> None:
    """Gymnasium runs Pendulum with any finite g (a negative one too); envhive does not refuse it."""
    env = envhive.make("Pendulum-v1", num_envs=1, g=-1.0)
    env.reset(seed=0)
    env.close()
