"""mypkg/CartPole-v1 against its Python reference (Gymnasium's CartPole-v1), step for step, and on
everything envhive gives a task: discovery without an import, sync and async pools, the autoreset
modes, seeds, reset options, the dm_env facade and `envhive bench`. `TestPools` runs envhive's call
contract (`envhive.testing.PoolContract`: the rules of each call in the pool's state, the autoreset
modes and final observations, seeding, EnvError with the env's id, bad arguments) on its pools.

Run with `pytest tests` after `pip install --no-build-isolation .` (README.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envhive
from envhive.testing import Failure, PoolContract

TASK = "mypkg/CartPole-v1"
REFERENCE = "CartPole-v1"
MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP, "disabled": AutoresetMode.DISABLED}


def reference(
    num_envs: int, mode: str = "next_step", max_episode_steps: int = 500, **kwargs: Any
) -> gymnasium.vector.VectorEnv:
    """Gymnasium's own vector env of the task this package reimplements."""
    return gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make(REFERENCE, max_episode_steps=max_episode_steps, **kwargs) for _ in range(num_envs)],
        autoreset_mode=MODES[mode],
    )


def lockstep(
    hive: envhive.HiveVectorEnv,
    ref: gymnasium.vector.VectorEnv,
    mode: str,
    seed: int,
    steps: int,
    options: dict[str, Any] | None = None,
) -> tuple[int, int]:
    """Step both with the same random actions; every output must be identical. Returns the
    numbers of terminations and truncations seen."""
    n = hive.num_envs
    rng = np.random.default_rng(seed)
    h_obs, h_info = hive.reset(seed=seed, options=options)
    g_obs, _ = ref.reset(seed=seed, options=options)
    np.testing.assert_array_equal(h_obs, g_obs)
    terminations = truncations = 0
    for t in range(steps):
        actions = rng.integers(0, 2, size=n)
        h_obs, h_rew, h_term, h_trunc, h_info = hive.step(actions)
        g_obs, g_rew, g_term, g_trunc, g_info = ref.step(actions)
        for what, a, b in [("obs", h_obs, g_obs), ("reward", h_rew, g_rew), ("terminated", h_term, g_term),
                           ("truncated", h_trunc, g_trunc)]:  # fmt: skip
            np.testing.assert_array_equal(a, b, err_msg=f"step {t}: {what}")
        assert h_rew.dtype == np.float64 and h_obs.dtype == np.float32
        done = h_term | h_trunc
        if mode == "same_step" and done.any():
            np.testing.assert_array_equal(h_info["_final_obs"], g_info["_final_obs"])
            for i in np.flatnonzero(done):
                np.testing.assert_array_equal(h_info["final_obs"][i], g_info["final_obs"][i])
        if mode == "disabled" and done.any():
            h_obs, _ = hive.reset(options={"reset_mask": done})
            g_obs, _ = ref.reset(options={"reset_mask": done})
            np.testing.assert_array_equal(h_obs, g_obs)
        terminations += int(h_term.sum())
        truncations += int(h_trunc.sum())
    return terminations, truncations


@pytest.mark.parametrize("mode", list(MODES))
def test_matches_gymnasium_step_for_step(mode: str) -> None:
    hive = envhive.make(TASK, num_envs=4, autoreset_mode=mode, max_episode_steps=30)
    terminations, truncations = lockstep(hive, reference(4, mode, max_episode_steps=30), mode, seed=7, steps=300)
    hive.close()
    assert terminations >= 20 and truncations >= 1, "random play should end episodes both ways"


def test_kwargs_and_reset_options_match_gymnasium() -> None:
    hive = envhive.make(TASK, num_envs=3, sutton_barto_reward=True)
    ref = reference(3, sutton_barto_reward=True)
    terminations, _ = lockstep(hive, ref, "next_step", seed=3, steps=120, options={"low": -0.2, "high": 0.2})
    assert terminations > 0
    assert hive.single_observation_space == ref.single_observation_space
    assert hive.single_action_space == ref.single_action_space


def test_found_without_importing_the_package() -> None:
    """The entry point makes the task known to envhive, Gymnasium and the CLI; listing reads its
    manifest without loading the module, and the module loads when the task is made."""
    code = f"""
import sys, gymnasium, envhive
from envhive.cli import main
assert {TASK!r} in envhive.list_envs() and {TASK!r} in gymnasium.registry
envhive.make_spec({TASK!r}, num_envs=2)
print("mypkg" in sys.modules)
env = gymnasium.make_vec({TASK!r}, num_envs=2)
print(type(env).__name__, env.reset(seed=0)[0].shape, "mypkg._envs" in sys.modules)
main(["list"])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    lines = out.stdout.splitlines()
    assert lines[:2] == ["False", "HiveVectorEnv (2, 4) True"]
    assert "mypkg (1)" in lines and f"  {TASK}" in lines
    assert out.stderr == ""  # no plug-in problems reported


def test_async_pool_steps_each_env_as_gymnasium_does() -> None:
    """Async (batch_size < num_envs): whichever envs come back, each one's trajectory is its
    Gymnasium twin's, seeded seed + env id."""
    num_envs, batch, seed = 6, 2, 11
    hive = envhive.make(TASK, num_envs=num_envs, batch_size=batch, seed=seed, max_episode_steps=25)
    twins = [gymnasium.make(REFERENCE, max_episode_steps=25) for _ in range(num_envs)]
    expected = {i: twins[i].reset(seed=seed + i)[0] for i in range(num_envs)}
    needs_reset = [False] * num_envs
    rng = np.random.default_rng(0)
    steps = np.zeros(num_envs, dtype=int)
    hive.async_reset()
    for _ in range(200):
        obs, rew, term, trunc, info = hive.recv()
        ids = info["env_id"]
        assert len(ids) == batch and len(set(ids.tolist())) == batch
        for row, i in enumerate(ids):
            np.testing.assert_array_equal(obs[row], expected[i], err_msg=f"env {i}")
        actions = rng.integers(0, 2, size=batch)
        hive.send(actions, ids)
        for a, i in zip(actions, ids, strict=True):
            if needs_reset[i]:  # NEXT_STEP: this step is the reset
                expected[i], needs_reset[i] = twins[i].reset()[0], False
                continue
            expected[i], _, t, u, _ = twins[i].step(int(a))
            needs_reset[i] = t or u
            steps[i] += 1
    hive.close()
    assert steps.min() > 0


def test_seeds() -> None:
    def first_obs(**kw: Any) -> np.ndarray:
        env = envhive.make(TASK, num_envs=3, **kw)
        obs = env.reset()[0].copy()
        env.close()
        return obs

    np.testing.assert_array_equal(first_obs(seed=5), reference(3).reset(seed=5)[0])
    twins = np.stack([gymnasium.make(REFERENCE).reset(seed=s)[0] for s in (9, 2, 4)])
    np.testing.assert_array_equal(first_obs(seed=[9, 2, 4]), twins)
    assert not np.array_equal(first_obs(seed=None), first_obs(seed=None))
    env = envhive.make(TASK, num_envs=2, seed=0)
    env.reset()
    np.testing.assert_array_equal(env.reset(seed=[None, 8])[0][1], gymnasium.make(REFERENCE).reset(seed=8)[0])


def bad_bounds_for_env_2(pool: envhive.HiveVectorEnv) -> None:
    """A bad reset option is thrown by the task inside a pool thread (env 2's low > high)."""
    low, high = np.full(4, -0.05), np.full(4, 0.05)
    low[2], high[2] = 1.0, -1.0
    pool.reset(options={"low": low, "high": high})


class TestPools(PoolContract):
    """envhive's call contract on this package's pools (envhive.testing)."""

    task = TASK

    def make_failure(self, autoreset_mode: str) -> Failure:
        pool = envhive.make(TASK, num_envs=4, seed=0, autoreset_mode=autoreset_mode)
        return Failure(pool, bad_bounds_for_env_2, [2], says="low")


def test_dm_env_facade() -> None:
    from dm_env import StepType

    env = envhive.make_dm(TASK, num_envs=2, seed=4)
    ts = env.reset()
    np.testing.assert_array_equal(ts.step_type, int(StepType.FIRST))
    np.testing.assert_array_equal(ts.observation, reference(2).reset(seed=4)[0])
    assert env.observation_spec().shape == (4,) and env.action_spec().num_values == 2
    seen_last = False
    for _ in range(60):
        ts = env.step(np.ones(2, dtype=np.int64))  # always push right: the pole falls
        seen_last |= bool((ts.step_type == int(StepType.LAST)).any())
    assert seen_last
    env.close()


def test_envhive_bench_times_it() -> None:
    cmd = [sys.executable, "-m", "envhive", "bench", TASK, "--num-envs", "4", "--seconds", "0.2", "--warmup", "0",
           "--repeats", "1", "--compare", "none", "--json", "--quiet"]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True)
    (case,) = json.loads(out.stdout)["cases"]
    (row,) = case["rows"]
    assert (case["task"], row["engine"], row["mode"], row["error"]) == (TASK, "envhive", "sync", None)
    assert row["steps_per_s"] > 0
