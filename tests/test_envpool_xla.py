"""``env.xla()`` on ``envhive.envpool`` pools: EnvPool's own ``examples/xla_step.py`` (its three
loops, the import changed) and the env side of CleanRL's ``ppo_atari_envpool_xla_jax.py`` with
EnvPool 1.2's Gymnasium-API fixes, unchanged otherwise; outputs follow EnvPool's conventions
(float32 rewards, ``players``, Atari's int32 ``terminated``) and equal the numpy API's."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import jit, lax

import envhive.envpool as envpool
from envhive import xla as hx


def policy(states: jnp.ndarray) -> jnp.ndarray:
    return jnp.zeros(states.shape[0], dtype=jnp.int32)


def test_gym_sync_step_equals_the_numpy_api() -> None:
    env = envpool.make_gym("CartPole-v1", num_envs=4, seed=3)
    handle, recv, send, step = env.xla()

    def actor_step(i, loop_var):
        handle0, states, rewards = loop_var
        handle1, (new_states, rew, term, trunc, info) = step(handle0, policy(states))
        return handle1, new_states, rewards.at[i].set(rew)

    @jit
    def run_actor_loop(num_steps, init_var):
        return lax.fori_loop(0, num_steps, actor_step, init_var)

    states, _ = env.reset()
    _, final, rewards = run_actor_loop(30, (handle, states, jnp.zeros((30, 4), jnp.float32)))
    assert rewards.dtype == jnp.float32
    ref = envpool.make_gym("CartPole-v1", num_envs=4, seed=3)
    ref.reset()
    for t in range(30):
        obs, rew, _, _, info = ref.step(np.zeros(4, np.int32))
        np.testing.assert_array_equal(np.asarray(rewards[t]), rew)
        assert rew.dtype == np.float32 and set(info["players"]) == {"env_id"}
    np.testing.assert_array_equal(np.asarray(final), obs)


def test_dm_sync_step_gives_timesteps() -> None:
    env = envpool.make_dm("CartPole-v1", num_envs=4, seed=0)
    handle, recv, send, step = env.xla()

    def actor_step(i, loop_var):
        handle0, states = loop_var
        return step(handle0, policy(states.observation.obs))

    @jit
    def run_actor_loop(num_steps, init_var):
        return lax.fori_loop(0, num_steps, actor_step, init_var)

    states = env.reset()
    _, last = run_actor_loop(12, (handle, states))
    ref = envpool.make_dm("CartPole-v1", num_envs=4, seed=0)
    ref.reset()
    for _ in range(12):
        want = ref.step(np.zeros(4, np.int32))
    np.testing.assert_array_equal(np.asarray(last.step_type), want.step_type)
    np.testing.assert_array_equal(np.asarray(last.discount), want.discount)
    np.testing.assert_array_equal(np.asarray(last.observation.obs), want.observation.obs)
    np.testing.assert_array_equal(np.asarray(last.observation.players.env_id), want.observation.env_id)


def test_async_overlap_of_send_and_recv_on_one_handle() -> None:
    """EnvPool's overlap idiom: send and recv are given the same handle (XLA may run either first)."""
    env = envpool.make_dm("CartPole-v1", num_envs=8, batch_size=4, seed=0)
    handle, recv, send, step = env.xla()

    def actor_step(i, loop_var):
        handle0, states, seen = loop_var
        action = policy(states.observation.obs)
        send(handle0, action, states.observation.env_id)
        handle1, new_states = recv(handle0)
        return handle1, new_states, seen.at[new_states.observation.env_id].add(1)

    @jit
    def run_actor_loop(num_steps, init_var):
        return lax.fori_loop(0, num_steps, actor_step, init_var)

    env.async_reset()
    handle, states = recv(handle)
    handle, _, seen = run_actor_loop(50, (handle, states, jnp.zeros(8, jnp.int32)))
    assert int(seen.sum()) == 200 and (np.asarray(seen) > 0).all()
    handle, states = recv(handle)  # the pool is consistent afterwards: the other half of the envs
    # ... and a handle is still single use outside that pair: two recvs with one handle
    handle = send(handle, policy(states.observation.obs), states.observation.env_id)
    handle2, _ = recv(handle)
    with pytest.raises(hx.StaleHandleError, match="stale handle"), hx.translate_errors():
        jax.block_until_ready(recv(handle))
    del handle2


def test_two_sends_with_one_handle_are_stale() -> None:
    env = envpool.make_gym("CartPole-v1", num_envs=4, batch_size=2, seed=0)
    handle, recv, send, step = env.xla()
    env.async_reset()
    handle, (obs, *_rest, info) = recv(handle)
    send(handle, jnp.zeros(2, jnp.int32), info["env_id"])
    with pytest.raises(hx.StaleHandleError, match="stale handle"), hx.translate_errors():
        jax.block_until_ready(send(handle, jnp.zeros(2, jnp.int32), info["env_id"]))


def test_cleanrl_ppo_atari_envpool_xla_jax_env_code() -> None:
    """CleanRL's env setup and step wrapper (ppo_atari_envpool_xla_jax.py) with EnvPool 1.2's
    fixes: the 5-tuple step and reset, ``truncated`` for ``info["TimeLimit.truncated"]``."""
    pytest.importorskip("ale_py")
    num_envs = 2
    envs = envpool.make("Pong-v5", env_type="gym", num_envs=num_envs, episodic_life=True, reward_clip=True, seed=1)
    envs.num_envs = num_envs
    envs.single_action_space = envs.action_space
    envs.single_observation_space = envs.observation_space
    envs.is_vector_env = True
    returns = jnp.zeros(num_envs, dtype=jnp.float32)
    lengths = jnp.zeros(num_envs, dtype=jnp.int32)
    handle, recv, send, step_env = envs.xla()

    def step_env_wrapped(stats, handle, action):
        returns, lengths = stats
        handle, (next_obs, reward, term, trunc, info) = step_env(handle, action)
        new_return = returns + info["reward"]
        new_length = lengths + 1
        going = (1 - info["terminated"]) * (1 - trunc)
        stats = (new_return * going, new_length * going)
        return stats, handle, (next_obs, reward, term | trunc, info)

    @jax.jit
    def rollout(stats, handle, key):
        def body(carry, k):
            stats, handle = carry
            action = jax.random.randint(k, (num_envs,), 0, envs.single_action_space.n)
            stats, handle, (obs, reward, done, info) = step_env_wrapped(stats, handle, action)
            return (stats, handle), (obs, reward, info["terminated"], info["lives"])

        return jax.lax.scan(body, (stats, handle), jax.random.split(key, 40))

    next_obs, _ = envs.reset()
    assert next_obs.shape == (num_envs, *envs.single_observation_space.shape)
    (stats, handle), (obs, reward, terminated, lives) = rollout((returns, lengths), handle, jax.random.PRNGKey(0))
    assert obs.shape == (40, num_envs, 4, 84, 84) and obs.dtype == jnp.uint8
    assert reward.dtype == jnp.float32 and terminated.dtype == jnp.int32 and lives.dtype == jnp.int32
    assert int(stats[1].max()) == 40  # no life lost in 40 frames of Pong: every episode goes on
    envs.close()
