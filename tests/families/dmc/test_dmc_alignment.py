"""The DeepMind Control Suite tasks step for step against dm_control itself.

Env i of a pool made with seed=s plays the episodes of suite.load(domain, task,
task_kwargs={"random": s + i}): same first reset, same actions, same observations, rewards, step
types, discounts and episode ends, bit for bit, across several episodes (a short time_limit makes
them end after ~25 steps), then later resets.

Bit equality holds on every CPU: where dm_control calls numpy's CPU-dispatched kernels (np.exp,
np.log1p, np.tanh, np.arcsinh ... in rewards.tolerance and the touch, force and rangefinder
observations; np.dot / np.linalg.norm / v.dot(M) through OpenBLAS, whose kernels differ per CPU),
the C++ tasks call the same kernels of the running numpy (csrc/core/numpy_kernels.h). Run it under
NPY_DISABLE_CPU_FEATURES / OPENBLAS_CORETYPE to see another CPU's path (tests/test_numpy_kernels.py).
"""

from __future__ import annotations

import collections
import inspect

import numpy as np
import pytest

import envhive
from envhive.registry import make_spec, task_info

suite = pytest.importorskip("dm_control.suite")

# (domain, task) of every implemented task; test_all_suite_tasks_are_listed keeps it complete.
TASKS = [
    ("cartpole", "balance"),
    ("cartpole", "balance_sparse"),
    ("cartpole", "swingup"),
    ("cartpole", "swingup_sparse"),
    ("cartpole", "two_poles"),
    ("cartpole", "three_poles"),
    ("walker", "stand"),
    ("walker", "walk"),
    ("walker", "run"),
    ("cheetah", "run"),
    ("finger", "spin"),
    ("finger", "turn_easy"),
    ("finger", "turn_hard"),
    ("reacher", "easy"),
    ("reacher", "hard"),
    ("ball_in_cup", "catch"),
    ("hopper", "stand"),
    ("hopper", "hop"),
    ("pendulum", "swingup"),
    ("acrobot", "swingup"),
    ("acrobot", "swingup_sparse"),
    ("point_mass", "easy"),
    ("point_mass", "hard"),
    ("humanoid", "stand"),
    ("humanoid", "walk"),
    ("humanoid", "run"),
    ("humanoid", "run_pure_state"),
    ("humanoid_CMU", "stand"),
    ("humanoid_CMU", "walk"),
    ("humanoid_CMU", "run"),
    ("fish", "upright"),
    ("fish", "swim"),
    ("swimmer", "swimmer6"),
    ("swimmer", "swimmer15"),
    ("lqr", "lqr_2_1"),
    ("lqr", "lqr_6_2"),
    ("manipulator", "bring_ball"),
    ("manipulator", "bring_peg"),
    ("manipulator", "insert_ball"),
    ("manipulator", "insert_peg"),
    ("stacker", "stack_2"),
    ("stacker", "stack_4"),
    ("quadruped", "walk"),
    ("quadruped", "run"),
    ("quadruped", "escape"),
    ("quadruped", "fetch"),
    ("dog", "stand"),
    ("dog", "walk"),
    ("dog", "trot"),
    ("dog", "run"),
    ("dog", "fetch"),
]
STEPS = 60  # about two and a half episodes of EPISODE_STEPS
EPISODE_STEPS = 25


def envpool_id(domain: str, task: str) -> str:
    def camel(s: str) -> str:
        return "".join(w[:1].upper() + w[1:] for w in s.split("_"))

    return f"{camel(domain)}{camel(task)}-v1"


def _dm_env(domain: str, task: str, seed: int, time_limit: float | None = None, **task_kwargs: object):
    kwargs: dict = {"random": seed, **task_kwargs}
    if time_limit is not None:
        kwargs["time_limit"] = time_limit
    return suite.load(domain, task, task_kwargs=kwargs)


def _flat(obs: collections.OrderedDict) -> np.ndarray:
    return np.concatenate([np.asarray(v, dtype=np.float64).ravel() for v in obs.values()])


def _actions(spec, n: int, rng: np.random.Generator) -> np.ndarray:
    low = np.maximum(spec.minimum, -1.0)
    high = np.minimum(spec.maximum, 1.0)
    # a little outside the bounds too: dm_control does not clip (MuJoCo clamps ctrl)
    return rng.uniform(low - 0.1, high + 0.1, size=(n, *spec.shape))


def _assert_obs(domain: str, ours: dict | np.ndarray, i: int, ref: collections.OrderedDict, where: str) -> None:
    """Env i's observation of a batch `ours` against dm_control's: a Dict observation key by key (in
    dm_control's order, each leaf's shape and dtype), a flattened one (flatten=True) in key order."""
    if isinstance(ours, dict):
        assert list(ours) == list(ref), where
        for key, value in ref.items():
            got, expected = ours[key][i], np.asarray(value)
            assert got.shape == expected.shape and got.dtype == expected.dtype, f"{where} {key}"
            np.testing.assert_array_equal(got, expected, err_msg=f"{where} {key}")
        return
    flat = _flat(ref)
    assert ours[i].shape == flat.shape, where
    np.testing.assert_array_equal(ours[i], flat, err_msg=where)


@pytest.mark.parametrize(("domain", "task"), TASKS, ids=[f"{d}-{t}" for d, t in TASKS])
def test_lockstep_with_dm_control(domain: str, task: str) -> None:
    seed, num_envs = 5, 2
    refs = [_dm_env(domain, task, seed + i) for i in range(num_envs)]
    time_limit = EPISODE_STEPS * refs[0].control_timestep()
    refs = [_dm_env(domain, task, seed + i, time_limit) for i in range(num_envs)]
    env = envhive.make(envpool_id(domain, task), num_envs=num_envs, seed=seed, time_limit=time_limit)
    assert env.single_action_space.shape == refs[0].action_spec().shape
    np.testing.assert_array_equal(env.single_action_space.low, refs[0].action_spec().minimum)
    np.testing.assert_array_equal(env.single_action_space.high, refs[0].action_spec().maximum)
    obs, _ = env.reset()
    for i, ref in enumerate(refs):
        _assert_obs(domain, obs, i, ref.reset().observation, f"reset env {i}")
    rng = np.random.default_rng(0)
    ended = [False] * num_envs
    episodes_ended = 0
    for t in range(STEPS):
        actions = _actions(refs[0].action_spec(), num_envs, rng)
        obs, reward, terminated, truncated, _ = env.step(actions)
        for i, ref in enumerate(refs):
            ts = ref.step(actions[i])
            where = f"step {t} env {i}"
            _assert_obs(domain, obs, i, ts.observation, where)
            if ended[i]:  # next_step autoreset: this step was a reset
                assert ts.first(), where
                assert reward[i] == 0.0 and not terminated[i] and not truncated[i], where
                ended[i] = False
                continue
            assert reward[i] == ts.reward, f"{where}: reward {reward[i]!r} != {ts.reward!r}"
            assert terminated[i] == (ts.last() and ts.discount == 0.0), where
            assert truncated[i] == (ts.last() and ts.discount == 1.0), where
            ended[i] = bool(ts.last())
            episodes_ended += ts.last()
    assert episodes_ended >= num_envs * 2


@pytest.mark.parametrize(("domain", "task"), TASKS, ids=[f"{d}-{t}" for d, t in TASKS])
def test_defaults_equal_dm_control(domain: str, task: str) -> None:
    ref = _dm_env(domain, task, 0)
    defaults = task_info(envpool_id(domain, task)).defaults
    assert defaults["n_sub_steps"] == ref._n_sub_steps
    constructor = getattr(suite, domain).SUITE[task]
    assert defaults["time_limit"] == inspect.signature(constructor).parameters["time_limit"].default
    assert task_info(f"dm_control/{domain}-{task}-v0").defaults == defaults
    # the Dict observation: dm_control's observation_spec (keys in its order, shapes, dtypes)
    space = make_spec(envpool_id(domain, task)).observation_space
    spec = ref.observation_spec()
    assert list(space.spaces) == list(spec)
    for key, leaf in spec.items():
        assert space[key].shape == leaf.shape and space[key].dtype == leaf.dtype, key
