"""Structured observations on the native pool: a Dict of every leaf kind (Box, Discrete, Text and a
Tuple), laid out one batch column per leaf and returned as views (StructuredDummy-v0, an engine
test task: csrc/envs/testing/structured_dummy.h)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

import envhive

TASK = "StructuredDummy-v0"


def expected(env_id: int, step: int, last: int) -> dict[str, object]:
    """What env `env_id` observes after `step` steps, its last action `last` (structured_dummy.h)."""
    return {
        "count": step,
        "mission": f"env {env_id} step {step}".encode(),
        "pair": ([env_id, step, last], last - 1),
    }


def check_row(obs: dict[str, object], row: int, env_id: int, step: int, last: int) -> None:
    want = expected(env_id, step, last)
    assert obs["pos"][row][1] == env_id  # type: ignore[index]
    assert obs["count"][row] == want["count"]  # type: ignore[index]
    assert obs["mission"][row] == want["mission"]  # type: ignore[index]
    triple, code = obs["pair"]  # type: ignore[misc]
    np.testing.assert_array_equal(triple[row], want["pair"][0])  # type: ignore[index]
    assert code[row] == want["pair"][1]


def test_the_space_keeps_the_declared_order_and_every_leaf_kind() -> None:
    env = envhive.make(TASK, num_envs=2)
    space = env.single_observation_space
    assert isinstance(space, spaces.Dict)
    assert list(space.spaces) == ["pos", "count", "mission", "pair"]
    assert isinstance(space["mission"], spaces.Text) and space["mission"].max_length == 24
    assert space["mission"].min_length == 1
    assert isinstance(space["pair"], spaces.Tuple)
    assert space["pair"][1] == spaces.Discrete(3, start=-1)
    info = envhive.registry.task_info(TASK)  # the manifest describes the same space (no module load)
    assert info.default_spaces is not None
    assert envhive.spaces.to_gym_space(info.default_spaces.observation) == space
    env.close()


def test_rows_are_contiguous_views_of_each_leaf() -> None:
    env = envhive.make(TASK, num_envs=3, seed=0)
    obs, _ = env.reset()
    assert list(obs) == ["pos", "count", "mission", "pair"]
    assert obs["pos"].shape == (3, 2) and obs["pos"].dtype == np.float32 and obs["pos"].flags.c_contiguous
    assert obs["count"].shape == (3,) and obs["count"].dtype == np.int64
    assert obs["mission"].shape == (3,) and obs["mission"].dtype == np.dtype("S24")
    assert obs["pair"][0].shape == (3, 3) and obs["pair"][0].dtype == np.int32
    assert np.char.decode(obs["mission"]).tolist() == ["env 0 step 0", "env 1 step 0", "env 2 step 0"]
    # the same numpy draws as Gymnasium's np_random from the same seeds
    for i in range(3):
        assert obs["pos"][i][0] == np.float32(np.random.default_rng(i).uniform(-1, 1))
    obs, reward, _, _, info = env.step(np.array([2, 1, 0]))
    for i, a in enumerate([2, 1, 0]):
        check_row(obs, i, i, 1, a)
    np.testing.assert_array_equal(reward, [2, 1, 0])
    np.testing.assert_array_equal(info["last_action"], [2, 1, 0])
    env.close()


def test_same_step_final_observations_are_structured() -> None:
    env = envhive.make(TASK, num_envs=2, autoreset_mode="same_step", episode_length=3)
    env.reset(seed=1)
    for _ in range(2):
        _, _, terminated, _, info = env.step(np.array([1, 1]))
        assert "final_obs" not in info and not terminated.any()
    obs, _, terminated, _, info = env.step(np.array([2, 0]))
    assert terminated.all() and info["_final_obs"].all()
    for i, a in enumerate([2, 0]):
        final = info["final_obs"][i]
        assert final["count"] == 3 and final["mission"] == f"env {i} step 3".encode()
        np.testing.assert_array_equal(final["pair"][0], [i, 3, a])
        check_row(obs, i, i, 0, 0)  # the next episode's first observation
    env.close()


def test_async_batches_carry_each_leaf_by_env_id() -> None:
    env = envhive.make(TASK, num_envs=4, batch_size=2, seed=0)
    env.async_reset()
    seen: dict[int, int] = dict.fromkeys(range(4), 0)
    for _ in range(10):
        obs, _, terminated, _, info = env.recv()
        for row, i in enumerate(info["env_id"].tolist()):
            check_row(obs, row, i, seen[i], int(obs["pair"][0][row][2]))
            seen[i] = 0 if terminated[row] else seen[i] + 1
        env.send(np.ones(2, dtype=np.int64), info["env_id"])
    env.close()


def test_the_dm_facade_gives_a_dict_of_arrays() -> None:
    dm = pytest.importorskip("dm_env")
    env = envhive.make_dm(TASK, num_envs=2)
    spec = env.observation_spec()
    assert list(spec) == ["pos", "count", "mission", "pair"]
    assert spec["mission"].dtype == np.dtype("S24")
    ts = env.reset()
    assert ts.step_type[0] == dm.StepType.FIRST and list(ts.observation) == list(spec)
    ts = env.step(np.array([1, 2]))
    check_row(ts.observation, 1, 1, 1, 2)
    env.close()


def test_the_dm_facade_declares_string_leaves_as_the_pool_returns_them() -> None:
    """Text leaves as ``str`` (``text_observations="str"``) and the process backend's minigrid
    ``MissionSpace`` (issue 40: refused as "no dm_env spec" before) are ``StringArray`` specs that
    validate every env's value, after reset and after steps."""
    dm = pytest.importorskip("dm_env")
    minigrid = pytest.importorskip("minigrid")
    minigrid.register_minigrid_envs()
    native = envhive.make_dm(TASK, num_envs=2, text_observations="str")
    process = envhive.make_dm("BabyAI-GoToLocal-v0", num_envs=2, backend="process", seed=3)
    for env in (native, process):
        spec = env.observation_spec()
        assert isinstance(spec["mission"], dm.specs.StringArray)
        steps = [env.reset(), env.step(np.array([1, 2])), env.step(np.array([2, 1]))]
        for ts in steps:
            for i in range(2):
                for key, leaf in spec.items():
                    if isinstance(leaf, tuple):  # the test task's Tuple leaf: one spec per item
                        for j, item in enumerate(leaf):
                            item.validate(ts.observation[key][j][i])
                    else:
                        leaf.validate(ts.observation[key][i])
            assert all(isinstance(m, str) and m for m in ts.observation["mission"])
        env.close()
