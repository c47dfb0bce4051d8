"""The trainer adapters and the dm facade on envhive.ray.RayVectorEnv: each steps in lockstep with
the same adapter over a local pool of the same seeds (2 shards of 3 envs against one pool of 6).
Runs in .venv-rllib (the venv with Ray and the trainers)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch

import envhive
from envhive.ray import RayBackend, RayVectorEnv

pytestmark = [pytest.mark.rllib, pytest.mark.usefixtures("local_ray")]

NUM_ENVS, STEPS = 6, 120  # CartPole under a fixed action pattern ends episodes within 120 steps


def ray_pool(**kwargs):
    return RayVectorEnv("CartPole-v1", NUM_ENVS, 2, seed=4, num_cpus_per_shard=0, **kwargs)


def local_pool(**kwargs):
    return envhive.make("CartPole-v1", num_envs=NUM_ENVS, seed=4, **kwargs)


def actions_at(t: int) -> np.ndarray:
    return np.array([(t // (g + 1)) % 2 for g in range(NUM_ENVS)], np.int64)


def test_sb3_vec_env_on_ray_equals_a_local_pool() -> None:
    from envhive.adapters.sb3 import SB3VecEnv

    remote, local = SB3VecEnv(ray_pool(autoreset_mode="same_step")), SB3VecEnv(local_pool(autoreset_mode="same_step"))
    try:
        np.testing.assert_array_equal(remote.reset(), local.reset())
        dones = 0
        for t in range(STEPS):
            remote.step_async(actions_at(t))
            local.step_async(actions_at(t))
            (r_obs, r_rew, r_done, r_info), (l_obs, l_rew, l_done, l_info) = remote.step_wait(), local.step_wait()
            np.testing.assert_array_equal(r_obs, l_obs)
            np.testing.assert_array_equal(r_rew, l_rew)
            np.testing.assert_array_equal(r_done, l_done)
            for a, b in zip(r_info, l_info, strict=True):
                assert a.keys() == b.keys()
                if "terminal_observation" in a:
                    np.testing.assert_array_equal(a["terminal_observation"], b["terminal_observation"])
                    assert a["TimeLimit.truncated"] == b["TimeLimit.truncated"]
            dones += int(l_done.sum())
        assert dones > 0  # the comparison covered episode ends
    finally:
        remote.close()
        local.close()


class PatternPolicy:
    """TorchRL policy: ``actions_at(t)`` at its ``t``-th call."""

    def __init__(self) -> None:
        self.t = 0

    def __call__(self, td):
        self.t += 1
        return td.set("action", torch.from_numpy(actions_at(self.t - 1)))


def test_torchrl_env_on_ray_equals_a_local_pool() -> None:
    from envhive.adapters.torchrl import TorchRLEnv

    rollouts = []
    for pool in (ray_pool(), local_pool()):
        env = TorchRLEnv(pool, categorical_action_encoding=True)
        try:
            rollouts.append(env.rollout(STEPS, policy=PatternPolicy(), break_when_any_done=False))
        finally:
            env.close()
    remote, local = rollouts
    for key in (("observation",), ("next", "observation"), ("next", "reward"), ("next", "done"), ("next", "truncated")):
        torch.testing.assert_close(remote[key], local[key], rtol=0, atol=0)
    assert local["next", "done"].any()


def test_dm_facade_on_ray_equals_a_local_pool() -> None:
    remote, local = envhive.make_dm(ray_pool()), envhive.make_dm("CartPole-v1", num_envs=NUM_ENVS, seed=4)
    try:
        a, b = remote.reset(), local.reset()
        for t in range(STEPS):
            for x, y in zip(a, b, strict=True):
                np.testing.assert_array_equal(x, y)
            a, b = remote.step(actions_at(t)), local.step(actions_at(t))
    finally:
        remote.close()
        local.close()


def test_rl_games_vecenv_with_a_ray_pool_factory_equals_a_local_pool() -> None:
    from envhive.adapters.rl_games import RlGamesVecEnv

    factory = functools.partial(RayVectorEnv, num_shards=2, num_cpus_per_shard=0)
    remote = RlGamesVecEnv("envhive", NUM_ENVS, env_name="CartPole-v1", seed=4, pool=factory)
    local = RlGamesVecEnv("envhive", NUM_ENVS, env_name="CartPole-v1", seed=4)
    try:
        assert isinstance(remote.pool.backend, RayBackend)
        np.testing.assert_array_equal(remote.reset(), local.reset())
        for t in range(STEPS):
            (r_obs, r_rew, r_done, r_info), (l_obs, l_rew, l_done, l_info) = (
                remote.step(actions_at(t)),
                local.step(actions_at(t)),
            )
            for x, y in ((r_obs, l_obs), (r_rew, l_rew), (r_done, l_done)):
                np.testing.assert_array_equal(x, y)
            for key in ("time_outs", "scores", "env_id", "elapsed_step"):
                np.testing.assert_array_equal(r_info[key], l_info[key])
    finally:
        remote.close()
        local.close()
    with pytest.raises(TypeError, match="not an envhive pool"):
        RlGamesVecEnv("envhive", 2, env_name="CartPole-v1", pool=lambda *a, **k: object())
    with pytest.raises(ValueError, match="async pool"):
        RlGamesVecEnv("envhive", 4, env_name="CartPole-v1", pool=functools.partial(envhive.make, batch_size=2))
