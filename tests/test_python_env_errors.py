"""Python-written envs that are wrong: declaration errors, compile errors, and failures at run time.

Run-time failures of compiled code never crash the process and never take the GIL: the glue
catches the exception in nopython code, the pool reports envhive.EnvError with the env id, the
failed env restarts, and replay_failure() re-runs the failed call in Python to show the exception.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from gymnasium import spaces

import envhive
from envhive.authoring import CompileError, PyEnv, last_failures, replay_failure

BOX2 = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)


pytestmark = pytest.mark.usefixtures("fresh_compile_cache")


def _line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if marker in line)


# --------------------------------------------------------------------------- declarations


def _base(**overrides):
    attrs = dict(
        observation_space=BOX2,
        action_space=spaces.Discrete(2),
        state={"x": float},
        reset=staticmethod(lambda s, rand: None),
        step=staticmethod(lambda s, action: (0.0, False)),
        observe=staticmethod(lambda s, obs: None),
    )
    attrs.update(overrides)
    return attrs


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"state": {}}, "state must be a non-empty dict"),
        ({"state": {"x": object}}, "state field 'x'"),
        ({"state": {"x": np.complex128}}, "dtype complex128 is not supported"),
        ({"state": {"max": float}}, "'max' is a numpy record attribute"),
        ({"config": {"g": "fast"}}, "config 'g': default must be"),
        ({"config": {"num_envs": 3}}, "reserved for the pool"),
        ({"action_space": spaces.Box(-1, 1, shape=(2,), dtype=np.int32)}, "action_space dtype int32"),
        ({"observation_space": spaces.MultiDiscrete([2, 2])}, "must be a gymnasium.spaces.Box or Discrete"),
        ({"observation_space": spaces.Box(-1.0, 1.0, shape=())}, "at least one dimension"),
        ({"step": staticmethod(lambda s: (0.0, False))}, r"step takes 1 parameters; expected step\(state, action"),
        (
            {"observe": staticmethod(lambda s, obs: 0), "observation_space": spaces.Discrete(3)},
            "observe returns the int",
        ),
        ({"infos": ("y",)}, "info field 'y' is not a state field"),
        ({"reset_randoms": -1}, "reset_randoms must be an int >= 0"),
        ({"id": "bad id!"}, "must look like"),
        ({"id": "CartPole-v1"}, "already taken by a built-in task"),
    ],
)
def test_declaration_errors_name_the_class(overrides, match):
    with pytest.raises(TypeError, match=match) as info:
        type("Broken", (PyEnv,), _base(**overrides))
    assert str(info.value).startswith("Broken: ")


def test_incomplete_class_is_reported_at_make():
    class Abstract(PyEnv):  # no functions: a base class, not an error until it is made
        observation_space = BOX2
        action_space = spaces.Discrete(2)

    with pytest.raises(TypeError, match="state must be"):
        envhive.make(Abstract)
    with pytest.raises(TypeError, match="is a declaration"):
        Abstract()


# --------------------------------------------------------------------------- compile errors


def test_compile_error_points_at_the_line():
    class Typo(PyEnv):
        observation_space = BOX2
        action_space = spaces.Discrete(2)
        state = {"x": float}

        @staticmethod
        def reset(s, rand):
            s.x = 0.0

        @staticmethod
        def step(s, action, rand, cfg):
            s.x = s.x + "one"  # the bad line
            return 1.0, False

        @staticmethod
        def observe(s, obs):
            obs[0] = s.x

    with pytest.raises(CompileError) as info:
        envhive.make(Typo)
    err = info.value
    assert err.function == "Typo.step"
    assert err.filename == __file__
    assert err.lineno == _line_of(Typo.step, "the bad line")
    assert 's.x = s.x + "one"' in str(err) and "Numba's report" in str(err)


def test_compile_error_in_helper_points_into_the_helper():
    def helper(x):
        return x.no_such_attribute  # helper's bad line

    class UsesHelper(PyEnv):
        observation_space = BOX2
        action_space = spaces.Discrete(2)
        state = {"x": float}

        @staticmethod
        def reset(s, rand):
            s.x = helper(1.0)

        @staticmethod
        def step(s, action):
            return 0.0, False

        @staticmethod
        def observe(s, obs):
            obs[0] = s.x

    with pytest.raises(CompileError) as info:
        envhive.make(UsesHelper)
    assert info.value.function == "UsesHelper.reset"
    assert info.value.filename == __file__
    assert info.value.lineno == _line_of(helper, "helper's bad line")


def test_step_must_return_reward_and_terminated():
    class OneValue(PyEnv):
        observation_space = BOX2
        action_space = spaces.Discrete(2)
        state = {"x": float}

        @staticmethod
        def reset(s, rand):
            s.x = 0.0

        @staticmethod
        def step(s, action):
            return 1.0

        @staticmethod
        def observe(s, obs):
            obs[0] = s.x

    with pytest.raises(CompileError, match=r"must return \(reward, terminated\)") as info:
        envhive.make(OneValue)
    assert info.value.lineno == OneValue.step.__code__.co_firstlineno


# --------------------------------------------------------------------------- run-time failures


class Faulty(PyEnv):
    """Fails on purpose: `mode` picks how, `trigger` the action that triggers it."""

    observation_space = spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
    action_space = spaces.Discrete(3)
    state = {"x": float, "buf": (4,), "resets": np.int64}
    config = {"mode": 0}  # 1 raise, 2 index out of bounds, 3 NaN obs, 4 NaN reward, 5 inf obs, 6 raise in reset
    infos = ("resets",)

    @staticmethod
    def reset(s, rand, cfg):
        s.resets += 1
        if cfg.mode == 6 and s.resets > 1:
            raise RuntimeError("reset refused")
        s.x = 0.0

    @staticmethod
    def step(s, action, rand, cfg):
        s.x += 0.1
        if action == 2:
            if cfg.mode == 1:
                raise ValueError("action 2 is forbidden")
            if cfg.mode == 2:
                s.buf[int(s.x * 100)] = 1.0  # out of bounds: boundscheck turns it into IndexError
            if cfg.mode == 3 or cfg.mode == 5:
                s.x = np.nan if cfg.mode == 3 else np.inf
            if cfg.mode == 4:
                return np.nan, False
        return 1.0, False

    @staticmethod
    def observe(s, obs, cfg):
        obs[0] = s.x
        obs[1] = 0.0
        obs[2] = 0.0


def _failing_step(env, bad_env):
    actions = np.zeros(env.num_envs, dtype=np.int64)
    actions[bad_env] = 2
    with pytest.raises(envhive.EnvError) as info:
        env.step(actions)
    return info.value


@pytest.mark.parametrize("threads", [1, 2])
def test_exception_in_step_becomes_env_error_and_replays(threads):
    env = envhive.make(Faulty, num_envs=4, mode=1, num_threads=threads)
    env.reset()
    err = _failing_step(env, 2)
    assert err.env_id == 2 and err.env_ids == [2]
    assert "Faulty.step" in str(err) and "raised an exception in compiled code" in str(err)
    # The failed env restarts on its next step; the others go on.
    obs, reward, terminated, truncated, info = env.step(np.zeros(4, dtype=np.int64))
    assert list(info["elapsed_step"]) == [2, 2, 0, 2]
    assert list(info["resets"]) == [1, 1, 2, 1]
    with pytest.raises(ValueError, match="action 2 is forbidden") as replayed:
        replay_failure(err)
    assert any("replay of env 2" in note for note in replayed.value.__notes__)
    assert last_failures()[-1]["function"] == "step"


def test_out_of_bounds_index_is_an_env_error_not_a_crash():
    env = envhive.make(Faulty, num_envs=2, mode=2)
    env.reset()
    err = _failing_step(env, 0)
    assert err.env_id == 0
    with pytest.raises(IndexError):
        replay_failure(err)
    env.step(np.zeros(2, dtype=np.int64))  # still usable


def test_nan_observation_is_an_env_error_with_replayable_inputs():
    env = envhive.make(Faulty, num_envs=3, mode=3)
    env.reset()
    err = _failing_step(env, 1)
    assert err.env_id == 1
    assert "non-finite observation: obs[0] (flat index) is nan" in str(err)
    replay = replay_failure(err)  # observe itself does not raise: inputs and result come back
    assert replay.function == "observe" and np.isnan(replay.state.x) and np.isnan(replay.result[0])


def test_nan_reward_and_inf_outside_finite_bounds_are_errors():
    env = envhive.make(Faulty, num_envs=2, mode=4)
    env.reset()
    assert "NaN reward" in str(_failing_step(env, 0))
    env = envhive.make(Faulty, num_envs=2, mode=5)
    env.reset()
    assert "is inf" in str(_failing_step(env, 1))


def test_check_finite_false_passes_nan_through():
    class Unchecked(Faulty):
        check_finite = False

    env = envhive.make(Unchecked, num_envs=2, mode=3)
    env.reset()
    obs, *_ = env.step(np.array([2, 0]))
    assert np.isnan(obs[0, 0]) and not np.isnan(obs[1, 0])


def test_inf_is_fine_where_the_space_allows_it():
    class Unbounded(Faulty):
        observation_space = spaces.Box(-np.inf, np.inf, shape=(3,), dtype=np.float32)

    env = envhive.make(Unbounded, num_envs=1, mode=5)
    env.reset()
    obs, *_ = env.step(np.array([2]))
    assert obs[0, 0] == np.inf


def test_exception_in_reset_and_in_async_mode():
    env = envhive.make(Faulty, num_envs=2, mode=6)
    env.reset()  # first reset is fine
    with pytest.raises(envhive.EnvError, match="Faulty.reset") as info:
        env.reset()
    assert sorted(info.value.env_ids) == [0, 1]
    with pytest.raises(RuntimeError, match="reset refused"):
        replay_failure(info.value)

    env = envhive.make(Faulty, num_envs=4, batch_size=2, num_threads=2, mode=1)
    env.async_reset()
    obs, _, _, _, info = env.recv()
    env.send(np.full(2, 2), info["env_id"])
    with pytest.raises(envhive.EnvError) as async_err:
        env.recv()
        env.recv()
    assert set(async_err.value.env_ids) <= set(info["env_id"].tolist())


def test_discrete_observation_out_of_range():
    class Escapes(PyEnv):
        observation_space = spaces.Discrete(4)
        action_space = spaces.Discrete(2)
        state = {"cell": np.int64}

        @staticmethod
        def reset(s, rand):
            s.cell = 0

        @staticmethod
        def step(s, action):
            s.cell += 1 + action
            return 0.0, False

        @staticmethod
        def observe(s):
            return s.cell

    env = envhive.make(Escapes, num_envs=2)
    obs, _ = env.reset()
    assert obs.tolist() == [0, 0]
    with pytest.raises(envhive.EnvError, match=r"returned observation 4, outside Discrete\(4\)"):
        for _ in range(3):
            env.step(np.array([1, 0]))


def test_print_in_compiled_code_warns():
    class Chatty(PyEnv):
        observation_space = BOX2
        action_space = spaces.Discrete(2)
        state = {"x": float}

        @staticmethod
        def reset(s, rand):
            s.x = 0.0

        @staticmethod
        def step(s, action):
            print("stepping")
            return 0.0, False

        @staticmethod
        def observe(s, obs):
            obs[0] = s.x

    with pytest.warns(UserWarning, match=r"Chatty.step: print\(\) in compiled env code takes the GIL"):
        Chatty.task_id()
