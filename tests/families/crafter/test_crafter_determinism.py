"""Seeding: env i of a pool seeded s is crafter.Env(seed=s + i); reseeding restarts its episode
count; the async pool plays each env exactly as the sync one."""

from __future__ import annotations

import numpy as np

import envhive


def _run(seed: int, steps: int, **kwargs: object) -> list[np.ndarray]:
    env = envhive.make("CrafterReward-v1", num_envs=3, **kwargs)
    obs, _ = env.reset(seed=seed)
    out = [obs.copy()]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs, *_ = env.step(rng.integers(0, 17, size=3))
        out.append(obs.copy())
    env.close()
    return out


def test_same_seed_same_episodes() -> None:
    a, b = _run(4, 60), _run(4, 60)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_env_i_is_seed_plus_i() -> None:
    shifted = _run(5, 0)[0]
    base = _run(4, 0)[0]
    np.testing.assert_array_equal(shifted[0], base[1])
    np.testing.assert_array_equal(shifted[1], base[2])
    assert not np.array_equal(base[0], base[1])


def test_reseeding_restarts_the_episode_count() -> None:
    env = envhive.make("CrafterReward-v1", num_envs=1)
    first, _ = env.reset(seed=9)
    second, _ = env.reset()  # episode 2 of seed 9: another world
    again, _ = env.reset(seed=9)
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, again)
    env.close()


def test_async_pool_plays_each_env_as_the_sync_one() -> None:
    n, steps = 4, 40
    sync = envhive.make("CrafterReward-v1", num_envs=n, seed=1)
    sync.reset(seed=1)
    rng = np.random.default_rng(3)
    actions = rng.integers(0, 17, size=(steps, n))
    expected = [sync.step(a)[0].copy() for a in actions]
    sync.close()
    pool = envhive.make("CrafterReward-v1", num_envs=n, batch_size=2, num_threads=2, seed=1)
    pool.async_reset()
    step_of = [0] * n
    got: list[dict[int, np.ndarray]] = [{} for _ in range(steps)]
    while min(step_of) < steps:
        obs, _, _, _, info = pool.recv()
        ids = info["env_id"]
        for k, i in enumerate(ids):
            if 0 < step_of[i] <= steps:
                got[step_of[i] - 1][int(i)] = obs[k].copy()
        # a whole batch goes back each time (an env past `steps` plays on with action 0, unrecorded)
        pool.send(np.array([actions[step_of[i]][i] if step_of[i] < steps else 0 for i in ids]), ids)
        for i in ids:
            step_of[i] += 1
    for t in range(steps - 1):
        for i, o in got[t].items():
            np.testing.assert_array_equal(o, expected[t][i], err_msg=f"step {t} env {i}")
    pool.close()
