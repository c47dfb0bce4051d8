"""Every misuse raises a clear error naming the problem, and the pool stays usable after it: the
native pool's own cases. The rules every backend shares -- the state of a call (never reset, in
flight, DISABLED's ended episodes, recv() that would wait forever, masked resets), bad env ids, reset
masks and seeds, env errors -- are the contract's (envhive.testing.PoolContract, test_contract.py)."""

from __future__ import annotations

import re
import time

import gymnasium
import numpy as np
import pytest

import envhive
from helpers import call_with_watchdog

# ---------------------------------------------------------------------------- construction


def test_unknown_task_id_suggests_close_ids() -> None:
    with pytest.raises(envhive.UnknownTaskError, match=r"'CartPole-v2'.*did you mean.*'CartPole-v1'"):
        envhive.make("CartPole-v2")
    assert issubclass(envhive.UnknownTaskError, ValueError)
    with pytest.raises(ValueError, match="Pendulum-v1"):
        envhive.make_spec("Pendulum-v0")
    with pytest.raises(envhive.UnknownTaskError, match="list_envs"):
        envhive.make("NoSuchThing-v9")


def test_namespaced_task_id_is_accepted() -> None:
    assert envhive.make_spec("envhive/CartPole-v1").id == "CartPole-v1"


def test_unknown_kwarg_is_named_and_valid_ones_listed() -> None:
    with pytest.raises(TypeError) as excinfo:
        envhive.make("CartPole-v1", gravity=9.8)
    msg = str(excinfo.value)
    assert "'gravity'" in msg
    for valid in ("sutton_barto_reward", "max_episode_steps", "num_envs", "batch_size", "seed", "autoreset_mode"):
        assert valid in msg
    with pytest.raises(TypeError, match=r"'num_env'.*did you mean 'num_envs'"):
        envhive.make("CartPole-v1", num_env=4)
    # A kwarg of another task is unknown here.
    with pytest.raises(TypeError, match="'g'"):
        envhive.make("CartPole-v1", g=9.81)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": -3}, "num_envs"),
        ({"num_envs": 2, "batch_size": 3}, "batch_size"),
        ({"num_envs": 3, "seed": [1, 2]}, "seed"),
        ({"num_envs": 1, "seed": [1, 2]}, "seed"),
        ({"autoreset_mode": "whenever"}, "autoreset_mode"),
        ({"seed": -1}, "seed"),
        ({"seed": 2**64}, "seed"),
        ({"num_threads": -1}, "num_threads"),
        ({"max_episode_steps": -5}, "max_episode_steps"),
    ],
)
def test_invalid_pool_values_raise_value_error(kwargs, pattern) -> None:
    with pytest.raises(ValueError, match=pattern):
        envhive.make("CartPole-v1", **kwargs)
    with pytest.raises(ValueError, match=pattern):
        envhive.make_spec("CartPole-v1", **kwargs)


def test_unknown_autoreset_mode_lists_valid_modes() -> None:
    with pytest.raises(ValueError, match="next_step.*same_step.*disabled"):
        envhive.make("CartPole-v1", autoreset_mode="sometimes")


@pytest.mark.parametrize(
    ("task_id", "kwargs", "name"),
    [
        ("Pendulum-v1", {"g": "strong"}, "g"),
        ("Pendulum-v1", {"g": True}, "g"),
        ("CartPole-v1", {"sutton_barto_reward": 1}, "sutton_barto_reward"),
        ("CartPole-v1", {"max_episode_steps": "10"}, "max_episode_steps"),
        ("CartPole-v1", {"max_episode_steps": 10.5}, "max_episode_steps"),
        ("Dummy-v0", {"delays_us": "slow"}, "delays_us"),
        ("Dummy-v0", {"delays_us": ["a"]}, "delays_us"),
        ("CartPole-v1", {"num_envs": 2.0}, "num_envs"),
        ("CartPole-v1", {"num_envs": True}, "num_envs"),
        ("CartPole-v1", {"batch_size": "1"}, "batch_size"),
        ("CartPole-v1", {"seed": "abc"}, "seed"),
        ("CartPole-v1", {"num_envs": 2, "seed": [1, 2.5]}, "seed"),
    ],
)
def test_wrong_kwarg_type_raises_type_error(task_id: str, kwargs, name: str) -> None:
    with pytest.raises(TypeError, match=name):
        envhive.make(task_id, **kwargs)


def test_int_accepted_for_float_kwarg() -> None:
    assert envhive.make_spec("Pendulum-v1", g=9).config["g"] == 9.0


def test_taskspec_with_extra_kwargs_is_rejected() -> None:
    spec = envhive.make_spec("CartPole-v1", num_envs=2)
    with pytest.raises(TypeError, match="make_spec"):
        envhive.HiveVectorEnv(spec, num_envs=3)
    assert envhive.HiveVectorEnv(spec).num_envs == 2


def test_make_vec_unknown_render_mode_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown render_mode 'human'"):
        gymnasium.make_vec("envhive/CartPole-v1", num_envs=2, render_mode="human")


# ---------------------------------------------------------------------------- actions


def test_wrong_action_shape() -> None:
    env = envhive.make("CartPole-v1", num_envs=3)
    env.reset()
    with pytest.raises(ValueError, match=re.escape("shape (3,), got (2,)")):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match=re.escape("shape (3,), got (3, 1)")):
        env.step(np.zeros((3, 1), dtype=np.int64))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.int64(0))
    pend = envhive.make("Pendulum-v1", num_envs=2)
    pend.reset()
    with pytest.raises(ValueError, match=re.escape("shape (2, 1), got (2,)")):
        pend.step(np.zeros(2, dtype=np.float32))
    with pytest.raises(ValueError, match="shape"):
        pend.step(np.zeros((2, 2), dtype=np.float32))
    # A rejected call changes nothing: the envs still step normally.
    _, _, _, _, info = env.step(np.zeros(3, dtype=np.int64))
    np.testing.assert_array_equal(info["elapsed_step"], 1)


def test_wrong_action_dtype() -> None:
    env = envhive.make("CartPole-v1", num_envs=2)
    env.reset()
    with pytest.raises(TypeError, match="integers.*float64"):
        env.step(np.array([0.0, 1.0]))
    with pytest.raises(TypeError, match="integers"):
        env.step(np.array([True, False]))
    pend = envhive.make("Pendulum-v1", num_envs=2)
    pend.reset()
    with pytest.raises(TypeError, match="real numbers"):
        pend.step(np.array([["a"], ["b"]]))
    with pytest.raises(TypeError):
        pend.step(np.array([[True], [False]]))


@pytest.mark.parametrize("bad", [2, -1, 1000])
def test_out_of_range_discrete_action_names_the_env(bad: int) -> None:
    env = envhive.make("CartPole-v1", num_envs=3)
    env.reset()
    with pytest.raises(ValueError, match=rf"action {bad} for env 1 .*Discrete\(2\)"):
        env.step(np.array([0, bad, 1]))


def test_out_of_range_discrete_action_in_async_mode_names_the_env_id() -> None:
    env = envhive.make("Dummy-v0", num_envs=4, batch_size=2)
    _, info = env.reset()
    ids = info["env_id"]
    with pytest.raises(ValueError, match=f"env {ids[1]}"):
        env.send(np.array([0, 1000]), ids)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_box_action(bad: float) -> None:
    env = envhive.make("Pendulum-v1", num_envs=3)
    env.reset()
    with pytest.raises(ValueError, match="env 2.*not finite"):
        env.step(np.array([[0.0], [1.0], [bad]], dtype=np.float32))
    mcc = envhive.make("MountainCarContinuous-v0", num_envs=1)
    mcc.reset()
    with pytest.raises(ValueError, match="finite"):
        mcc.step(np.array([[bad]]))


# ---------------------------------------------------------------------------- send / recv


def _async_dummy(**kw) -> tuple[envhive.HiveVectorEnv, np.ndarray]:
    env = envhive.make("Dummy-v0", num_envs=4, batch_size=2, **kw)
    _, info = env.reset()
    return env, info["env_id"].copy()


def test_send_actions_must_match_env_ids() -> None:
    env, ids = _async_dummy()
    with pytest.raises(ValueError, match=re.escape("shape (2,)")):
        env.send(np.array([1, 2, 3]), ids)


def test_recv_with_fewer_than_batch_size_in_flight() -> None:
    env = envhive.make("Dummy-v0", num_envs=4, batch_size=3)
    _, info = env.reset()  # 3 received, 1 left in flight
    err = call_with_watchdog(env.recv)
    assert isinstance(err, ValueError) and "1 env(s) in flight" in str(err)


def test_a_sync_step_in_any_order_routes_each_action_to_its_env() -> None:
    env = envhive.make("Dummy-v0", num_envs=4)
    env.reset()
    with pytest.raises(ValueError, match="sync mode"):  # send too (the contract steps)
        env.send(np.array([1, 2]), np.array([0, 1]))
    # All ids, in any order, are fine: Dummy's reward is its action.
    _, rew, _, _, info = env.step(np.array([3, 2, 1, 0]), np.array([3, 2, 1, 0]))
    np.testing.assert_array_equal(info["env_id"], [0, 1, 2, 3])
    np.testing.assert_array_equal(rew, [0, 1, 2, 3])


def test_recv_timeout() -> None:
    env = envhive.make("Dummy-v0", num_envs=2, batch_size=1, num_threads=2, delays_us=[1_000_000])
    env.async_reset()
    env.recv()
    env.recv()
    env.send(np.array([7]), np.array([1]))
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        env.recv(timeout=0.05)
    # The timeout holds: recv never starts a 1 s env step itself (the margin holds under load).
    assert time.monotonic() - start < 0.5
    # The timed-out batch is still delivered by the next recv.
    _, rew, _, _, info = env.recv()
    assert info["env_id"][0] == 1 and rew[0] == 7
    env.send(np.array([1]), np.array([1]))
    with pytest.raises(ValueError, match="timeout must be >= 0"):
        env.recv(timeout=-1.0)


# ---------------------------------------------------------------------------- lifecycle


def test_sync_step_after_close_raises() -> None:
    env = envhive.make("Pendulum-v1", num_envs=2)
    env.reset()
    env.close()
    with pytest.raises(ValueError, match="closed"):
        env.step(np.zeros((2, 1), dtype=np.float32))


def test_close_with_envs_in_flight() -> None:
    env = envhive.make("Dummy-v0", num_envs=4, batch_size=2, num_threads=2, delays_us=[1000])
    env.async_reset()
    ids = env.recv()[4]["env_id"]
    env.send(np.array([1, 2]), ids)
    assert call_with_watchdog(env.close) is None
    assert env.closed


@pytest.mark.parametrize(
    ("options", "error", "pattern"),
    [
        ({"something": 1}, ValueError, "unsupported reset option.*something"),
        ({"something": 1, "reset_mask": np.array([True, False, True])}, ValueError, "something"),
    ],
)
def test_bad_reset_options(options, error, pattern) -> None:
    env = envhive.make("CartPole-v1", num_envs=3)
    env.reset()
    with pytest.raises(error, match=pattern):
        env.reset(options=options)


# ---------------------------------------------------------------------------- worker failures


def test_worker_exception_raises_env_error_and_pool_recovers() -> None:
    env = envhive.make("Dummy-v0", num_envs=3, num_threads=2, fail_env=1, fail_step=2, episode_length=0)
    env.reset()
    env.step(np.array([1, 1, 1]))
    with pytest.raises(envhive.EnvError, match=r"env 1 raised: Dummy-v0 failure injected at step 2") as excinfo:
        env.step(np.array([2, 2, 2]))
    assert excinfo.value.env_id == 1
    assert excinfo.value.env_ids == [1]
    assert isinstance(excinfo.value, RuntimeError)
    # The failed env starts a new episode on its next step; the others carry on.
    _, rew, _, _, info = env.step(np.array([3, 3, 3]))
    np.testing.assert_array_equal(info["elapsed_step"], [3, 0, 3])
    np.testing.assert_array_equal(rew, [3, 0, 3])
    # reset() always works, and stepping works after it.
    obs, info = env.reset()
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    _, rew, _, _, info = env.step(np.array([4, 5, 6]))
    np.testing.assert_array_equal(rew, [4, 5, 6])
    np.testing.assert_array_equal(info["elapsed_step"], 1)


def test_worker_failure_on_first_step_then_reset() -> None:
    env = envhive.make("Dummy-v0", num_envs=4, fail_env=2, fail_step=1, episode_length=0)
    env.reset()
    with pytest.raises(envhive.EnvError) as excinfo:
        env.step(np.zeros(4, dtype=np.int64))
    assert excinfo.value.env_id == 2 and excinfo.value.env_ids == [2]
    obs, info = env.reset()
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    np.testing.assert_array_equal(obs[:, 1:], [[0, -1]] * 4)


def test_worker_exception_in_async_mode() -> None:
    env = envhive.make("Dummy-v0", num_envs=4, batch_size=2, num_threads=2, fail_env=2, fail_step=3, episode_length=0)
    env.async_reset()
    # Which envs come back first is up to the threads; env 2 reaches its third step within a
    # few rounds, but allow many.
    with pytest.raises(envhive.EnvError) as excinfo:
        for _ in range(2000):
            _, _, _, _, info = env.recv()
            env.send(np.zeros(2, dtype=np.int64), info["env_id"])
    assert excinfo.value.env_id == 2
    obs, info = env.reset()
    assert obs.shape == (2, 3)
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    _, rew, _, _, info2 = env.step(np.array([8, 9]), info["env_id"])
    assert rew.shape == (2,)


def test_worker_exception_same_step_failed_env_starts_new_episode() -> None:
    env = envhive.make("Dummy-v0", num_envs=3, fail_env=1, fail_step=2, episode_length=0, autoreset_mode="same_step")
    obs, _ = env.reset()
    draw = obs[1, 0]
    env.step(np.array([1, 1, 1]))
    with pytest.raises(envhive.EnvError, match="start a new episode on their next step"):
        env.step(np.array([2, 2, 2]))
    obs, _, _, _, info = env.step(np.array([3, 3, 3]))
    np.testing.assert_array_equal(info["elapsed_step"][[0, 2]], [3, 3])
    # Dummy's obs[1] is its own step count: it must agree with the pool's elapsed_step, and the
    # failed env must be in a fresh episode (new reset draw, at most one step in).
    assert obs[1, 1] == info["elapsed_step"][1]
    assert info["elapsed_step"][1] <= 1
    assert obs[1, 0] != draw
