"""dm_env's own EnvironmentTestMixin on envhive's single-env dm_env view."""

from __future__ import annotations

import numpy as np
from absl.testing import absltest
from dm_env import test_utils

from envhive.dm import HiveSingleDmEnv


class CartPoleSingleDmEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):
    def make_object_under_test(self) -> HiveSingleDmEnv:
        return HiveSingleDmEnv("CartPole-v1", seed=0)

    def make_action_sequence(self):  # long enough to end episodes (random CartPole: ~20 steps)
        rng = np.random.default_rng(0)
        for _ in range(200):
            yield np.int64(rng.integers(0, 2))


class PendulumSingleDmEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):
    def make_object_under_test(self) -> HiveSingleDmEnv:
        return HiveSingleDmEnv("Pendulum-v1", max_episode_steps=25, seed=0)

    def make_action_sequence(self):  # Box actions; 25-step episodes end by truncation
        rng = np.random.default_rng(0)
        for _ in range(80):
            yield rng.uniform(-2.0, 2.0, size=(1,)).astype(np.float32)


class HalfCheetahSingleDmEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):
    def make_object_under_test(self) -> HiveSingleDmEnv:
        return HiveSingleDmEnv("HalfCheetah-v5", max_episode_steps=20, seed=0)

    def make_action_sequence(self):
        rng = np.random.default_rng(0)
        for _ in range(50):
            yield rng.uniform(-1.0, 1.0, size=(6,)).astype(np.float32)


class WalkerWalkSingleDmEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):
    """A DeepMind Control Suite task: a dict of named arrays per observation (dm_control's keys)."""

    def make_object_under_test(self) -> HiveSingleDmEnv:
        return HiveSingleDmEnv("WalkerWalk-v1", time_limit=0.5, seed=0)  # 20-step episodes

    def make_action_sequence(self):
        rng = np.random.default_rng(0)
        for _ in range(50):
            yield rng.uniform(-1.0, 1.0, size=(6,))
