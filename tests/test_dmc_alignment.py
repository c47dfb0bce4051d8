"""The DeepMind Control Suite tasks step for step against dm_control itself.

Env i of a pool made with seed=s plays the episodes of suite.load(domain, task,
task_kwargs={"random": s + i}): same first reset, same actions, same observations (bit for bit),
step types, discounts and episode ends, across several episodes (a short time_limit makes them
end after ~25 steps), then later resets.

Tolerances: observations are compared exactly except the leaves dm_control computes with a numpy
transcendental ufunc (finger's and manipulator's touch: np.log1p); rewards to 1e-13 relative.
numpy's float64 exp/log/log1p/cosh/tanh/arccos are SIMD kernels of its own (AVX512F / SVML on this
machine) that differ from libm in the last bit for a few percent of arguments, and rewards.tolerance
goes through them; the C++ tasks use libm. A reward never feeds back into the state, so these
differences stay at the ulp level (the test bounds them) and the trajectories stay identical.
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
# Observation leaves computed by numpy ufuncs that differ from libm in the last bits (see above).
INEXACT_LEAVES = {
    ("finger", "touch"),
    ("hopper", "touch"),
    ("manipulator", "touch"),
    ("stacker", "touch"),
    ("quadruped", "force_torque"),
    ("quadruped", "rangefinder"),
}
REWARD_RTOL = 1e-13
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


def _leaf_mask(domain: str, obs: collections.OrderedDict) -> np.ndarray:
    """True where a flat observation element must match exactly."""
    return np.concatenate([np.full(np.asarray(v).size, (domain, k) not in INEXACT_LEAVES) for k, v in obs.items()])


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
            if (domain, key) in INEXACT_LEAVES:
                np.testing.assert_allclose(got, expected, rtol=1e-13, atol=0, err_msg=f"{where} {key}")
            else:
                np.testing.assert_array_equal(got, expected, err_msg=f"{where} {key}")
        return
    flat, exact = _flat(ref), _leaf_mask(domain, ref)
    assert ours[i].shape == flat.shape, where
    np.testing.assert_array_equal(ours[i][exact], flat[exact], err_msg=where)
    np.testing.assert_allclose(ours[i][~exact], flat[~exact], rtol=1e-13, atol=0, err_msg=where)


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
            np.testing.assert_allclose(reward[i], ts.reward, rtol=REWARD_RTOL, atol=1e-300, err_msg=where)
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
