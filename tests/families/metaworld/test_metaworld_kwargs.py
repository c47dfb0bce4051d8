"""Kwargs and ids: EnvPool's MetaWorld/<Name>-v3 through envhive.envpool (its config fields, its goal
hidden by default), envhive list / info, and the spaces every id declares."""

from __future__ import annotations

import numpy as np
import pytest

import envhive
import envhive.envpool as envpool
from envhive.envpool.errors import EnvPoolArgumentError
from envhive.families.metaworld import TASKS, envpool_name


def test_envpool_ids_and_config() -> None:
    ours = set(envpool.list_all_envs())
    assert {envpool_name(t) for t in TASKS} <= ours
    spec = envpool.make_spec("MetaWorld/ButtonPressTopdownWall-v3")
    c = spec.config
    assert (c.task_name, c.frame_skip, c.frame_stack, c.max_episode_steps, c.partially_observable) == (
        "button-press-topdown-wall-v3", 5, 1, 500, True)  # fmt: skip
    env = envpool.make_gymnasium("MetaWorld/Reach-v3", num_envs=3, seed=1)
    obs, info = env.reset()
    assert obs.shape == (3, 39) and obs.dtype == np.float64
    np.testing.assert_array_equal(obs[:, 36:], 0.0)  # goal hidden, as EnvPool's default
    obs, *_ = env.step(np.zeros((3, 4), np.float32))
    for key in ("success", "near_object", "grasp_success", "grasp_reward", "in_place_reward", "obj_to_target",
                "unscaled_reward", "env_id", "elapsed_step"):  # fmt: skip
        assert key in info
    observed = envpool.make_gymnasium("MetaWorld/Reach-v3", num_envs=1, seed=1, partially_observable=False)
    assert np.abs(observed.reset()[0][0, 36:]).sum() > 0


def test_envpool_kwargs_envhive_cannot_run() -> None:
    with pytest.raises(EnvPoolArgumentError, match="frame_skip=2"):
        envpool.make_spec("MetaWorld/Reach-v3", frame_skip=2)
    with pytest.raises(EnvPoolArgumentError, match="names another task"):
        envpool.make_spec("MetaWorld/Reach-v3", task_name="push-v3")


def test_catalog_lists_every_id() -> None:
    ids = set(envhive.list_envs())
    for t in TASKS:
        assert f"Meta-World/{t}" in ids and envpool_name(t) in ids
    for b in ("MT1", "MT10", "MT25", "MT50", "goal_observable", "goal_hidden"):
        assert f"Meta-World/{b}" in ids
    for b in ("ML1", "ML10", "ML25", "ML45"):
        assert {f"Meta-World/{b}-train", f"Meta-World/{b}-test"} <= ids
    from envhive.registry import task_info

    info = task_info("Meta-World/MT10")
    assert info.family == "metaworld"


@pytest.mark.parametrize(
    ("task_id", "kwargs", "size"),
    [
        ("Meta-World/reach-v3", {}, 39),
        ("Meta-World/MT10", {"use_one_hot": True}, 49),
        ("Meta-World/MT50", {"use_one_hot": True, "num_tasks": 64}, 103),
        ("Meta-World/ML45-train", {"meta_batch_size": 45}, 39),
    ],
)
def test_spaces(task_id: str, kwargs: dict, size: int) -> None:
    spec = envhive.make_spec(task_id, **kwargs)
    assert spec.observation_space.shape == (size,)
    assert spec.action_space.shape == (4,) and spec.action_space.dtype == np.float32
    np.testing.assert_array_equal(spec.action_space.low, -1)
    if size > 39:  # the one-hot's bounds
        np.testing.assert_array_equal(spec.observation_space.low[39:], 0)
        np.testing.assert_array_equal(spec.observation_space.high[39:], 1)


@pytest.mark.parametrize(
    ("task_id", "batch"),
    [
        ("Meta-World/ML1-train", 1),
        ("Meta-World/ML1-test", 1),
        ("Meta-World/ML10-train", 20),
        ("Meta-World/ML10-test", 5),
        ("Meta-World/ML25-train", 25),
        ("Meta-World/ML25-test", 5),
        ("Meta-World/ML45-train", 45),
        ("Meta-World/ML45-test", 5),
    ],
)
def test_ml_default_meta_batch_size(task_id: str, batch: int) -> None:
    """Meta-World's default meta_batch_size, 20, where it splits the split's classes and their 50 tasks
    evenly (ML10-train); one env per class where Meta-World's own default raises (its assertion)."""
    from envhive.registry import task_info

    assert task_info(task_id).defaults["meta_batch_size"] == batch
    assert envhive.make_spec(task_id).observation_space.shape == (39,)


def test_every_id_resolves_its_default_config() -> None:
    ids = [i for i in envhive.list_envs() if i.startswith(("Meta-World/", "MetaWorld/"))]
    assert len(ids) == 114
    for task_id in ids:
        assert envhive.make_spec(task_id).action_space.shape == (4,), task_id
