"""Bad kwargs and actions on envhive's MPE tasks are clear Python errors naming the problem, raised
before anything is allocated: counts at 0, negative, huge or over the agent bound, NaN or out-of-range
local_ratio, wrong types, unknown kwargs; a Discrete action out of range is an EnvError with the
env's id; a NaN continuous action is refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import envhive


@pytest.mark.parametrize(
    ("task_id", "kwargs", "error", "match"),
    [
        ("simple_spread_v3", {"N": 0}, ValueError, r"N must be in \[1, 64\]"),
        ("simple_spread_v3", {"N": -3}, ValueError, r"N must be in \[1, 64\].*got -3"),
        ("simple_spread_v3", {"N": 10**12}, ValueError, r"N must be in \[1, 64\]"),
        ("simple_spread_v3", {"N": 65}, ValueError, r"got 65"),
        ("simple_spread_v3", {"N": "3"}, TypeError, r"'N' must be of type int"),
        ("simple_spread_v3", {"N": 2.5}, TypeError, r"'N' must be of type int"),
        ("simple_spread_v3", {"local_ratio": float("nan")}, ValueError, r"simple_spread_v3: local_ratio is NaN"),
        ("simple_spread_v3", {"local_ratio": -0.1}, ValueError, r"local_ratio must be in \[0, 1\]"),
        ("simple_reference_v3", {"local_ratio": 1.5}, ValueError, r"local_ratio must be in \[0, 1\]"),
        ("simple_spread_v3", {"max_cycles": 0}, ValueError, r"max_cycles must be in \[1, "),
        ("simple_v3", {"max_cycles": -5}, ValueError, r"max_cycles must be in \[1, "),
        ("simple_v3", {"continuous_actions": 1}, TypeError, r"'continuous_actions' must be of type bool"),
        ("simple_v3", {"N": 3}, TypeError, r"unknown kwarg 'N'"),
        ("simple_adversary_v3", {"N": 0}, ValueError, r"N must be in \[1, 63\]"),
        ("simple_adversary_v3", {"N": 64}, ValueError, r"N must be in \[1, 63\]"),
        ("simple_tag_v3", {"num_good": 0, "num_adversaries": 0}, ValueError, r"num_good \+ num_adversaries"),
        ("simple_tag_v3", {"num_good": -1}, ValueError, r"num_good must be in"),
        ("simple_tag_v3", {"num_good": 40, "num_adversaries": 40}, ValueError, r"got 80"),
        ("simple_tag_v3", {"num_obstacles": 10**9}, ValueError, r"num_obstacles must be in \[0, 1024\]"),
        ("simple_spread_v3", {"num_agent_neighbors": -1}, ValueError, r"num_agent_neighbors must be in \[0, 64\]"),
        ("simple_tag_v3", {"num_landmark_neighbors": 10**6}, ValueError, r"num_landmark_neighbors must be in"),
        ("simple_world_comm_v3", {"num_good": 0}, ValueError, r"num_good must be in \[1, 64\]"),
        ("simple_world_comm_v3", {"num_food": 0}, ValueError, r"num_food must be in \[1, 1024\]"),
        ("simple_world_comm_v3", {"num_forests": -1}, ValueError, r"num_forests must be in"),
        ("simple_world_comm_v3", {"num_good": 50, "num_adversaries": 50}, ValueError, r"at most 64"),
    ],
)
def test_bad_kwargs(task_id: str, kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        envhive.make(task_id, num_envs=1, **kwargs)


def test_discrete_action_out_of_range_is_an_env_error() -> None:
    pool = envhive.make("simple_spread_v3", num_envs=2, seed=0)
    pool.reset()
    with pytest.raises(envhive.EnvError, match=r"env 1 raised: action 7 of agent 'agent_1' is not in Discrete\(5\)"):
        pool.step(np.array([[0, 0, 0], [0, 7, 0]], dtype=np.int64))
    pool.close()


def test_negative_discrete_action_is_an_env_error() -> None:
    pool = envhive.make("simple_reference_v3", num_envs=1, seed=0)
    pool.reset()
    with pytest.raises(envhive.EnvError, match=r"action -1 of agent 'agent_0' is not in Discrete\(50\)"):
        pool.step(np.array([[-1, 0]], dtype=np.int64))
    pool.close()


def test_nan_continuous_action_is_refused() -> None:
    pool = envhive.make("simple_spread_v3", num_envs=1, seed=0, continuous_actions=True)
    pool.reset()
    action = np.full((1, 15), 0.5, np.float32)
    action[0, 7] = np.nan
    with pytest.raises((ValueError, envhive.EnvError), match=r"(?i)nan"):
        pool.step(action)
    pool.close()
