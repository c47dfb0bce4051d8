"""mpe2's kwargs on envhive's MPE tasks: the same agents, spaces and step-for-step behaviour as mpe2
built with the same kwargs (agent counts, local_ratio, max_cycles, terminate_on_success,
continuous_actions, and the partial-observability limits num_agent_neighbors /
num_landmark_neighbors: the nearest by np.linalg.norm, numpy's BLAS dot, zero-padded)."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from mpe_helpers import TASK_IDS, lockstep

import envhive
from envhive.families.mpe import reference_parallel_env

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# (task id, kwargs): counts at their edges, local_ratio at both ends.
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("simple_spread_v3", {"N": 1}),
    ("simple_spread_v3", {"N": 5, "local_ratio": 0.0}),
    ("simple_spread_v3", {"N": 2, "local_ratio": 1.0}),
    ("simple_spread_v3", {"N": 3, "local_ratio": 0.3}),
    ("simple_spread_v3", {"num_agent_neighbors": 1}),
    ("simple_spread_v3", {"num_agent_neighbors": 4, "num_landmark_neighbors": 2}),  # 4 > 2 others: padding
    ("simple_adversary_v3", {"num_agent_neighbors": 2, "num_landmark_neighbors": 1}),
    ("simple_adversary_v3", {"N": 3, "num_landmark_neighbors": 5}),
    ("simple_tag_v3", {"num_agent_neighbors": 2, "num_landmark_neighbors": 1}),
    ("simple_tag_v3", {"num_agent_neighbors": 5, "num_landmark_neighbors": 3}),
    ("simple_adversary_v3", {"N": 1}),
    ("simple_adversary_v3", {"N": 4}),
    ("simple_tag_v3", {"num_good": 2, "num_adversaries": 4, "num_obstacles": 0}),
    ("simple_tag_v3", {"num_good": 3, "num_adversaries": 0, "num_obstacles": 1}),
    ("simple_tag_v3", {"num_good": 0, "num_adversaries": 2, "num_obstacles": 3}),
    ("simple_reference_v3", {"local_ratio": 0.0}),
    ("simple_reference_v3", {"local_ratio": 0.9}),
    (
        "simple_world_comm_v3",
        {"num_good": 1, "num_adversaries": 1, "num_obstacles": 0, "num_food": 1, "num_forests": 0},
    ),
    (
        "simple_world_comm_v3",
        {"num_good": 3, "num_adversaries": 2, "num_obstacles": 2, "num_food": 3, "num_forests": 3},
    ),
    ("simple_world_comm_v3", {"num_good": 2, "num_adversaries": 0, "num_food": 2}),
]


def _spaces_match(task_id: str, kwargs: dict[str, Any]) -> None:
    pool = envhive.make(task_id, num_envs=1, **kwargs)
    ref = reference_parallel_env(task_id, **kwargs)
    try:
        agents = list(ref.possible_agents)
        obs_space = pool.single_observation_space
        assert isinstance(obs_space, gymnasium.spaces.Dict)
        assert list(obs_space.spaces) == agents
        for a in agents:
            assert obs_space[a].shape == ref.observation_space(a).shape, (task_id, a)
            assert obs_space[a].dtype == np.float32
        act = pool.single_action_space
        if kwargs.get("continuous_actions"):
            ref_sizes = [ref.action_space(a).shape[0] for a in agents]
            assert act.shape == (sum(ref_sizes),) and act.dtype == np.float32
            assert np.all(act.low == 0.0) and np.all(act.high == 1.0)
        else:
            assert act.dtype == np.int64 and act.shape == (len(agents),)
            assert list(act.high + 1) == [ref.action_space(a).n for a in agents]
            assert np.all(act.low == 0)
    finally:
        pool.close()
        ref.close()


@pytest.mark.parametrize("continuous", [False, True])
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_default_spaces_match_mpe2(task_id: str, continuous: bool) -> None:
    _spaces_match(task_id, {"continuous_actions": continuous})


@pytest.mark.parametrize(("task_id", "kwargs"), VARIANTS[::3])
def test_kwargs_lockstep(task_id: str, kwargs: dict[str, Any]) -> None:
    _spaces_match(task_id, kwargs)
    assert lockstep(task_id, seed=4, num_envs=2, steps=30, max_cycles=12, **kwargs)["episode_ends"] >= 4


def test_none_neighbors_is_mpe2s_default() -> None:
    """num_agent_neighbors=None / num_landmark_neighbors=None (mpe2's defaults, full observability)
    are taken as written in mpe2 code (None is the default, 0 here)."""
    kwargs = {"num_agent_neighbors": None, "num_landmark_neighbors": None}
    _spaces_match("simple_tag_v3", kwargs)
    assert lockstep("simple_tag_v3", seed=1, num_envs=1, steps=12, max_cycles=5, **kwargs)["episode_ends"] == 2


def test_max_cycles_truncates_every_agent_at_that_step() -> None:
    pool = envhive.make("simple_adversary_v3", num_envs=1, seed=0, max_cycles=3)
    pool.reset()
    for t in range(3):
        _, _, term, trunc, info = pool.step(np.zeros((1, 3), np.int64))
        assert bool(trunc[0]) == (t == 2) and not term[0]
        assert info["agent_truncated"][0].tolist() == [t == 2] * 3
    pool.close()


@pytest.mark.parametrize("task_id", ["simple_spread_v3", "simple_tag_v3"])
def test_terminate_on_success(task_id: str) -> None:
    """terminate_on_success ends the episode (terminations) when the goal is met: one agent on its
    one landmark (spread), the one good agent touched by one of six adversaries (tag); random
    actions get there in some of 16 envs within 100 steps (seed 0: 2 and 4+)."""
    kwargs: dict[str, Any] = {"terminate_on_success": True, "max_cycles": 100}
    if task_id == "simple_spread_v3":
        kwargs["N"] = 1
    else:
        kwargs.update(num_good=1, num_adversaries=6, num_obstacles=0)
    counts = lockstep(task_id, seed=0, num_envs=16, steps=100, **kwargs)
    assert counts["terminations"] >= 1, counts


@pytest.mark.deep
@pytest.mark.parametrize("continuous", [False, True])
@pytest.mark.parametrize(("task_id", "kwargs"), VARIANTS)
def test_deep_kwargs_lockstep(task_id: str, kwargs: dict[str, Any], continuous: bool) -> None:
    _spaces_match(task_id, {**kwargs, "continuous_actions": continuous})
    for seed in (1, 99):
        counts = lockstep(
            task_id, seed=seed, num_envs=2, steps=90, max_cycles=40, continuous_actions=continuous, **kwargs
        )
        assert counts["episode_ends"] >= 4


@pytest.mark.parametrize("task_id", ["simple_spread_v3", "simple_tag_v3"])
def test_curriculum_is_stage_zero_throughout(task_id: str) -> None:
    """curriculum=True is mpe2's curriculum mode at stage 0 (spread: no collision penalty; tag: the
    prey at half speed and acceleration). mpe2 1.1.1 never leaves stage 0: BaseScenario's
    ``curriculum_stage`` property (getter 0, no-op setter) swallows set_curriculum_stage /
    advance_curriculum, checked here on mpe2 itself; envhive matches it step for step over episodes."""
    ref = reference_parallel_env(task_id, curriculum=True)
    ref.unwrapped.set_curriculum_stage(1)
    ref.unwrapped.advance_curriculum()
    assert ref.unwrapped.curriculum_stage == 0
    ref.close()
    counts = lockstep(task_id, seed=8, num_envs=2, steps=70, max_cycles=30, curriculum=True)
    assert counts["episode_ends"] == 4
