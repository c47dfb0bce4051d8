"""Tianshou 2.0 on envhive: its Collector over envhive pools (native, process backend, envhive.envpool)
collects what it collects over its own DummyVectorEnv of Gymnasium's envs, row for row, in n_step and
n_episode collection; DQN learns CartPole; what Tianshou cannot consume is refused."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import envhive
import envhive.envpool
from envhive.adapters.tianshou import TianshouVecEnv, make_env
from helpers import docs_snippet, run_snippet

SEED = 3
N = 4


class FirstResetSeeded(gymnasium.Wrapper):
    """Gymnasium's env seeded at its first reset only, as envhive's env i is with seed + i."""

    def __init__(self, env: gymnasium.Env, seed: int) -> None:
        super().__init__(env)
        self._seed: int | None = seed

    def reset(self, *, seed=None, options=None):
        seed, self._seed = (self._seed if seed is None else seed), None
        return self.env.reset(seed=seed, options=options)


def reference_envs() -> DummyVectorEnv:
    return DummyVectorEnv([lambda i=i: FirstResetSeeded(gymnasium.make("CartPole-v1"), SEED + i) for i in range(N)])


def greedy_policy() -> DiscreteQLearningPolicy:
    """A fixed untrained Q-network, greedy: the same observations give the same actions."""
    torch.manual_seed(0)
    net = Net(state_shape=4, action_shape=2, hidden_sizes=[16])
    return DiscreteQLearningPolicy(model=net, action_space=gymnasium.spaces.Discrete(2))


def collected(env) -> tuple[list, dict[str, np.ndarray]]:
    """Returns of an n_step collect then an n_episode one (fewer envs step near its end), and the
    buffer's rows in order."""
    collector = Collector[CollectStats](greedy_policy(), env, VectorReplayBuffer(4000, N))
    collector.reset()
    first = collector.collect(n_step=240)
    second = collector.collect(n_episode=7, reset_before_collect=True)
    returns = [first.returns.tolist(), second.returns.tolist()]
    buffer = collector.buffer
    rows = buffer[buffer.sample_indices(0)]
    fields = {k: np.asarray(rows[k]) for k in ("obs", "act", "rew", "terminated", "truncated", "obs_next")}
    collector.close()
    return returns, fields


@pytest.fixture(scope="module")
def reference() -> tuple[list, dict[str, np.ndarray]]:
    return collected(reference_envs())


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: make_env("CartPole-v1", num_envs=N, seed=SEED), id="native"),
        pytest.param(
            lambda: TianshouVecEnv(envhive.make("CartPole-v1", num_envs=N, seed=SEED, backend="process")),
            id="process",
        ),
        pytest.param(lambda: envhive.envpool.make_gym("CartPole-v1", num_envs=N, seed=SEED), id="envhive.envpool"),
    ],
)
def test_collector_collects_what_it_collects_over_its_own_vector_env(make, reference) -> None:
    returns, fields = collected(make())
    want_returns, want = reference
    assert returns == want_returns and len(returns[1]) == 7 and len(returns[0]) >= 10
    for key, value in want.items():
        np.testing.assert_array_equal(fields[key].astype(value.dtype), value, err_msg=key)


def test_rows_of_env_ids_seeds_and_spaces() -> None:
    env = make_env("CartPole-v1", num_envs=N)
    pool = envhive.make("CartPole-v1", num_envs=N, seed=10)
    assert len(env) == N and not env.is_async
    assert env.observation_space == pool.single_observation_space and env.action_space == gymnasium.spaces.Discrete(2)
    assert env.seed(10) == [10, 11, 12, 13]
    obs, info = env.reset()
    want, _ = pool.reset()
    np.testing.assert_array_equal(obs, want)
    assert info.dtype == object and list(info) == [{}] * N  # CartPole's own infos: none
    actions = np.array([1, 0, 1, 1])
    obs, rew, term, trunc, info = env.step(actions[[2, 0]], np.array([2, 0]))  # the others hold
    want, *_ = pool.step(actions[[2, 0]], np.array([2, 0]), partial=True)
    np.testing.assert_array_equal(obs, want[[2, 0]])
    assert len(info) == 2
    assert rew.shape == term.shape == trunc.shape == (2,)
    obs, info = env.reset(env_id=[3, 1])
    want, _ = pool.reset(options={"reset_mask": np.array([False, True, False, True])})
    np.testing.assert_array_equal(obs, want[[3, 1]])
    assert len(info) == 2
    env.close()


def test_infos_one_dict_per_env() -> None:
    """The task's infos as one dict per env (Tianshou's own form), without envhive's env_id and
    elapsed_step; rows of env_id in its order."""
    env = TianshouVecEnv(envhive.make("HalfCheetah-v5", num_envs=3, seed=1))
    pool = envhive.make("HalfCheetah-v5", num_envs=3, seed=1)
    env.reset()
    pool.reset()
    actions = np.linspace(-1, 1, 18, dtype=np.float32).reshape(3, 6)
    _, _, _, _, info = env.step(actions[[2, 0]], [2, 0])
    _, _, _, _, want = pool.step(actions[[2, 0]], np.array([2, 0]), partial=True)
    keys = sorted(k for k in want if not k.startswith("_") and k not in ("env_id", "elapsed_step"))
    assert keys and all(sorted(row) == keys for row in info)
    for k, row in zip((2, 0), info, strict=True):
        for key in keys:
            assert row[key] == want[key][k], key
    env.close()


def test_process_backend_steps_the_envs_set_aside_and_says_so() -> None:
    """A backend that steps every env at once steps the envs the Collector set aside too; stepping
    one of them again before resetting it is refused, naming it."""
    env = TianshouVecEnv(envhive.make("CartPole-v1", num_envs=3, seed=0, backend="process"))
    env.reset()
    obs, *_ = env.step(np.array([1, 0]), [0, 2])
    assert obs.shape == (2, 4)
    with pytest.raises(ValueError, match="env 1 was stepped unasked.*reset it"):
        env.step(np.array([0, 0, 0]))
    env.reset(env_id=[1])
    env.step(np.array([0, 0, 0]))
    env.close()


def test_refuses_what_tianshou_cannot_consume() -> None:
    with pytest.raises(ValueError, match="async pool.*drop|without batch_size"):
        TianshouVecEnv(envhive.make("CartPole-v1", num_envs=4, batch_size=2))
    with pytest.raises(ValueError, match="resets each env.*next_step.*not 'same_step'"):
        TianshouVecEnv(envhive.make("CartPole-v1", num_envs=2, autoreset_mode="same_step"))
    with pytest.raises(ValueError, match="NEXT_STEP.*autoreset_mode='next_step'.*drop it"):
        make_env("CartPole-v1", num_envs=2, autoreset_mode="disabled")
    TianshouVecEnv(envhive.make("CartPole-v1", num_envs=2, autoreset_mode="disabled")).close()  # native: fine
    with pytest.raises(TypeError, match="wraps an envhive pool"):
        TianshouVecEnv(gymnasium.make_vec("CartPole-v1", num_envs=2))


@pytest.mark.learning
def test_dqn_learns_cartpole() -> None:
    """DQN (Tianshou's CartPole settings, smaller): training envs on the native pool, test envs on
    the process backend; a fixed seed reaches a test return of 120 within 10k steps."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    np.random.seed(0)
    train_envs = make_env("CartPole-v1", num_envs=8, seed=0)
    test_envs = TianshouVecEnv(envhive.make("CartPole-v1", num_envs=4, seed=1000, backend="process"))
    train_envs.action_space.seed(0)  # Tianshou samples random actions from it
    net = Net(state_shape=4, action_shape=2, hidden_sizes=[64, 64])
    policy = DiscreteQLearningPolicy(model=net, action_space=train_envs.action_space, eps_training=0.1)
    algorithm = DQN(
        policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9, n_step_return_horizon=3, target_update_freq=320
    )
    train = Collector[CollectStats](algorithm, train_envs, VectorReplayBuffer(20_000, 8), exploration_noise=True)
    test = Collector[CollectStats](algorithm, test_envs)
    train.reset()
    train.collect(n_step=512, random=True)
    before = test.collect(n_episode=8, reset_before_collect=True).returns.mean()
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train,
            test_collector=test,
            max_epochs=10,
            epoch_num_steps=1000,
            collection_step_num_env_steps=10,
            test_step_num_episodes=8,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.1,
            stop_fn=lambda mean_return: mean_return >= 120,
            test_in_training=False,
        )
    )
    train.close()
    test.close()
    assert before < 50 and result.best_reward >= 120, (before, result.best_reward)


@pytest.mark.learning
def test_documented_example_runs() -> None:
    """docs/integrations.md's Tianshou example, as written but for one epoch of 1000 steps."""
    torch.set_num_threads(1)
    scope = run_snippet(docs_snippet("integrations.md", "Tianshou"), ("max_epochs=10", "max_epochs=1"))
    assert scope["train"].collect_step >= 1000 and scope["result"].best_reward > 0
    scope["train"].close()
