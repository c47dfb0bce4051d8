"""The call contract (envhive.testing.PoolContract) against every backend, from one class: the native
pool, the process backend and Ray's (its class runs where Ray is installed, .venv-rllib under
`make test`, as the suite's other Ray tests: conftest.py)."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

import envhive
from envhive.testing import Failure, PoolContract
from process_envs import make_faulty


def two_steps(pool: envhive.HiveVectorEnv) -> None:
    for k in range(2):
        pool.step(PoolContract.actions(pool, pool.num_envs, k))


class TestNativePools(PoolContract):
    task = "CartPole-v1"

    def make_failure(self, autoreset_mode: str) -> Failure:
        # Dummy-v0's env 1 raises in its second step.
        pool = envhive.make(
            "Dummy-v0", num_envs=4, fail_env=1, fail_step=2, episode_length=0, autoreset_mode=autoreset_mode
        )
        return Failure(pool, two_steps, [1], says="Dummy-v0 failure injected at step 2")


class TestProcessPools(PoolContract):
    task = "CartPole-v1"  # Gymnasium's own CartPole, in worker processes
    kwargs = {"backend": "process", "num_workers": 2}  # noqa: RUF012

    def make_failure(self, autoreset_mode: str) -> Failure:
        # The env reset with seed 1 (env 1 of a pool seeded 0) raises in its second step.
        pool = envhive.make(
            make_faulty, num_envs=4, num_workers=2, seed=0, fail_seed=1, fail_step=2, autoreset_mode=autoreset_mode
        )
        return Failure(pool, two_steps, [1], says="injected failure at step 2")


if importlib.util.find_spec("ray") is not None:
    from envhive.ray import RayVectorEnv

    @pytest.mark.rllib
    @pytest.mark.usefixtures("local_ray")
    class TestRayPools(PoolContract):
        """Two shards of two native envs each: an async batch of 2 is one shard."""

        task = "CartPole-v1"

        def make_pool(self, **kwargs: Any) -> envhive.HiveVectorEnv:
            num_envs = kwargs.pop("num_envs")
            return RayVectorEnv(self.task, num_envs, 2 if num_envs % 2 == 0 else 1, num_cpus_per_shard=0, **kwargs)

        def make_failure(self, autoreset_mode: str) -> Failure:
            # Dummy-v0's fail_env is a shard's local id: local env 0 of both shards, global 0 and 2.
            failing = {"fail_env": 0, "fail_step": 2, "episode_length": 0, "autoreset_mode": autoreset_mode}
            pool = RayVectorEnv("Dummy-v0", 4, 2, seed=0, num_cpus_per_shard=0, **failing)
            return Failure(pool, two_steps, [0, 2], says="Dummy-v0 failure injected at step 2")


def test_the_contract_runs_on_every_backend() -> None:
    """The classes above are the contract's only runs here: each backend's gets every rule."""
    rules = {name for name in dir(PoolContract) if name.startswith("test_")}
    assert len(rules) >= 15
    for cls in (TestNativePools, TestProcessPools):
        assert issubclass(cls, PoolContract) and rules <= set(dir(cls))
    assert np.all([cls.make_failure is not PoolContract.make_failure for cls in (TestNativePools, TestProcessPools)])
