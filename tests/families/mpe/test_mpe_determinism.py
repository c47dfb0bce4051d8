"""Seeding of envhive's MPE pools: env i of a pool seeded s is the env seeded s + i, whatever the
pool's size or thread count, and a pool replays exactly from the same seed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from mpe_helpers import same_bits

import envhive


def _trajectory(task_id: str, num_envs: int, seed: int, steps: int, **kwargs: Any) -> list[Any]:
    pool = envhive.make(task_id, num_envs=num_envs, seed=seed, max_cycles=7, **kwargs)
    rng = np.random.default_rng(0)
    n_act = pool.single_action_space.shape[0]
    out: list[Any] = []
    obs, _ = pool.reset()
    out.append(obs)
    for _ in range(steps):
        actions = rng.integers(0, pool.single_action_space.high + 1, size=(num_envs, n_act))
        obs, rew, term, trunc, info = pool.step(actions.astype(np.int64))
        out.append((obs, rew, term, trunc, info["agent_reward"]))
    pool.close()
    return out


def _row(record: Any, i: int) -> Any:
    """Env i's part of a record, all leaves flattened."""
    if isinstance(record, dict):
        return np.concatenate([np.asarray(record[k][i], np.float64).ravel() for k in record])
    if isinstance(record, np.ndarray):
        return np.asarray(record[i], np.float64).ravel()
    return np.concatenate([_row(part, i) for part in record])


@pytest.mark.parametrize("task_id", ["simple_spread_v3", "simple_world_comm_v3"])
def test_replays_from_the_same_seed(task_id: str) -> None:
    a = _trajectory(task_id, 3, 42, 20)
    b = _trajectory(task_id, 3, 42, 20)
    for ra, rb in zip(a, b, strict=True):
        for i in range(3):
            assert same_bits(_row(ra, i), _row(rb, i))


def test_env_i_is_the_env_seeded_s_plus_i() -> None:
    """Actions differ per env, so compare env i of the pool with a one-env pool given env i's
    actions: drawn the same way here by a shared generator over rows of width 1."""
    pool = envhive.make("simple_tag_v3", num_envs=3, seed=10)
    singles = [envhive.make("simple_tag_v3", num_envs=1, seed=10 + i) for i in range(3)]
    obs, _ = pool.reset()
    single_obs = [s.reset()[0] for s in singles]
    rng = np.random.default_rng(1)
    for t in range(30):
        for i in range(3):
            assert same_bits(_row(obs, i), _row(single_obs[i], 0)), (t, i)
        actions = rng.integers(0, 5, size=(3, 4)).astype(np.int64)
        obs, *_ = pool.step(actions)
        single_obs = [s.step(actions[i : i + 1])[0] for i, s in enumerate(singles)]
    pool.close()
    for s in singles:
        s.close()
