"""Seeding: env i of a pool seeded s is the engine made with rand_seed s + i (so a one-env pool
seeded s + i plays env i's levels); a reset with a seed starts that seed over; the pool's threads,
sync or async, change nothing."""

from __future__ import annotations

import numpy as np
from procgen_harness import GymView

import envhive


def _run(env, n, steps, seed, action_seed=0):
    out = [env.reset(seed=seed)[0]]
    actions = np.random.default_rng(action_seed).integers(0, 15, size=(1000, n))
    for t in range(steps):
        obs, rew, term, trunc, info = env.step(actions[t])
        out.append((obs, rew, term, trunc, info["level_seed"]))
    return out


def _same(a, b):
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x if isinstance(x, tuple) else (x,), y if isinstance(y, tuple) else (y,), strict=True):
            np.testing.assert_array_equal(u, v)


def test_env_i_is_seed_plus_i():
    pool = envhive.make("procgen-starpilot-v0", num_envs=3)
    obs, info = pool.reset(seed=40)
    for i in range(3):
        ref = GymView("starpilot", 40 + i)
        np.testing.assert_array_equal(obs[i], ref.reset())
        assert info["level_seed"][i] == ref.engine.infos()["level_seed"]
        single = envhive.make("procgen-starpilot-v0", num_envs=1)
        np.testing.assert_array_equal(single.reset(seed=40 + i)[0][0], obs[i])
        single.close()
    pool.close()


def test_same_seed_same_run_and_reset_with_seed_starts_over():
    env = envhive.make("procgen-chaser-v0", num_envs=2)
    first = _run(env, 2, 300, seed=123)
    again = _run(env, 2, 300, seed=123)  # the same pool, reseeded mid-episode
    _same(first, again)
    other = _run(env, 2, 50, seed=124)
    assert not np.array_equal(other[0], first[0])
    env.close()


def test_threads_and_async_change_nothing():
    runs = []
    for threads in (1, 2):
        env = envhive.make("procgen-bigfish-v0", num_envs=4, num_threads=threads)
        runs.append(_run(env, 4, 400, seed=7))
        env.close()
    _same(runs[0], runs[1])
    # Async, one env per batch in whatever order they finish: each env's own sequence is the sync one's.
    env = envhive.make("procgen-bigfish-v0", num_envs=4, batch_size=2, num_threads=2)
    actions = np.random.default_rng(0).integers(0, 15, size=(1000, 4))
    sync_obs = [runs[0][t + 1][0] for t in range(400)]
    env.async_reset(seed=7)
    count = np.zeros(4, int)
    for _ in range(400 * 2):
        obs, _, _, _, info = env.recv()
        for row, i in enumerate(info["env_id"]):
            if 0 < count[i] <= 400:
                np.testing.assert_array_equal(obs[row], sync_obs[count[i] - 1][i])
        ids = info["env_id"]
        env.send(actions[count[ids], ids], ids)
        count[ids] += 1
        if count.min() >= 400:
            break
    env.close()
    assert count.min() >= 100
