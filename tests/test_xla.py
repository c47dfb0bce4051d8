"""env.xla(): envhive pools inside jit, lax.scan, lax.while_loop and vmap through XLA FFI.

Every rollout here is checked against the same actions replayed through the numpy API on an
identically seeded pool: the XLA path must produce the same data, for every family.
"""

from __future__ import annotations

import ctypes
import gc
import os
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import envhive
from envhive import xla as hx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from examples.python_reacher import PointReacher  # noqa: E402


def rollout(step, n_steps: int, sample):
    """jit(scan) of n_steps steps; actions from sample(key); returns the final handle and the
    stacked (actions, obs, reward, terminated, truncated, info)."""
    return jax.jit(scan_fn(step, n_steps, sample))


def scan_fn(step, n_steps: int, sample):
    def run(handle, key):
        def body(h, k):
            a = sample(k)
            h, (obs, rew, term, trunc, info) = step(h, a)
            return h, (a, obs, rew, term, trunc, info)

        return jax.lax.scan(body, handle, jax.random.split(key, n_steps))

    return run


def replay(task: str, actions: np.ndarray, **kw):
    """The same actions through the numpy API; stacked outputs."""
    env = envhive.make(task, **kw)
    env.reset()
    outs = [env.step(np.asarray(a)) for a in actions]
    env.close()
    return outs


def discrete(n_envs: int, n: int):
    return lambda k: jax.random.randint(k, (n_envs,), 0, n)


def box(n_envs: int, shape, low: float, high: float):
    return lambda k: jax.random.uniform(k, (n_envs, *shape), minval=low, maxval=high)


@pytest.mark.parametrize(
    ("task", "kw", "sample", "steps"),
    [
        ("CartPole-v1", {}, discrete(8, 2), 300),
        ("Pendulum-v1", {}, box(8, (1,), -2.0, 2.0), 60),
        ("Dummy-v0", {}, discrete(8, 1000), 30),  # float64 obs, int64 info: narrowed without x64
        ("HalfCheetah-v5", {}, box(8, (6,), -1.0, 1.0), 30),
        ("Pong-v5", {}, discrete(8, 6), 20),
    ],
)
def test_scan_matches_the_numpy_api(task, kw, sample, steps) -> None:
    env = envhive.make(task, num_envs=8, seed=3, **kw)
    env.reset()
    handle, _, _, step = env.xla()
    handle, (a, obs, rew, term, trunc, info) = rollout(step, steps, sample)(handle, jax.random.key(1))
    ref = replay(task, np.asarray(a), num_envs=8, seed=3, **kw)
    assert obs.shape == (steps, 8, *env.single_observation_space.shape)
    for t, (o, r, te, tr, inf) in enumerate(ref):
        np.testing.assert_array_equal(np.asarray(obs[t]), o.astype(obs.dtype), err_msg=f"obs at step {t}")
        np.testing.assert_array_equal(np.asarray(rew[t]), r.astype(rew.dtype), err_msg=f"reward at step {t}")
        np.testing.assert_array_equal(np.asarray(term[t]), te)
        np.testing.assert_array_equal(np.asarray(trunc[t]), tr)
        for name in inf:
            np.testing.assert_array_equal(np.asarray(info[name][t]), inf[name].astype(info[name].dtype), name)
    # without jax_enable_x64, 64-bit outputs are their 32-bit forms (as jnp.asarray makes them)
    assert rew.dtype == jnp.float32
    assert obs.dtype == jax.dtypes.canonicalize_dtype(env.single_observation_space.dtype)
    # the returned handle carries on
    handle, *_ = rollout(step, 2, sample)(handle, jax.random.key(2))
    handle.block_until_ready()
    env.close()


def test_python_written_env() -> None:
    """A PyEnv (Numba-compiled, in _native) with a Box action space, through the same targets."""
    env = envhive.make(PointReacher, num_envs=4, seed=0)
    env.reset()
    handle, _, _, step = env.xla()
    space = env.single_action_space
    _, (a, obs, rew, *_rest) = rollout(step, 40, box(4, space.shape, -1.0, 1.0))(handle, jax.random.key(0))
    env2 = envhive.make(PointReacher, num_envs=4, seed=0)
    env2.reset()
    for t in range(40):
        o, r, *_ = env2.step(np.asarray(a[t]))
        np.testing.assert_array_equal(np.asarray(obs[t]), o.astype(obs.dtype))
        np.testing.assert_array_equal(np.asarray(rew[t]), r.astype(np.float32))


def test_async_recv_send_matches_the_numpy_api() -> None:
    """Async pool, EnvPool's loop: recv, then send to the envs received. One thread steps envs in
    the order they were sent, so the batches are reproducible."""
    kw = {"num_envs": 6, "batch_size": 3, "num_threads": 1, "seed": 5}
    env = envhive.make("CartPole-v1", **kw)
    env.async_reset()
    handle, recv, send, _ = env.xla()

    @jax.jit
    def run(h, key):
        def body(h, k):
            h, (obs, rew, term, trunc, info) = recv(h)
            a = jax.random.randint(k, (3,), 0, 2)
            h = send(h, a, info["env_id"])
            return h, (obs, rew, info["env_id"], a)

        return jax.lax.scan(body, h, jax.random.split(key, 50))

    handle, (obs, rew, ids, acts) = run(handle, jax.random.key(0))
    ref = envhive.make("CartPole-v1", **kw)
    ref.async_reset()
    for t in range(50):
        o, r, _, _, info = ref.recv()
        np.testing.assert_array_equal(np.asarray(ids[t]), info["env_id"])
        np.testing.assert_array_equal(np.asarray(obs[t]), o)
        np.testing.assert_array_equal(np.asarray(rew[t]), r.astype(np.float32))
        ref.send(np.asarray(acts[t]), info["env_id"])
    with pytest.raises(ValueError, match="env_id"):
        send(handle, jnp.zeros(3, jnp.int32))  # an async pool must say which envs it answers


def test_same_step_final_obs_is_dense_with_a_mask() -> None:
    kw = {"num_envs": 4, "seed": 1, "autoreset_mode": "same_step", "episode_length": 3}
    env = envhive.make("Dummy-v0", **kw)
    env.reset()
    handle, _, _, step = env.xla()
    _, (a, obs, rew, term, trunc, info) = rollout(step, 7, discrete(4, 10))(handle, jax.random.key(0))
    ref = replay("Dummy-v0", np.asarray(a), **kw)
    saw_end = False
    for t, (o, _, te, _, inf) in enumerate(ref):
        np.testing.assert_array_equal(np.asarray(obs[t]), o.astype(np.float32))
        mask = np.asarray(info["_final_obs"][t])
        assert mask.tolist() == te.tolist()
        if "final_obs" in inf:
            saw_end = True
            for i in np.flatnonzero(mask):
                np.testing.assert_array_equal(
                    np.asarray(info["final_obs"][t][i]), inf["final_obs"][i].astype(np.float32)
                )
            fi = info["final_info"]
            np.testing.assert_array_equal(
                np.asarray(fi["last_action"][t])[mask], inf["final_info"]["last_action"][mask]
            )
            np.testing.assert_array_equal(np.asarray(fi["_last_action"][t]), mask)
        # rows of envs that did not end hold zeros (static shapes, no ragged lists)
        assert not np.asarray(info["final_obs"][t])[~mask].any()
    assert saw_end


def test_disabled_mode_refuses_an_ended_env() -> None:
    env = envhive.make("Dummy-v0", num_envs=2, episode_length=2, autoreset_mode="disabled")
    env.reset()
    handle, _, _, step = env.xla()
    f = jax.jit(step)
    for _ in range(2):
        handle, _ = f(handle, jnp.zeros(2, jnp.int32))
    with (
        pytest.raises(ValueError, match="has ended its episode and autoreset_mode is 'disabled'"),
        hx.translate_errors(),
    ):
        jax.block_until_ready(f(handle, jnp.zeros(2, jnp.int32)))
    env.reset()  # the numpy API resets, and the same handle carries on (the failed call changed nothing)
    jax.block_until_ready(f(handle, jnp.zeros(2, jnp.int32)))


def test_while_loop_steps_exactly_as_often_as_it_runs() -> None:
    env = envhive.make("CartPole-v1", num_envs=16, seed=0)
    env.reset()
    handle, _, _, step = env.xla()

    @jax.jit
    def until(h, key):
        def cond(c):
            return c[1] < 40

        def body(c):
            h, episodes, n, k = c
            k, sub = jax.random.split(k)
            h, (_, _, term, trunc, _) = step(h, jax.random.randint(sub, (16,), 0, 2))
            return h, episodes + jnp.sum(term | trunc), n + 1, k

        return jax.lax.while_loop(cond, body, (h, 0, 0, key))

    handle, episodes, n, _ = until(handle, jax.random.key(0))
    assert int(episodes) >= 40
    elapsed = env.step(np.zeros(16, np.int64))[4]["elapsed_step"]  # the numpy API sees the same pool
    assert int(n) > 0 and elapsed.max() <= int(n) + 1


def test_donation_reuses_the_handle_buffer() -> None:
    env = envhive.make("CartPole-v1", num_envs=4)
    env.reset()
    handle, _, _, step = env.xla()
    f = jax.jit(lambda h, a: step(h, a)[0], donate_argnums=0)
    assert "may-alias" in f.lower(handle, jnp.zeros(4, jnp.int32)).compile().as_text()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "donated buffers were not usable" would be a warning
        new = f(handle, jnp.zeros(4, jnp.int32))
    assert handle.is_deleted()
    with pytest.raises(RuntimeError, match="deleted"):
        f(handle, jnp.zeros(4, jnp.int32))
    f(new, jnp.zeros(4, jnp.int32)).block_until_ready()


def test_a_call_whose_result_is_unused_still_steps() -> None:
    env = envhive.make("Dummy-v0", num_envs=2, episode_length=0)
    env.reset()
    handle, _, _, step = env.xla()

    @jax.jit
    def discard(h):
        step(h, jnp.ones(2, jnp.int32))
        return jnp.zeros(())

    discard(handle).block_until_ready()
    assert env.step(np.ones(2, np.int64))[4]["elapsed_step"].tolist() == [2, 2]


def test_the_program_is_compiled_once_for_any_pool_of_the_same_shapes() -> None:
    envs = [envhive.make("CartPole-v1", num_envs=4, seed=s) for s in (0, 1)]
    for e in envs:
        e.reset()
    fns = [e.xla() for e in envs]
    traces = []

    @jax.jit
    def f(h, a):
        traces.append(1)
        return fns[0].step(h, a)  # any pool's step serves: the pool is in the handle's data

    o0 = f(fns[0].handle, jnp.zeros(4, jnp.int32))[1][0]
    o1 = f(fns[1].handle, jnp.zeros(4, jnp.int32))[1][0]
    assert len(traces) == 1 and not np.array_equal(np.asarray(o0), np.asarray(o1))


# ---------------------------------------------------------------------------------------------- vmap


@pytest.mark.parametrize("num_threads", [None, 1], ids=["own-threads", "one-thread"])
def test_vmap_over_handles_steps_each_pool_as_alone(num_threads: int | None) -> None:
    """Pools with threads of their own, and 1-thread pools (whose lanes the call waits for on its
    own thread, or with helper threads when lanes are slow: xla/lane_runner.h): each lane exactly as
    its pool stepped alone."""
    seeds = [10, 20, 30, 40]
    envs = [envhive.make("CartPole-v1", num_envs=4, seed=s, num_threads=num_threads) for s in seeds]
    for e in envs:
        e.reset()
    fns = [e.xla() for e in envs]
    handles = jnp.stack([f.handle for f in fns])
    run = jax.jit(jax.vmap(scan_fn(fns[0].step, 50, discrete(4, 2))))
    handles, (a, obs, *_rest) = run(handles, jax.random.split(jax.random.key(0), 4))
    assert "envhive_step" in jax.jit(jax.vmap(lambda h, a: fns[0].step(h, a))).lower(handles, a[:, 0]).as_text()
    for lane, s in enumerate(seeds):
        ref = replay("CartPole-v1", np.asarray(a[lane]), num_envs=4, seed=s)
        for t, (o, *_r) in enumerate(ref):
            np.testing.assert_array_equal(np.asarray(obs[lane, t]), o, err_msg=f"lane {lane} step {t}")
    # a 2 x 2 grid of pools is one call too (nested vmap)
    grid = handles.reshape(2, 2, -1)
    step2 = jax.jit(jax.vmap(jax.vmap(fns[0].step)))
    hlo = step2.lower(grid, jnp.zeros((2, 2, 4), jnp.int32)).as_text()
    assert hlo.count("envhive_step") == 1
    grid, (obs2, *_r) = step2(grid, jnp.zeros((2, 2, 4), jnp.int32))
    assert obs2.shape == (2, 2, 4, 4)


def test_vmap_of_one_thread_mujoco_pools_with_guests_matches_each_pool_alone() -> None:
    """Lanes of 1-thread HalfCheetah pools (~0.2 ms each) are shared from the second call on, and a
    thread with no lane left steps envs of the others' pools as a guest (Pool::assist): every lane
    still equals its pool stepped alone, bit for bit, through 40 steps."""
    seeds = [3, 4, 5, 6]
    envs = [envhive.make("HalfCheetah-v5", num_envs=4, seed=s, num_threads=1) for s in seeds]
    for e in envs:
        e.reset()
    fns = [e.xla() for e in envs]
    handles = jnp.stack([f.handle for f in fns])
    run = jax.jit(jax.vmap(scan_fn(fns[0].step, 40, box(4, (6,), -1.0, 1.0))))
    handles, (a, obs, rew, *_rest) = run(handles, jax.random.split(jax.random.key(1), 4))
    for lane, s in enumerate(seeds):
        ref = replay("HalfCheetah-v5", np.asarray(a[lane]), num_envs=4, seed=s)
        for t, (o, r, *_r) in enumerate(ref):
            where = f"lane {lane} step {t}"
            np.testing.assert_array_equal(np.asarray(obs[lane, t]), o.astype(np.float32), err_msg=where)
            np.testing.assert_array_equal(np.asarray(rew[lane, t]), r.astype(np.float32), err_msg=where)


def test_an_env_error_in_one_lane_of_one_thread_pools_names_its_lane_and_env() -> None:
    """Lanes of 1-thread pools worth sharing are waited for on helper threads too: an env raising in
    lane 2 still comes back as that lane's EnvError, every lane's batch is taken, and the pools carry
    on."""
    envs = [
        envhive.make(
            "Dummy-v0",
            num_envs=3,
            num_threads=1,
            episode_length=0,
            delays_us=[200.0],  # 0.6 ms lanes: from the second call on the helpers share them
            **({"fail_env": 1, "fail_step": 2} if i == 2 else {}),
        )
        for i in range(4)
    ]
    for e in envs:
        e.reset()
    fns = [e.xla() for e in envs]
    handles = jnp.stack([f.handle for f in fns])
    step = jax.jit(jax.vmap(fns[0].step))
    run = hx.checked(step)
    zeros = jnp.zeros((4, 3), jnp.int32)
    handles, _ = run(handles, zeros)
    with pytest.raises(envhive.EnvError) as err:
        run(handles, zeros)
    assert err.value.lane == 2 and err.value.env_ids == [1]
    handles, (obs, *_r) = run(handles, zeros)  # after a failed call the pools take the next handles
    obs = np.asarray(obs)
    assert obs[2, 1, 1] == 0  # lane 2's env 1 started a new episode
    assert (obs[[0, 1, 3], :, 1] == 3).all() and (obs[2, [0, 2], 1] == 3).all()  # the rest stepped 3 times


def _thread_ids() -> set[str]:
    return set(os.listdir("/proc/self/task"))


def _context_switches(tids: set[str]) -> int:
    """Context switches so far of these threads of this process (Linux /proc)."""
    total = 0
    for tid in tids:
        with open(f"/proc/self/task/{tid}/status") as f:
            total += sum(int(line.split()[1]) for line in f if "ctxt_switches" in line)
    return total


@pytest.mark.skipif(
    not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2, reason="needs Linux /proc and 2+ cores"
)
def test_shared_vmap_calls_leave_the_pools_own_workers_asleep() -> None:
    """In a shared vmapped call the lanes' threads step every env (their pools' workers sit out), so
    the pools are told before their work is queued: their workers are never woken to sit out (they
    used to be woken on every call and spin, ~1.5 context switches per worker per call)."""
    before = _thread_ids()
    envs = [
        envhive.make("Dummy-v0", num_envs=4, num_threads=2, episode_length=0, delays_us=[200.0], seed=i)
        for i in range(4)
    ]
    workers = _thread_ids() - before  # the pools' own threads
    assert len(workers) >= 4
    for e in envs:
        e.reset()
    fns = [e.xla() for e in envs]
    handles = jnp.stack([f.handle for f in fns])
    step = jax.jit(jax.vmap(fns[0].step))
    zeros = jnp.zeros((4, 4), jnp.int32)
    for _ in range(3):  # lanes of ~0.4-0.8 ms: shared from the second call on
        handles, out = step(handles, zeros)
        jax.block_until_ready(out)
    time.sleep(0.05)  # workers still spinning from before the calls were shared go to sleep
    switches = _context_switches(workers)
    for _ in range(10):
        handles, out = step(handles, zeros)
    jax.block_until_ready(out)
    assert _context_switches(workers) - switches <= len(workers)  # (a spurious wake-up each at most)
    assert (np.asarray(out[0])[:, :, 1] == 13).all()  # every env of every lane stepped 13 times
    for e in envs:
        e.close()


def test_vmap_of_anything_but_a_batch_of_handles_is_refused_at_trace_time() -> None:
    env = envhive.make("CartPole-v1", num_envs=4)
    env.reset()
    handle, _, send, step = env.xla()
    actions = jnp.zeros((3, 4), jnp.int32)
    with pytest.raises(hx.XlaBatchingError, match=r"batched: handle=False, actions=True"):
        jax.jit(jax.vmap(step, in_axes=(None, 0))).trace(handle, actions)
    with pytest.raises(hx.XlaBatchingError, match=r"handle=False, actions=True"):
        jax.jit(jax.vmap(lambda a: step(handle, a))).trace(actions)  # a closed-over handle too
    async_env = envhive.make("CartPole-v1", num_envs=4, batch_size=2)
    ah, _, asend, _ = async_env.xla()
    with pytest.raises(hx.XlaBatchingError, match=r"handle=False, actions=True, env_id=True"):
        jax.jit(jax.vmap(asend, in_axes=(None, 0, 0))).trace(
            ah, jnp.zeros((2, 2), jnp.int32), jnp.zeros((2, 2), dtype=jnp.int32)
        )
    # a batch of handles with actions that are the same for every lane: each pool gets them
    other = envhive.make("CartPole-v1", num_envs=4)
    other.reset()
    hs = jnp.stack([handle, other.xla().handle])
    hs, (obs, *_r) = jax.jit(jax.vmap(step, in_axes=(0, None)))(hs, jnp.ones(4, jnp.int32))
    assert obs.shape == (2, 4, 4)
    assert env.step(np.ones(4, np.int64))[4]["elapsed_step"].tolist() == [2] * 4
    # the same pool in two lanes is caught when it runs
    with pytest.raises(ValueError, match="the same pool is also lane 0"), hx.translate_errors():
        jax.block_until_ready(jax.jit(jax.vmap(step))(jnp.stack([hs[0], hs[0]]), jnp.zeros((2, 4), jnp.int32)))


def test_vmap_of_cond_with_per_lane_predicates_is_caught_by_the_call_number() -> None:
    envs = [envhive.make("CartPole-v1", num_envs=2, seed=s) for s in range(4)]
    for e in envs:
        e.reset()
    fns = [e.xla() for e in envs]
    handles = jnp.stack([f.handle for f in fns])
    step = fns[0].step

    def maybe(h, go):
        return jax.lax.cond(go, lambda h: step(h, jnp.zeros(2, jnp.int32))[0], lambda h: h, h)

    f = jax.jit(jax.vmap(maybe))
    handles = f(handles, jnp.array([True, False, True, False]))
    # lanes 1 and 3 were stepped although their branch was not taken, and their handle not advanced
    with pytest.raises(hx.StaleHandleError, match="stale handle") as err, hx.translate_errors():
        jax.block_until_ready(f(handles, jnp.array([True, True, True, True])))
    assert err.value.lane in (1, 3)


def test_pmap_and_shard_map_step_each_pool_once() -> None:
    code = textwrap.dedent(
        """
        import os
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
        import jax, jax.numpy as jnp, numpy as np, envhive
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        envs = [envhive.make("Dummy-v0", num_envs=2, episode_length=0) for _ in range(4)]
        for e in envs:
            e.reset()
        fns = [e.xla() for e in envs]
        step = fns[0].step
        hs = jax.pmap(lambda h, a: step(h, a)[0])(jnp.stack([f.handle for f in fns[:2]]), jnp.ones((2, 2), jnp.int32))
        hs.block_until_ready()
        mesh = Mesh(np.array(jax.devices()), ("pools",))
        put = lambda x: jax.device_put(x, NamedSharding(mesh, P("pools")))
        sm = jax.jit(jax.shard_map(jax.vmap(lambda h, a: step(h, a)[0]), mesh=mesh,
                                   in_specs=P("pools"), out_specs=P("pools")))
        handles = jnp.stack([np.asarray(hs[0]), np.asarray(hs[1]), fns[2].handle, fns[3].handle])
        sm(put(handles), put(jnp.ones((4, 2), jnp.int32))).block_until_ready()
        print([int(e.step(np.ones(2, np.int64))[4]["elapsed_step"][0]) for e in envs])
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    # pools 0, 1: pmap and shard_map, then the numpy step; pools 2, 3: shard_map, then numpy
    assert out.stdout.strip().splitlines()[-1] == "[3, 3, 2, 2]", out.stderr[-2000:]


# ---------------------------------------------------------------------------------------------- errors


def test_errors_inside_a_call_are_envhive_exceptions_and_the_pool_stays_usable() -> None:
    env = envhive.make("Dummy-v0", num_envs=4, fail_env=2, fail_step=3, episode_length=0)
    env.reset()
    handle, _, _, step = env.xla()
    f = jax.jit(step)
    run = hx.checked(f)
    # a bad action: rejected before anything is queued
    with pytest.raises(ValueError, match=r"action 1000 for env 1 is outside Discrete\(1000\)"):
        run(handle, jnp.array([0, 1000, 0, 0]))
    handle, _ = run(handle, jnp.zeros(4, jnp.int32))
    handle, _ = run(handle, jnp.zeros(4, jnp.int32))
    # an env raising in a worker: EnvError with its env id; the raw error is a JaxRuntimeError
    with pytest.raises(jax.errors.JaxRuntimeError, match=r"ABORTED.*env 2 raised: Dummy-v0 failure injected"):
        jax.block_until_ready(f(handle, jnp.zeros(4, jnp.int32)))
    handle2, (obs, *_r) = run(handle, jnp.zeros(4, jnp.int32))  # usable again: env 2 restarted
    assert np.asarray(obs)[2, 1] == 0  # env 2 started a new episode; the others carry on
    assert np.asarray(obs)[0, 1] == 4  # (the failed call stepped them: its batch was lost)
    with pytest.raises(envhive.EnvError) as err:
        for _ in range(4):
            handle2, _ = run(handle2, jnp.zeros(4, jnp.int32))
    assert err.value.env_id == 2 and err.value.env_ids == [2] and err.value.pool_serial is not None
    # a stale handle (after a failed call the pool takes whatever handle comes next, once)
    handle3, _ = run(handle2, jnp.zeros(4, jnp.int32))
    with pytest.raises(hx.StaleHandleError, match="stale handle: this is call"):
        run(handle2, jnp.zeros(4, jnp.int32))
    handle2, _ = run(handle3, jnp.zeros(4, jnp.int32))
    # a handle that is not one
    with pytest.raises(ValueError, match="not a pool handle of this process"):
        run(jnp.zeros(hx.HANDLE_BYTES, jnp.uint8), jnp.zeros(4, jnp.int32))
    # a closed pool
    env.close()
    with pytest.raises(envhive.PoolClosedError, match="closed or deleted"):
        run(handle2, jnp.zeros(4, jnp.int32))
    with pytest.raises(envhive.PoolClosedError):
        env.xla()


def test_step_before_reset_and_shapes() -> None:
    env = envhive.make("CartPole-v1", num_envs=4)
    handle, recv, _, step = env.xla()
    with pytest.raises(envhive.ResetNeeded, match="has not been reset"):
        hx.checked(jax.jit(step))(handle, jnp.zeros(4, jnp.int32))
    with pytest.raises(ValueError, match=r"recv\(\) would wait forever"):
        hx.checked(jax.jit(recv))(handle)
    with pytest.raises(ValueError, match=r"actions must have shape \(4,\)"):
        step(handle, jnp.zeros(3, jnp.int32))
    with pytest.raises(TypeError, match="must be integers"):
        step(handle, jnp.zeros(4, jnp.float32))


def test_a_deleted_pool_fails_cleanly() -> None:
    env = envhive.make("CartPole-v1", num_envs=2)
    env.reset()
    f = jax.jit(env.xla().step)  # any pool's step serves any pool's handle of the same shapes
    other = envhive.make("CartPole-v1", num_envs=2)
    other.reset()
    handle = other.xla().handle
    del other  # the functions of other.xla() kept it alive; they are gone too
    gc.collect()
    with pytest.raises(envhive.PoolClosedError, match="closed or deleted"):
        hx.checked(f)(handle, jnp.zeros(2, jnp.int32))


def test_close_from_another_thread_ends_a_waiting_call() -> None:
    env = envhive.make("Dummy-v0", num_envs=2, num_threads=1, episode_length=0, delays_us=[300_000.0])
    env.reset()
    handle, _, _, step = env.xla()
    f = jax.jit(step)
    f.lower(handle, jnp.zeros(2, jnp.int32)).compile()
    closer = threading.Timer(0.1, env.close)
    closer.start()
    t0 = time.monotonic()
    try:
        jax.block_until_ready(f(handle, jnp.zeros(2, jnp.int32)))
        raised = None
    except jax.errors.JaxRuntimeError as e:
        raised = hx.translate(e)
    closer.join()
    # the call either finished its (uninterruptible) env step or returned "closed"; never a hang
    assert raised is None or isinstance(raised, envhive.PoolClosedError), raised
    assert time.monotonic() - t0 < 30
    assert env.closed


def test_closing_a_pool_whose_threads_write_into_the_call_s_obs_output() -> None:
    """With x64 the float64 observations go straight from the pool's threads into the call's obs
    output (no copy); a close from another thread meanwhile fails the call only after the threads
    are done with that buffer (the C++ test settle_completes_the_envs_in_flight_after_a_closed_wait
    checks the pool's side), and a completed call's obs equal the numpy API's."""
    with jax.enable_x64(True):
        env = envhive.make("Dummy-v0", num_envs=6, num_threads=3, seed=5, episode_length=0, delays_us=[150_000.0])
        env.reset()
        handle, _, _, step = env.xla()
        f = jax.jit(step)
        actions = jnp.arange(6, dtype=jnp.int32)
        handle, (obs, *_) = f(handle, actions)
        assert obs.dtype == jnp.float64
        ref = replay("Dummy-v0", np.asarray(actions)[None], num_envs=6, seed=5, episode_length=0)
        np.testing.assert_array_equal(np.asarray(obs), ref[0][0])
        closer = threading.Timer(0.01, env.close)
        closer.start()
        t0 = time.monotonic()
        try:
            jax.block_until_ready(f(handle, actions))
            raised = None
        except jax.errors.JaxRuntimeError as e:
            raised = hx.translate(e)
        closer.join()
        assert isinstance(raised, envhive.PoolClosedError), raised  # 2 x 150 ms of steps; the close at 10 ms
        assert time.monotonic() - t0 < 30
        assert env.closed


def test_a_python_call_and_a_program_inside_the_pool_at_once_are_refused() -> None:
    """A pool serves one call at a time. A jitted step runs on another thread while this thread
    makes a Python step; each env step takes 1 s, so the two overlap whichever gets in first, and
    the second one is refused with PoolBusyError (Python's, or the program's after translation).
    Either way the pool and the handle carry on."""
    env = envhive.make("Dummy-v0", num_envs=1, num_threads=1, episode_length=0, delays_us=[1_000_000.0])
    env.reset()
    handle, _, _, step = env.xla()
    f = jax.jit(step)
    f.lower(handle, jnp.zeros(1, jnp.int32)).compile()
    refused: list[Exception] = []
    result: list[jax.Array] = []
    started = threading.Event()

    def program() -> None:
        started.set()
        try:
            result.append(hx.checked(f)(handle, jnp.zeros(1, jnp.int32))[0])
        except envhive.PoolBusyError as e:  # Python got in first
            refused.append(e)

    runner = threading.Thread(target=program)
    runner.start()
    started.wait()
    try:
        env.step(np.zeros(1, np.int64))
    except envhive.PoolBusyError as e:  # the program got in first
        refused.append(e)
    runner.join()
    assert len(refused) == 1, refused
    assert "in use by another" in str(refused[0])
    # the handle the caller holds (the program's, or the one before a refused program) carries on
    hx.checked(f)(result[0] if result else handle, jnp.zeros(1, jnp.int32))
    assert env.step(np.zeros(1, np.int64))[4]["elapsed_step"].tolist() == [3]  # 1 of the 2, then 2 more
    env.close()


# ---------------------------------------------------------------------------------------------- GPU


def test_cuda_targets_are_registered_and_inert_without_a_gpu() -> None:
    hx.register_targets()
    hx.register_targets()  # once per process; again is a no-op
    if hx.cuda_available():
        pytest.skip("a CUDA device is present: test_gpu_rollout covers it")
    # no CUDA backend here: jaxlib keeps the CUDA registration pending (it never runs), and the CPU
    # path is unaffected; the handlers load the driver themselves, exactly where ctypes can
    targets = hx._xla.cuda_targets()
    assert set(targets) == set(hx._xla.cpu_targets()) == {"envhive_send", "envhive_recv", "envhive_step"}
    for name, capsule in targets.items():
        jax.ffi.register_ffi_target(name, capsule, platform="CUDA", api_version=1)
    try:
        ctypes.CDLL("libcuda.so.1")
        loads = True
    except OSError:
        loads = False
    assert hx.cuda_driver_available() == loads
    env = envhive.make("CartPole-v1", num_envs=2)
    env.reset()
    handle, _, _, step = env.xla()
    jax.block_until_ready(jax.jit(step)(handle, jnp.zeros(2, jnp.int32)))


def test_gpu_rollout_matches_the_cpu() -> None:
    # Asked when the test runs, not at collection: asking starts JAX's backends (and its threads).
    if not hx.cuda_available():
        pytest.skip("needs JAX with a CUDA device (none on this machine)")
    gpu = jax.devices("cuda")[0]
    env = envhive.make("CartPole-v1", num_envs=8, seed=3)
    env.reset()
    handle, _, _, step = env.xla()
    with jax.default_device(gpu):
        h = jax.device_put(handle, gpu)
        _, (a, obs, *_r) = rollout(step, 50, discrete(8, 2))(h, jax.random.key(1))
    assert obs.devices() == {gpu}
    ref = replay("CartPole-v1", np.asarray(a), num_envs=8, seed=3)
    for t, (o, *_x) in enumerate(ref):
        np.testing.assert_array_equal(np.asarray(obs[t]), o)


# ---------------------------------------------------------------------------------- the CUDA twin
# The CUDA handlers' staging (csrc/xla/staged_call.cc) on the CPU device: copies that land only at a
# sync, staging poisoned between calls. The scans that failed on a GPU (issue 34) must equal the CPU
# targets' results and the numpy loop through it.


@pytest.fixture
def twin(monkeypatch: pytest.MonkeyPatch):
    """Programs traced while this is active lower to the CUDA twin's targets."""

    def use(on: bool) -> None:
        monkeypatch.setenv("ENVHIVE_XLA_CUDA_TWIN", "1" if on else "0")

    return use


def test_cuda_twin_scan_of_step_equals_the_cpu_targets_and_the_numpy_loop(twin) -> None:
    outs = {}
    for target in ("cpu", "twin"):
        twin(target == "twin")
        env = envhive.make("CartPole-v1", num_envs=8, seed=3)
        env.reset()
        handle, _, _, step = env.xla()
        run = rollout(step, 100, discrete(8, 2))
        assert ("envhive_step_cuda_twin" in run.lower(handle, jax.random.key(1)).as_text()) == (target == "twin")
        handle, first = run(handle, jax.random.key(1))
        _, second = run(handle, jax.random.key(2))  # the second call, with the handle the first returned
        outs[target] = jax.tree.map(np.asarray, (first, second))
        env.close()
    for a, b in zip(jax.tree.leaves(outs["cpu"]), jax.tree.leaves(outs["twin"]), strict=True):
        np.testing.assert_array_equal(a, b)
    actions = np.concatenate([outs["twin"][0][0], outs["twin"][1][0]])
    obs = np.concatenate([outs["twin"][0][1], outs["twin"][1][1]])
    for t, (o, *_r) in enumerate(replay("CartPole-v1", actions, num_envs=8, seed=3)):
        np.testing.assert_array_equal(obs[t], o, err_msg=f"step {t}")


@pytest.mark.deep  # the staged path over many lanes and steps: ~25 s on 2 cores; the scan test above covers the path
def test_cuda_twin_vmapped_scan_over_handles_and_async_send_recv(twin) -> None:
    """A batch of pools (one call per step for all lanes) and EnvPool's async recv/send loop,
    through the twin, each equal to the CPU targets' run."""
    results = {}
    for target in ("cpu", "twin"):
        twin(target == "twin")
        envs = [envhive.make("CartPole-v1", num_envs=4, seed=s) for s in (10, 20, 30)]
        for e in envs:
            e.reset()
        fns = [e.xla() for e in envs]
        run = jax.jit(jax.vmap(scan_fn(fns[0].step, 30, discrete(4, 2))))
        _, (_, obs, rew, *_r) = run(jnp.stack([f.handle for f in fns]), jax.random.split(jax.random.key(0), 3))
        kw = {"num_envs": 6, "batch_size": 3, "num_threads": 1, "seed": 5}
        async_env = envhive.make("CartPole-v1", **kw)
        async_env.async_reset()
        handle, recv, send, _ = async_env.xla()

        @jax.jit
        def loop(h, key, recv=recv, send=send):
            def body(h, k):
                h, (o, r, _, _, info) = recv(h)
                a = jax.random.randint(k, (3,), 0, 2)
                return send(h, a, info["env_id"]), (o, info["env_id"], a)

            return jax.lax.scan(body, h, jax.random.split(key, 40))

        _, async_out = loop(handle, jax.random.key(4))
        results[target] = jax.tree.map(np.asarray, (obs, rew, async_out))
    for a, b in zip(jax.tree.leaves(results["cpu"]), jax.tree.leaves(results["twin"]), strict=True):
        np.testing.assert_array_equal(a, b)
    obs = results["twin"][0]
    for lane, seed in enumerate((10, 20, 30)):  # each lane as its pool stepped alone, by numpy
        acts = np.asarray(
            jax.vmap(lambda k: jax.vmap(discrete(4, 2))(jax.random.split(k, 30)))(
                jax.random.split(jax.random.key(0), 3)
            )[lane]
        )
        for t, (o, *_r) in enumerate(replay("CartPole-v1", acts, num_envs=4, seed=seed)):
            np.testing.assert_array_equal(obs[lane, t], o, err_msg=f"lane {lane} step {t}")


@pytest.mark.parametrize("target", ["cpu", "twin"])
def test_cuda_twin_overlap_of_send_and_recv_on_one_handle(twin, target) -> None:
    """EnvPool's overlap idiom (send and recv given one handle, XLA picks the order) in a loop."""
    twin(target == "twin")
    env = envhive.make("CartPole-v1", num_envs=8, batch_size=4, seed=0)
    handle, recv, send, _ = env.xla()

    @jax.jit
    def loop(h0, ids):
        def body(carry, _):
            h0, ids, seen = carry
            send(h0, jnp.zeros(4, jnp.int32), ids)
            h1, (_, _, _, _, info) = recv(h0)
            return (h1, info["env_id"], seen.at[info["env_id"]].add(1)), None

        return jax.lax.scan(body, (h0, ids, jnp.zeros(8, jnp.int32)), None, length=30)[0]

    env.async_reset()
    handle, (*_s, info) = recv(handle)
    handle, _, seen = loop(handle, info["env_id"])
    assert int(seen.sum()) == 120 and (np.asarray(seen) > 0).all()
    handle, _ = recv(handle)  # consistent afterwards: the other half of the envs
    jax.block_until_ready(handle)


def test_cuda_twin_stale_handle_raises_once_at_the_call(twin) -> None:
    """A reused handle fails at its call, once: the pool and the next handle carry on, and no later
    effects barrier raises it again (JAX keeps a failed program's token until it is replaced)."""
    twin(True)
    env = envhive.make("CartPole-v1", num_envs=4, seed=0)
    env.reset()
    handle, _, _, step = env.xla()
    run = hx.checked(jax.jit(step))
    first, _ = run(handle, jnp.zeros(4, jnp.int32))
    with pytest.raises(hx.StaleHandleError, match="this is call #1 on the pool but the handle is for call #0"):
        run(handle, jnp.zeros(4, jnp.int32))
    jax.effects_barrier()  # delivered once: not raised again here (nor at exit)
    _, (obs, *_r) = run(first, jnp.zeros(4, jnp.int32))
    ref = replay("CartPole-v1", np.zeros((2, 4), np.int64), num_envs=4, seed=0)
    np.testing.assert_array_equal(np.asarray(obs), ref[1][0])


def test_a_failed_call_on_a_device_that_is_not_the_default_is_raised_once() -> None:
    """A program that failed on a device other than the default one (a GPU program while the CPU
    is the default, here the second CPU device) is forgotten too once translate_errors delivered
    its error: jax.effects_barrier(), and JAX's exit handlers, do not raise it again."""
    code = textwrap.dedent(
        """
        import os
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
        import jax, jax.numpy as jnp, envhive
        from envhive import xla as hx
        env = envhive.make("CartPole-v1", num_envs=2)
        env.reset()
        handle, _, _, step = env.xla()
        other = jax.devices()[1]
        f = hx.checked(jax.jit(step))
        h = jax.device_put(handle, other)
        h1, _ = f(h, jax.device_put(jnp.zeros(2, jnp.int32), other))
        try:
            f(h, jax.device_put(jnp.zeros(2, jnp.int32), other))
        except hx.StaleHandleError:
            print("stale once")
        jax.effects_barrier()
        print("barrier clean")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.split() == ["stale", "once", "barrier", "clean"], out.stderr[-3000:]
    assert "StaleHandle" not in out.stderr and "stale handle" not in out.stderr, out.stderr[-3000:]
