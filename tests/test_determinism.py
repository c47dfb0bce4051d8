"""Seeding: same seed -> same trajectories whatever the threading; reseeding; per-env seeds."""

from __future__ import annotations

import numpy as np
import pytest

import envhive
from helpers import assert_trajectories_equal, collect, gym_vec, random_actions


def _actions(task_id: str, num_envs: int, steps: int, seed: int = 0) -> np.ndarray:
    space = envhive.make_spec(task_id).action_space
    rng = np.random.default_rng(seed)
    return np.stack([random_actions(space, num_envs, rng) for _ in range(steps)])


@pytest.mark.parametrize("task_id", ["CartPole-v1", "Pendulum-v1", "Acrobot-v1"])
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_same_seed_same_trajectory_across_thread_counts(task_id: str, mode: str) -> None:
    actions = _actions(task_id, 8, 120)
    runs = []
    for threads, offset in ((1, -1), (2, -1), (2, 0), (3, -1)):
        env = envhive.make(
            task_id, num_envs=8, num_threads=threads, thread_affinity_offset=offset, seed=11, autoreset_mode=mode
        )
        runs.append(collect(env, actions))
        env.close()
    for other in runs[1:]:
        assert_trajectories_equal(runs[0], other)


def test_different_seeds_differ() -> None:
    a = envhive.make("CartPole-v1", num_envs=4, seed=1)
    b = envhive.make("CartPole-v1", num_envs=4, seed=2)
    obs_a, _ = a.reset()
    obs_b, _ = b.reset()
    # seed + i: a's env i+1 and b's env i share a seed, nothing else does.
    np.testing.assert_array_equal(obs_a[1:], obs_b[:-1])
    for i in range(4):
        for j in range(4):
            if j != i + 1:
                assert not np.array_equal(obs_a[j], obs_b[i])
    # Within one pool every env has its own seed.
    assert len({row.tobytes() for row in obs_a}) == 4


def test_default_seed_is_42() -> None:
    a = envhive.make("CartPole-v1", num_envs=3)
    b = envhive.make("CartPole-v1", num_envs=3, seed=42)
    np.testing.assert_array_equal(a.reset()[0], b.reset()[0])
    assert envhive.make_spec("CartPole-v1", num_envs=3).pool.seeds == {0: 42, 1: 43, 2: 44}


def test_seed_none_uses_fresh_entropy() -> None:
    a = envhive.make("Dummy-v0", num_envs=4, seed=None)
    b = envhive.make("Dummy-v0", num_envs=4, seed=None)
    draws = np.concatenate([a.reset()[0][:, 0], b.reset()[0][:, 0]])
    assert len(set(draws.tolist())) == 8


@pytest.mark.parametrize("task_id", ["CartPole-v1", "MountainCarContinuous-v0"])
def test_reset_seed_reseeds_like_a_fresh_env(task_id: str) -> None:
    actions = _actions(task_id, 3, 60, seed=5)
    env = envhive.make(task_id, num_envs=3, seed=0)
    env.reset()
    for a in actions[:17]:
        env.step(a)
    obs, info = env.reset(seed=777)
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    out = [(obs.copy(), info["elapsed_step"].copy())]
    for a in actions:
        o, r, te, tr, inf = env.step(a)
        out.append((o.copy(), r.copy(), te.copy(), tr.copy(), inf["elapsed_step"].copy()))
    fresh = envhive.make(task_id, num_envs=3, seed=777)
    assert_trajectories_equal(out, collect(fresh, actions))


def test_reset_without_seed_continues_the_stream() -> None:
    # reset() with no seed draws from the generator's current state, like Gymnasium.
    env = envhive.make("CartPole-v1", num_envs=2, seed=3)
    ref = gym_vec("CartPole-v1", 2)
    np.testing.assert_array_equal(env.reset()[0], ref.reset(seed=3)[0])
    for _ in range(3):
        np.testing.assert_array_equal(env.reset()[0], ref.reset()[0])
    first = envhive.make("CartPole-v1", num_envs=2, seed=3).reset()[0]
    assert not np.array_equal(env.reset()[0], first)


def test_seed_list_gives_one_seed_per_env() -> None:
    seeds = [5, 9, 5, 2**40 + 3]
    env = envhive.make("CartPole-v1", num_envs=4, seed=seeds)
    obs, _ = env.reset()
    np.testing.assert_array_equal(obs[0], obs[2])
    for i, s in enumerate(seeds):
        single = envhive.make("CartPole-v1", num_envs=1, seed=s)
        np.testing.assert_array_equal(obs[i], single.reset()[0][0])
    spec = envhive.make_spec("CartPole-v1", num_envs=4, seed=np.array(seeds, dtype=np.uint64))
    assert spec.pool.seeds == dict(enumerate(seeds))


def test_reset_with_seed_list_and_none_entries_matches_gymnasium() -> None:
    env = envhive.make("CartPole-v1", num_envs=3, seed=10)
    ref = gym_vec("CartPole-v1", 3)
    np.testing.assert_array_equal(env.reset()[0], ref.reset(seed=10)[0])
    actions = _actions("CartPole-v1", 3, 30, seed=1)
    for a in actions:
        np.testing.assert_array_equal(env.step(a)[0], ref.step(a)[0])
    # None: keep that env's generator; int: reseed it.
    np.testing.assert_array_equal(env.reset(seed=[None, 100, None])[0], ref.reset(seed=[None, 100, None])[0])
    for a in actions:
        np.testing.assert_array_equal(env.step(a)[0], ref.step(a)[0])


def test_masked_reset_with_seed_reseeds_only_masked_envs() -> None:
    env = envhive.make("CartPole-v1", num_envs=3, seed=10)
    env.reset()
    before = env.step(np.array([0, 1, 1]))[0].copy()
    obs, info = env.reset(seed=500, options={"reset_mask": np.array([False, True, False])})
    # Env 1 gets seed 500 + 1, as Gymnasium's int seed means seed + i.
    np.testing.assert_array_equal(obs[1], envhive.make("CartPole-v1", num_envs=1, seed=501).reset()[0][0])
    np.testing.assert_array_equal(obs[[0, 2]], before[[0, 2]])
    np.testing.assert_array_equal(info["elapsed_step"], [1, 0, 1])


def test_async_reset_seed_reseeds() -> None:
    env = envhive.make("CartPole-v1", num_envs=4, batch_size=2, seed=0)
    env.async_reset(seed=300)
    fresh = envhive.make("CartPole-v1", num_envs=4, seed=300).reset()[0]
    for _ in range(2):
        obs, _, _, _, info = env.recv()
        np.testing.assert_array_equal(obs, fresh[info["env_id"]])
    # reset(seed=...) in async mode: every env reseeded, the first batch returned.
    obs, info = env.reset(seed=[9, 8, 7, 6])
    single = {s: envhive.make("CartPole-v1", num_envs=1, seed=s).reset()[0][0] for s in (9, 8, 7, 6)}
    for row, i in enumerate(info["env_id"]):
        np.testing.assert_array_equal(obs[row], single[9 - int(i)])
