"""envhive's MPE family reproduces mpe2 1.1.1 (the real library, on pettingzoo 1.27.0) step for step:
every id, Discrete and continuous actions (clipped as pettingzoo clips them), across max_cycles
truncations and the unseeded resets after them, in both autoreset modes.

Every value is compared to the last bit, on every CPU dispatch path: mpe2's arithmetic is float64
numpy on 2-element arrays (np.square, np.sum, np.sqrt: exact IEEE operations), np.logaddexp (numpy's
scalar loop: libm exp and log1p, not dispatched) and np.exp of a scalar (simple_tag's and
simple_world_comm's arena bound: SIMD-dispatched, so the family calls numpy's own loop,
csrc/envs/mpe/numerics.h). Observations are mpe2's float32 casts of its float64 concatenations."""

from __future__ import annotations

import numpy as np
import pytest
from mpe_helpers import TASK_IDS, lockstep, same_bits

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_every_id_discrete(task_id: str) -> None:
    counts = lockstep(task_id, seed=3, num_envs=2, steps=24, max_cycles=10)
    assert counts["episode_ends"] >= 4 and counts["resets"] >= 2


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_every_id_continuous_with_clipping(task_id: str) -> None:
    """Actions drawn in [-0.25, 1.25]: pettingzoo's ClipOutOfBoundsWrapper clips them into the Box."""
    counts = lockstep(
        task_id, seed=11, num_envs=2, steps=24, max_cycles=10, continuous_actions=True, action_range=(-0.25, 1.25)
    )
    assert counts["episode_ends"] >= 4 and counts["resets"] >= 2


@pytest.mark.parametrize("task_id", ["simple_tag_v3", "simple_world_comm_v3", "simple_spread_v3"])
def test_long_episodes_reach_contacts_and_the_arena_bound(task_id: str) -> None:
    """150-step episodes: agents collide (contact forces, collision rewards) and leave the arena
    (the np.exp branch of the bound penalty)."""
    counts = lockstep(task_id, seed=2, num_envs=2, steps=160, max_cycles=150)
    assert counts["episode_ends"] == 2 and counts["resets"] == 2


def test_lockstep_detects_a_different_seed() -> None:
    """The comparison can fail: a reference reset with another seed differs at the first reset."""
    with pytest.raises(AssertionError):
        lockstep("simple_spread_v3", seed=3, num_envs=1, steps=2, reference_seed_offset=1)


@pytest.mark.deep
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
@pytest.mark.parametrize("continuous", [False, True])
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_deep_seeds_and_modes(task_id: str, continuous: bool, mode: str) -> None:
    for seed in (0, 7, 123456789):
        counts = lockstep(
            task_id,
            seed=seed,
            num_envs=3,
            steps=60,
            action_seed=seed,
            autoreset_mode=mode,
            continuous_actions=continuous,
        )
        assert counts["episode_ends"] >= 6


@pytest.mark.deep
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_deep_long_episodes(task_id: str) -> None:
    counts = lockstep(task_id, seed=5, num_envs=2, steps=420, max_cycles=200, action_seed=9)
    assert counts["episode_ends"] == 4


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_parallel_env_is_mpe2s_parallel_env(task_id: str) -> None:
    """envhive.multiagent.parallel_env(id) against mpe2's parallel_env(): the same dicts (observations,
    rewards, terminations, truncations, env.agents) over two episodes, and PettingZoo's API test."""
    from pettingzoo.test import parallel_api_test

    import envhive.multiagent as ma
    from envhive.families.mpe import reference_parallel_env

    parallel_api_test(ma.parallel_env(task_id, max_cycles=6), num_cycles=15)
    ours, ref = ma.parallel_env(task_id, max_cycles=8), reference_parallel_env(task_id, max_cycles=8)
    rng = np.random.default_rng(0)
    for episode in range(2):
        obs, _ = ours.reset(seed=21) if episode == 0 else ours.reset()
        ref_obs, _ = ref.reset(seed=21) if episode == 0 else ref.reset()
        while True:
            assert ours.agents == ref.agents
            assert obs.keys() == ref_obs.keys() and all(same_bits(obs[a], ref_obs[a]) for a in ref_obs)
            if not ref.agents:
                break
            actions = {a: int(rng.integers(ref.action_space(a).n)) for a in ref.agents}
            obs, rew, term, trunc, _ = ours.step(actions)
            ref_obs, ref_rew, ref_term, ref_trunc, _ = ref.step(actions)
            assert rew == dict(ref_rew) and term == ref_term and trunc == ref_trunc
    ours.close()
    ref.close()


@pytest.mark.parametrize("task_id", ["simple_spread_v3", "simple_reference_v3"])
def test_vector_env_rows_are_supersuits(task_id: str) -> None:
    """envhive.multiagent.vector_env(id) (every agent a row) against SuperSuit's
    concat_vec_envs_v1(pettingzoo_env_to_vec_env_v1(mpe2 parallel_env)) in-process: the same rows,
    rewards and truncations across two episodes and SuperSuit's autoresets."""
    import supersuit as ss

    import envhive.multiagent as ma
    from envhive.families.mpe import reference_parallel_env

    ours = ma.vector_env(task_id, num_envs=2, max_cycles=25, seed=0)
    ref = ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(reference_parallel_env(task_id, max_cycles=25)),
        2,
        num_cpus=0,
        base_class="gymnasium",
    )
    obs, _ = ours.reset(seed=0)
    ref_obs, _ = ref.reset(seed=0)
    assert same_bits(obs, np.asarray(ref_obs, np.float32))
    rng = np.random.default_rng(0)
    n = ours.action_space.nvec
    for _ in range(60):
        actions = rng.integers(0, n)
        obs, rew, term, trunc, _ = ours.step(actions)
        ref_obs, ref_rew, ref_term, ref_trunc, _ = ref.step(actions)
        assert same_bits(obs, np.asarray(ref_obs, np.float32))
        assert np.array_equal(np.asarray(rew, np.float64), np.asarray(ref_rew, np.float64))
        assert np.array_equal(term, ref_term) and np.array_equal(trunc, ref_trunc)
    ours.close()
    ref.close()
