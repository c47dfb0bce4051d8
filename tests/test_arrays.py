"""Returned arrays: dtypes, shapes, and no aliasing between calls (or with a closed pool)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import envhive
from helpers import random_actions


def _flatten(out: tuple) -> dict[str, np.ndarray]:
    """Every array of a step's output (SAME_STEP final_obs entries included), by name."""
    obs, rew, term, trunc, info = out
    arrays = {"obs": obs, "reward": rew, "terminated": term, "truncated": trunc}
    for key, value in info.items():
        if key == "final_obs":
            for i, o in enumerate(value):
                if o is not None:
                    arrays[f"final_obs[{i}]"] = o
        elif key == "final_info":
            arrays.update({f"final_info.{k}": v for k, v in value.items()})
        else:
            arrays[f"info.{key}"] = value
    return arrays


@pytest.mark.parametrize(
    ("task_id", "kw"),
    [
        ("CartPole-v1", {"autoreset_mode": "next_step"}),
        ("CartPole-v1", {"autoreset_mode": "same_step"}),
        ("Pendulum-v1", {"autoreset_mode": "same_step", "max_episode_steps": 7}),
        ("Dummy-v0", {"episode_length": 4, "autoreset_mode": "same_step"}),
        ("CartPole-v1", {"batch_size": 3}),
        ("Dummy-v0", {"batch_size": 2, "episode_length": 5}),
    ],
)
def test_outputs_are_not_overwritten_by_later_steps(task_id: str, kw) -> None:
    n = 6
    env = envhive.make(task_id, num_envs=n, num_threads=2, **kw)
    rng = np.random.default_rng(0)
    kept: list[tuple[dict[str, np.ndarray], dict[str, np.ndarray]]] = []

    def keep(out: tuple) -> None:
        arrays = _flatten(out)
        kept.append((arrays, {k: v.copy() for k, v in arrays.items()}))

    obs, info = env.reset()
    keep((obs, np.zeros(0), np.zeros(0), np.zeros(0), info))
    ids = info["env_id"]
    for _ in range(50):
        out = env.step(random_actions(env.single_action_space, len(ids), rng), None if env.batch_size == n else ids)
        ids = out[4]["env_id"]
        keep(out)
    ended = sum(int(a["terminated"].sum() + a["truncated"].sum()) for a, _ in kept)
    assert ended > 0
    for t, (arrays, copies) in enumerate(kept):
        for name, arr in arrays.items():
            np.testing.assert_array_equal(arr, copies[name], err_msg=f"call {t}: {name} changed")
    env.close()


def test_arrays_outlive_the_pool() -> None:
    env = envhive.make("CartPole-v1", num_envs=4, autoreset_mode="same_step")
    env.reset()
    outs = [env.step(np.ones(4, dtype=np.int64)) for _ in range(30)]
    copies = [tuple(np.array(x, copy=True) for x in out[:4]) for out in outs]
    env.close()
    del env
    gc.collect()
    # Build and run another pool of the same shape, which may reuse freed memory.
    other = envhive.make("CartPole-v1", num_envs=4, autoreset_mode="same_step")
    other.reset()
    for _ in range(30):
        other.step(np.zeros(4, dtype=np.int64))
    for out, cp in zip(outs, copies, strict=True):
        for a, b in zip(out[:4], cp, strict=True):
            np.testing.assert_array_equal(a, b)
    other.close()


def test_arrays_from_one_pool_do_not_share_memory() -> None:
    env = envhive.make("CartPole-v1", num_envs=4)
    obs0, info0 = env.reset()
    out1 = env.step(np.zeros(4, dtype=np.int64))
    out2 = env.step(np.zeros(4, dtype=np.int64))
    assert not np.shares_memory(obs0, out1[0])
    assert not np.shares_memory(out1[0], out2[0])
    assert not np.shares_memory(out1[1], out2[1])
    assert not np.shares_memory(out1[4]["env_id"], out2[4]["env_id"])
    assert not np.shares_memory(info0["elapsed_step"], out2[4]["elapsed_step"])


@pytest.mark.parametrize(
    ("task_id", "obs_shape", "obs_dtype"),
    [
        ("CartPole-v1", (4,), np.float32),
        ("Pendulum-v1", (3,), np.float32),
        ("MountainCar-v0", (2,), np.float32),
        ("MountainCarContinuous-v0", (2,), np.float32),
        ("Acrobot-v1", (6,), np.float32),
        ("Dummy-v0", (3,), np.float64),
    ],
)
@pytest.mark.parametrize("batch_size", [None, 2])
def test_output_dtypes_and_shapes(task_id: str, obs_shape: tuple, obs_dtype, batch_size) -> None:
    n = 5
    env = envhive.make(task_id, num_envs=n, batch_size=batch_size)
    rows = batch_size or n
    obs, info = env.reset()
    assert obs.shape == (rows, *obs_shape) and obs.dtype == obs_dtype
    assert obs in env.observation_space
    assert set(info) >= {"env_id", "elapsed_step"}
    assert not any(k.startswith("_") for k in info), "no mask keys for per-row info fields"
    actions = env.action_space.sample()
    obs, rew, term, trunc, info = env.step(actions, info["env_id"] if batch_size else None)
    assert obs.shape == (rows, *obs_shape) and obs.dtype == obs_dtype
    assert rew.shape == (rows,) and rew.dtype == np.float64
    assert term.shape == (rows,) and term.dtype == np.bool_
    assert trunc.shape == (rows,) and trunc.dtype == np.bool_
    assert info["env_id"].shape == (rows,) and info["env_id"].dtype == np.int32
    assert info["elapsed_step"].shape == (rows,) and info["elapsed_step"].dtype == np.int32
    assert not any(k.startswith("_") for k in info)
    for name, (dtype, shape) in env.task_spec.info_fields.items():
        assert info[name].dtype == dtype and info[name].shape == (rows, *shape)
    if batch_size is None:
        np.testing.assert_array_equal(info["env_id"], np.arange(n))
    env.close()


def test_dummy_info_fields_declared() -> None:
    spec = envhive.make_spec("Dummy-v0")
    assert spec.info_fields == {"last_action": (np.dtype(np.int64), ())}
    assert envhive.make_spec("CartPole-v1").info_fields == {}


def test_accepts_list_and_non_contiguous_actions() -> None:
    env = envhive.make("Dummy-v0", num_envs=3)
    env.reset()
    _, rew, *_ = env.step([4, 5, 6])
    np.testing.assert_array_equal(rew, [4, 5, 6])
    strided = np.arange(6, dtype=np.int32)[::2]
    _, rew, *_ = env.step(strided)
    np.testing.assert_array_equal(rew, [0, 2, 4])
    pend = envhive.make("Pendulum-v1", num_envs=2)
    pend.reset()
    actions = np.zeros((2, 3), dtype=np.float64)[:, 1:2]  # float64, non-contiguous
    assert pend.step(actions)[0].shape == (2, 3)
