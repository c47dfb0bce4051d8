"""The dm_env facade: batched TimeSteps, FIRST/MID/LAST, discount on termination vs truncation."""

from __future__ import annotations

import dm_env
import numpy as np
import pytest
from dm_env import StepType

import envhive
import envhive.dm
from helpers import gym_vec, random_actions

FIRST, MID, LAST = int(StepType.FIRST), int(StepType.MID), int(StepType.LAST)


def test_reset_timestep() -> None:
    env = envhive.make_dm("CartPole-v1", num_envs=4, seed=6)
    assert isinstance(env, dm_env.Environment)
    ts = env.reset()
    np.testing.assert_array_equal(ts.step_type, FIRST)
    np.testing.assert_array_equal(ts.reward, 0.0)
    np.testing.assert_array_equal(ts.discount, 1.0)
    assert ts.observation.shape == (4, 4)
    # Same initial states as Gymnasium for the same seed.
    np.testing.assert_array_equal(ts.observation, gym_vec("CartPole-v1", 4).reset(seed=6)[0])
    np.testing.assert_array_equal(env.last_info["env_id"], np.arange(4))
    env.close()


def test_termination_gives_last_with_discount_zero_then_first() -> None:
    env = envhive.make_dm("CartPole-v1", num_envs=4, seed=1)
    ref = gym_vec("CartPole-v1", 4)
    env.reset()
    ref.reset(seed=1)
    rng = np.random.default_rng(0)
    prev_last = np.zeros(4, dtype=bool)
    lasts = 0
    for _ in range(150):
        a = random_actions(env.task_spec.action_space, 4, rng)
        ts = env.step(a)
        obs, rew, term, trunc, _ = ref.step(a)
        np.testing.assert_array_equal(ts.observation, obs)
        np.testing.assert_array_equal(ts.reward, rew)
        last = term | trunc
        expected = np.where(last, LAST, np.where(prev_last, FIRST, MID))
        np.testing.assert_array_equal(ts.step_type, expected)
        np.testing.assert_array_equal(ts.discount, np.where(term, 0.0, 1.0))
        np.testing.assert_array_equal(env.last_info["terminated"], term)
        np.testing.assert_array_equal(env.last_info["truncated"], trunc)
        # FIRST rows of a step start a new episode: reward 0.
        np.testing.assert_array_equal(ts.reward[prev_last], 0.0)
        lasts += int(term.sum())
        prev_last = last
    assert lasts >= 10
    assert ts.discount.dtype == np.float32 and ts.step_type.dtype == np.int8


def test_truncation_gives_last_with_discount_one() -> None:
    env = envhive.make_dm("Pendulum-v1", num_envs=2, seed=0)
    env.reset()
    action = np.zeros((2, 1), dtype=np.float32)
    for t in range(1, 200):
        ts = env.step(action)
        np.testing.assert_array_equal(ts.step_type, MID)
        np.testing.assert_array_equal(env.last_info["elapsed_step"], t)
    ts = env.step(action)
    np.testing.assert_array_equal(ts.step_type, LAST)
    np.testing.assert_array_equal(ts.discount, 1.0)  # truncated, not terminated: bootstrap
    np.testing.assert_array_equal(env.last_info["truncated"], True)
    np.testing.assert_array_equal(env.last_info["terminated"], False)
    assert np.all(ts.reward < 0)
    ts = env.step(action)
    np.testing.assert_array_equal(ts.step_type, FIRST)
    np.testing.assert_array_equal(ts.reward, 0.0)
    np.testing.assert_array_equal(ts.discount, 1.0)
    ts = env.step(action)
    np.testing.assert_array_equal(ts.step_type, MID)


def test_terminated_and_truncated_together_discount_zero() -> None:
    env = envhive.make_dm("Dummy-v0", num_envs=2, episode_length=3, max_episode_steps=3)
    env.reset()
    for _ in range(3):
        ts = env.step(np.array([1, 1]))
    np.testing.assert_array_equal(ts.step_type, LAST)
    np.testing.assert_array_equal(ts.discount, 0.0)


def test_specs() -> None:
    env = envhive.make_dm("CartPole-v1", num_envs=2)
    obs_spec = env.observation_spec()
    assert isinstance(obs_spec, dm_env.specs.BoundedArray)
    assert obs_spec.shape == (4,) and obs_spec.dtype == np.float32
    np.testing.assert_array_equal(obs_spec.maximum, env.task_spec.observation_space.high)
    act_spec = env.action_spec()
    assert isinstance(act_spec, dm_env.specs.DiscreteArray) and act_spec.num_values == 2
    assert env.reward_spec().dtype == np.float64
    assert env.discount_spec().minimum == 0.0 and env.discount_spec().maximum == 1.0
    pend = envhive.make_dm("Pendulum-v1")
    spec = pend.action_spec()
    assert isinstance(spec, dm_env.specs.BoundedArray) and spec.shape == (1,)
    np.testing.assert_array_equal(spec.minimum, [-2.0])
    np.testing.assert_array_equal(spec.maximum, [2.0])
    spec.validate(np.array([1.5], dtype=np.float32))


def test_async_dm() -> None:
    env = envhive.make_dm("Dummy-v0", num_envs=4, batch_size=2, episode_length=2)
    ts = env.reset()  # the first two envs to finish their reset
    assert ts.step_type.shape == (2,)
    np.testing.assert_array_equal(ts.step_type, FIRST)
    ids = env.last_info["env_id"].copy()
    env.send(ids * 10, ids)
    # The next two batches hold the other two envs' resets (FIRST) and these two envs' steps
    # (MID), in whatever order they complete: async mode promises first-ready, not FIFO.
    rows: dict[int, tuple[int, float]] = {}
    for _ in range(2):
        ts = env.recv()
        for r, env_id in enumerate(env.last_info["env_id"].tolist()):
            assert env_id not in rows
            rows[env_id] = (int(ts.step_type[r]), float(ts.reward[r]))
    assert sorted(rows) == [0, 1, 2, 3]
    for env_id, (step_type, reward) in rows.items():
        if env_id in ids.tolist():
            assert (step_type, reward) == (int(MID), env_id * 10.0)
        else:
            assert (step_type, reward) == (int(FIRST), 0.0)
    env.close()


def test_dm_rejects_other_autoreset_modes() -> None:
    with pytest.raises(ValueError, match="autoreset"):
        envhive.make_dm("CartPole-v1", autoreset_mode="same_step")
    assert envhive.make_dm("CartPole-v1", autoreset_mode="next_step").num_envs == 1


def test_step_types_and_discounts_are_read_only() -> None:
    env = envhive.make_dm("CartPole-v1", num_envs=3, seed=0)
    ts = env.reset()
    for arr in (ts.step_type, ts.discount):
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = 1
    ts = env.step(np.zeros(3, dtype=np.int64))
    assert not ts.step_type.flags.writeable and not ts.discount.flags.writeable
    assert ts.reward.flags.writeable  # the pool's own arrays are the caller's


@pytest.mark.parametrize(("num_envs", "limit"), [(1, 500), (5, 500), (40, 500), (40, 9)])
def test_sync_step_types_match_elapsed_steps(num_envs: int, limit: int) -> None:
    """Sync step types (computed by the native pool): check them against the elapsed-step rule,
    with terminations and (limit 9) truncations."""
    env = envhive.make_dm("CartPole-v1", num_envs=num_envs, seed=3, max_episode_steps=limit)
    env.reset()
    rng = np.random.default_rng(1)
    seen = {FIRST: 0, MID: 0, LAST: 0}
    for _ in range(400):
        ts = env.step(rng.integers(0, 2, size=num_envs))
        info = env.last_info
        done = info["terminated"] | info["truncated"]
        expected = np.where(done, LAST, np.where(info["elapsed_step"] == 0, FIRST, MID))
        np.testing.assert_array_equal(ts.step_type, expected)
        np.testing.assert_array_equal(ts.discount, np.where(info["terminated"], 0.0, 1.0))
        for t in (FIRST, MID, LAST):
            seen[t] += int((ts.step_type == t).sum())
    assert min(seen.values()) > 0


def test_step_types_after_an_env_error() -> None:
    """An env that raised restarts on its next step: that step is FIRST."""
    env = envhive.make_dm("Dummy-v0", num_envs=3, episode_length=0, fail_env=1, fail_step=2)
    env.reset()
    env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(envhive.EnvError):
        env.step(np.zeros(3, dtype=np.int64))
    ts = env.step(np.zeros(3, dtype=np.int64))
    np.testing.assert_array_equal(env.last_info["elapsed_step"] == 0, [False, True, False])
    np.testing.assert_array_equal(ts.step_type, [MID, FIRST, MID])


def test_single_env_view_follows_the_batched_facade() -> None:
    single = envhive.dm.HiveSingleDmEnv("CartPole-v1", seed=4)
    batched = envhive.make_dm("CartPole-v1", num_envs=1, seed=4)
    ts, ref = single.reset(), batched.reset()
    assert ts.step_type is StepType.FIRST and ts.reward is None and ts.discount is None
    np.testing.assert_array_equal(ts.observation, ref.observation[0])
    rng = np.random.default_rng(0)
    kinds = set()
    for _ in range(200):
        a = int(rng.integers(0, 2))
        ts, ref = single.step(a), batched.step(np.array([a]))
        assert ts.step_type == StepType(int(ref.step_type[0]))
        kinds.add(ts.step_type)
        np.testing.assert_array_equal(ts.observation, ref.observation[0])
        if ts.first():
            assert ts.reward is None and ts.discount is None
        else:
            assert ts.reward == ref.reward[0] and ts.reward.dtype == np.float64
            assert ts.discount == ref.discount[0] and ts.discount.dtype == np.float32
    assert kinds == {StepType.FIRST, StepType.MID, StepType.LAST}


def test_single_env_view_rejects_batches() -> None:
    with pytest.raises(ValueError, match="make_dm"):
        envhive.dm.HiveSingleDmEnv("CartPole-v1", num_envs=4)
    with pytest.raises(ValueError, match="autoreset"):
        envhive.dm.HiveSingleDmEnv("CartPole-v1", autoreset_mode="same_step")


def test_single_env_view_truncation_and_fresh_step() -> None:
    env = envhive.dm.HiveSingleDmEnv("Pendulum-v1", max_episode_steps=3, seed=0)
    assert env.step(np.zeros(1, dtype=np.float32)).first()  # step() on a fresh env resets
    for _ in range(2):
        assert env.step(np.zeros(1, dtype=np.float32)).mid()
    ts = env.step(np.zeros(1, dtype=np.float32))
    assert ts.last() and ts.discount == 1.0 and env.last_info["truncated"]
    assert env.step(np.zeros(1, dtype=np.float32)).first()


def test_native_step_types_equal_the_facades_own_on_another_backend() -> None:
    """The native pool computes step types and discounts (step_dm); over the process backend the
    facade derives them from the flags. Same seeds, same actions: the same TimeSteps, with
    terminations and (limit 12) truncations."""
    kwargs = dict(num_envs=5, seed=3, max_episode_steps=12)
    native = envhive.make_dm("CartPole-v1", **kwargs)
    derived = envhive.make_dm(envhive.make("CartPole-v1", backend="process", **kwargs))
    assert native._vec.capabilities.dm_step_types and not derived._vec.capabilities.dm_step_types
    for a, b in zip(native.reset(), derived.reset(), strict=True):
        np.testing.assert_array_equal(a, b)
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(120):
        action = rng.integers(0, 2, size=5)
        ts, ref = native.step(action), derived.step(action)
        for name in ("step_type", "reward", "discount", "observation"):
            x, y = getattr(ts, name), getattr(ref, name)
            assert x.dtype == y.dtype, name
            np.testing.assert_array_equal(x, y, err_msg=name)
        assert not ts.step_type.flags.writeable and not ts.discount.flags.writeable
        for key in ("terminated", "truncated", "elapsed_step", "env_id"):
            np.testing.assert_array_equal(native.last_info[key], derived.last_info[key])
        seen.update(zip(ts.step_type.tolist(), ts.discount.tolist(), strict=True))
    assert {(FIRST, 1.0), (MID, 1.0), (LAST, 0.0), (LAST, 1.0)} <= seen
    native.close()
    derived.close()


def test_native_dm_calls_check_their_timestep_type() -> None:
    """step_dm / recv_dm build their TimeStep as the type they were given: a tuple subclass with no
    fields of its own; without one they refuse to step (the pool is left as it was)."""
    vec = envhive.make("CartPole-v1", num_envs=2, seed=0)
    vec.reset()
    pool = vec.backend.pool
    assert pool.timestep_type is None
    with pytest.raises(ValueError, match="timestep_type"):
        pool.step_dm(np.zeros(2, dtype=np.int64))

    class WithDict(tuple):  # instances have a __dict__: not a plain typed tuple
        pass

    for bad in (dict, int, "TimeStep", WithDict):
        with pytest.raises(TypeError, match="tuple subclass"):
            pool.timestep_type = bad
    with pytest.raises(TypeError):
        pool.timestep_type = None
    step, _ = vec.backend.dm_calls(dm_env.TimeStep)
    assert pool.timestep_type is dm_env.TimeStep
    ts, (info, terminated, truncated) = step(np.zeros(2, dtype=np.int64))
    assert type(ts) is dm_env.TimeStep
    np.testing.assert_array_equal(ts.step_type, [MID, MID])
    np.testing.assert_array_equal(info["elapsed_step"], [1, 1])
    assert not terminated.any() and not truncated.any()
    vec.close()


def test_the_dm_facade_has_xla_with_the_same_timesteps() -> None:
    """make_dm(...).xla(): TimeSteps of JAX arrays equal to the numpy facade's, step for step."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    env = envhive.make_dm("CartPole-v1", num_envs=3, seed=5, max_episode_steps=15)
    ref = envhive.make_dm("CartPole-v1", num_envs=3, seed=5, max_episode_steps=15)
    handle, _, _, step = env.xla()
    env.reset()
    ref.reset()

    @jax.jit
    def run(h):
        def body(h, _):
            h, ts = step(h, jnp.ones(3, jnp.int32))
            return h, ts

        return jax.lax.scan(body, h, None, length=30)

    _, ts = run(handle)
    for t in range(30):
        want = ref.step(np.ones(3, dtype=np.int64))
        np.testing.assert_array_equal(np.asarray(ts.step_type[t]), want.step_type)
        np.testing.assert_array_equal(np.asarray(ts.discount[t]), want.discount)
        np.testing.assert_array_equal(np.asarray(ts.reward[t]), want.reward.astype(np.float32))
        np.testing.assert_array_equal(np.asarray(ts.observation[t]), want.observation)
