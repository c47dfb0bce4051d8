"""RLlib (new API stack) on envhive ids: EnvRunners resolve them with no registration code, per-runner
seeds are distinct and reproducible, and PPO improves its return. Runs in .venv-rllib (gymnasium 1.2.2)."""

from __future__ import annotations

import os

import numpy as np
import pytest
import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.tune.registry import ENV_CREATOR, _global_registry

import envhive
import envhive.adapters.rllib as hive_rllib

pytestmark = pytest.mark.rllib
NUM_ENVS = 4


@pytest.fixture(scope="module")
def ray_session():
    """One local Ray for this module (starting one costs ~10 s; other modules start their own, or a
    simulated cluster)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def ppo(env: str, runners: int = 2, seed: int | None = 0) -> PPOConfig:
    config = (
        PPOConfig()
        .environment(env)
        .env_runners(
            num_env_runners=runners,
            num_envs_per_env_runner=NUM_ENVS,
            gym_env_vectorize_mode="vector_entry_point",
            num_cpus_per_env_runner=0.5,
        )
        .learners(num_cpus_per_learner=0.5)
        .training(train_batch_size_per_learner=1000, minibatch_size=250, num_epochs=5, lr=3e-4)
    )
    return config.debugging(seed=seed) if seed is not None else config


def first_observations(algo) -> dict[int, np.ndarray]:
    """Each remote EnvRunner's observations at its first (seeded) reset: what its first sample() starts from."""

    def sample_first(runner):
        episodes = runner.sample(num_timesteps=NUM_ENVS, random_actions=True)
        return runner.worker_index, np.stack([ep.get_observations(0) for ep in episodes[:NUM_ENVS]])

    return dict(algo.env_runner_group.foreach_env_runner(sample_first, local_env_runner=False))


def test_every_task_is_registered_for_ray_workers() -> None:
    ids = hive_rllib.register_ids()
    assert len(ids) == len(envhive.list_envs()) and "envhive/CartPole-v1" in ids
    assert _global_registry.contains(ENV_CREATOR, "envhive/HalfCheetah-v5")


def test_runner_seeds_spread_over_the_pool() -> None:
    env = hive_rllib.make_runner_env("CartPole-v1", {"num_envs": 3})
    obs, _ = env.reset(seed=5)
    expected, _ = envhive.make("CartPole-v1", num_envs=3, seed=[15, 16, 17]).reset()
    np.testing.assert_array_equal(obs, expected)
    other, _ = env.reset(seed=6)  # the next runner's seed: no env shares a seed with runner 5's
    assert not any(np.array_equal(a, b) for a in obs for b in other)


def test_runner_env_rejects_what_rllib_cannot_consume() -> None:
    with pytest.raises(ValueError, match="gym_env_vectorize_mode='vector_entry_point'"):
        hive_rllib.make_runner_env("CartPole-v1", {})  # RLlib's single-env path ("sync" / "async")
    with pytest.raises(ValueError, match="async pool.*drop batch_size"):
        hive_rllib.make_runner_env("CartPole-v1", {"num_envs": 4, "batch_size": 2})
    with pytest.raises(ValueError, match="NEXT_STEP.*same_step"):
        hive_rllib.make_runner_env("CartPole-v1", {"num_envs": 4, "autoreset_mode": "same_step"})
    with pytest.raises(ValueError, match=r"config.debugging\(seed=...\)"):
        hive_rllib.make_runner_env("CartPole-v1", {"num_envs": 4, "seed": 3})
    env = hive_rllib.make_runner_env("CartPole-v1", {"num_envs": 2, "max_episode_steps": 7})
    assert env.unwrapped.task_spec.max_episode_steps == 7


def test_config_validation_raises_what_a_runner_would() -> None:
    """AlgorithmConfig.validate (RLlib calls it on the driver before any EnvRunner starts) checks a
    config naming an envhive id as a runner would; other envs are not looked at."""
    with pytest.raises(ValueError, match=r"gym_env_vectorize_mode='vector_entry_point'\) \(it is 'sync'\)"):
        ppo("envhive/CartPole-v1").env_runners(gym_env_vectorize_mode="sync").validate()
    with pytest.raises(TypeError, match="unknown kwarg 'max_episode_step'.*did you mean 'max_episode_steps'"):
        ppo("envhive/CartPole-v1").environment(env_config={"max_episode_step": 5}).validate()
    with pytest.raises(ValueError, match=r"config.debugging\(seed=...\)"):
        ppo("envhive/CartPole-v1").environment(env_config={"seed": 1}).validate()
    with pytest.raises(ValueError, match="async pool.*drop batch_size"):
        ppo("envhive/CartPole-v1").environment(env_config={"batch_size": 2}).validate()
    ppo("envhive/CartPole-v1").environment(env_config={"max_episode_steps": 7}).validate()
    ppo("CartPole-v1").env_runners(gym_env_vectorize_mode="sync").validate()  # Gymnasium's id: RLlib's business
    hive_rllib.check_config(ppo("envhive:envhive/CartPole-v1").env_runners(gym_env_vectorize_mode="sync"))


def test_misconfiguration_reaches_the_driver_as_the_runners_error(ray_session) -> None:
    """RLlib only logs an EnvRunner that fails to start (restart_failed_env_runners, on by default), then
    fails with IndexError: list index out of range; the driver now raises the runner's own error."""
    with pytest.raises(ValueError, match="envhive ids are vector envs"):
        ppo("envhive/CartPole-v1").env_runners(gym_env_vectorize_mode="sync").build_algo()
    with pytest.raises(TypeError, match="did you mean 'max_episode_steps'"):
        ppo("envhive/CartPole-v1").environment(env_config={"max_episode_step": 5}).build_algo()


def test_ppo_runners_seeded_apart_and_learning(ray_session) -> None:
    algo = ppo("envhive/CartPole-v1").build_algo()
    try:
        firsts = first_observations(algo)
        assert sorted(firsts) == [1, 2]
        for k, obs in firsts.items():  # runner k is reset with seed 0 + k: env i gets (0 + k) * 4 + i
            expected, _ = envhive.make(
                "CartPole-v1", num_envs=NUM_ENVS, seed=[k * NUM_ENVS + i for i in range(4)]
            ).reset()
            np.testing.assert_array_equal(obs, expected)
        rows = np.concatenate(list(firsts.values()))
        assert len({r.tobytes() for r in rows}) == 2 * NUM_ENVS  # eight distinct initial states

        returns = [algo.train()["env_runners"]["episode_return_mean"] for _ in range(6)]
    finally:
        algo.stop()
    assert returns[-1] > 1.5 * returns[0] and returns[-1] > 35, returns


def test_runner_pools_size_their_threads_from_the_runner_cpus(ray_session) -> None:
    """num_env_runners=2 with 1 CPU each (the learner on the driver): each runner's pool gets one
    thread, not one per core of the node (the default outside Ray: min(cores, num_envs))."""
    config = (
        ppo("envhive/CartPole-v1", runners=2).env_runners(num_cpus_per_env_runner=1).learners(num_cpus_per_learner=0)
    )
    algo = config.build_algo()
    try:
        threads = algo.env_runner_group.foreach_env_runner(
            lambda runner: (runner.worker_index, runner.env.unwrapped.task_spec.pool.num_threads),
            local_env_runner=False,
        )
        samples = algo.env_runner_group.foreach_env_runner(
            lambda runner: len(runner.sample(num_timesteps=40, random_actions=True)), local_env_runner=False
        )
    finally:
        algo.stop()
    assert sorted(threads) == [(1, 1), (2, 1)]
    assert all(n > 0 for n in samples)
    local = hive_rllib.make_runner_env("CartPole-v1", {"num_envs": NUM_ENVS})  # the driver: not a Ray worker
    assert local.unwrapped.task_spec.pool.num_threads == min(os.cpu_count() or 1, NUM_ENVS)


def test_module_id_form_works_without_the_adapter_in_workers(ray_session) -> None:
    """Gymnasium's "module:id" form: the EnvRunner process imports envhive itself."""
    algo = ppo("envhive:envhive/CartPole-v1", runners=1, seed=None).build_algo()
    try:
        (obs,) = first_observations(algo).values()
    finally:
        algo.stop()
    assert obs.shape == (NUM_ENVS, 4)
