"""Environments written in Python (envhive.authoring): equivalence, registration, modes, cache.

The examples in examples/ are the envs under test: the Python CartPole must match the built-in
C++ CartPole-v1 step for step, and each example must match its own pure-Python gymnasium.Env
(the same functions run by the interpreter, seeded alike).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import envhive
from envhive.authoring import PyEnv, PyEnvGymnasium

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from examples.python_cartpole import CartPole  # noqa: E402
from examples.python_gridworld import GridWorld  # noqa: E402
from examples.python_reacher import PointReacher  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_compile_cache")


def _same(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, what
    assert np.array_equal(a, b), what


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_cartpole_matches_builtin_step_for_step(mode):
    kwargs = dict(num_envs=8, seed=7, num_threads=2, autoreset_mode=mode, max_episode_steps=60)
    py, cc = envhive.make(CartPole, **kwargs), envhive.make("CartPole-v1", **kwargs)
    assert py.single_observation_space == cc.single_observation_space
    assert py.single_action_space == cc.single_action_space
    o1, i1 = py.reset()
    o2, i2 = cc.reset()
    _same(o1, o2, "reset obs")
    rng = np.random.default_rng(0)
    ended_total = 0
    for t in range(400):
        actions = rng.integers(0, 2, size=8)
        r1, r2 = py.step(actions), cc.step(actions)
        for name, x, y in zip(("obs", "reward", "terminated", "truncated"), r1[:4], r2[:4], strict=True):
            _same(x, y, f"{name} at step {t}")
        _same(r1[4]["elapsed_step"], r2[4]["elapsed_step"], f"elapsed_step at step {t}")
        ended = r1[2] | r1[3]
        ended_total += int(ended.sum())
        if mode == "same_step" and ended.any():
            assert np.array_equal(r1[4]["_final_obs"], r2[4]["_final_obs"])
            for i in np.flatnonzero(ended):
                _same(r1[4]["final_obs"][i], r2[4]["final_obs"][i], f"final_obs at step {t}")
        if mode == "disabled" and ended.any():
            o1, _ = py.reset(options={"reset_mask": ended})
            o2, _ = cc.reset(options={"reset_mask": ended})
            _same(o1, o2, f"masked reset at step {t}")
    assert ended_total > 20  # terminations and truncations were both exercised
    py.close()
    cc.close()


def test_cartpole_kwarg_matches_builtin():
    py = envhive.make(CartPole, num_envs=4, seed=1, sutton_barto_reward=True)
    cc = envhive.make("CartPole-v1", num_envs=4, seed=1, sutton_barto_reward=True)
    py.reset()
    cc.reset()
    rewards = []
    for _ in range(60):
        r1, r2 = py.step(np.ones(4, dtype=np.int64)), cc.step(np.ones(4, dtype=np.int64))
        _same(r1[1], r2[1], "reward")
        rewards.append(r1[1])
    assert set(np.concatenate(rewards)) == {0.0, -1.0}


@pytest.mark.parametrize("env_cls", [CartPole, GridWorld, PointReacher], ids=lambda c: c.__name__)
def test_pool_matches_pure_python_gymnasium_env(env_cls):
    """The pool runs exactly what the interpreter runs: same seed, same trajectory."""
    n, steps = 3, 150
    pool = envhive.make(env_cls, num_envs=n, seed=11, max_episode_steps=0)
    single = [env_cls.gymnasium_env() for _ in range(n)]
    obs, info = pool.reset()
    for i, env in enumerate(single):
        o, inf = env.reset(seed=11 + i)
        _same(np.asarray(o, dtype=obs.dtype), obs[i], f"reset obs of env {i}")
        for key in env_cls.infos:
            _same(inf[key], info[key][i], f"reset info {key}")
    pool.action_space.seed(5)
    need_reset = [False] * n
    for t in range(steps):
        actions = pool.action_space.sample()
        obs, reward, terminated, truncated, info = pool.step(actions)
        for i, env in enumerate(single):
            if need_reset[i]:  # NEXT_STEP autoreset: this step reset env i
                o, inf = env.reset()
                need_reset[i] = False
                r, term = 0.0, False
            else:
                o, r, term, _, inf = env.step(actions[i])
                need_reset[i] = term
            _same(np.asarray(o, dtype=obs.dtype), obs[i], f"obs of env {i} at step {t}")
            assert r == reward[i] and term == terminated[i], (t, i)
            for key in env_cls.infos:
                _same(inf[key], info[key][i], f"info {key}")
    pool.close()


def test_jit_gymnasium_env_matches_pure_python():
    a, b = PointReacher.gymnasium_env(), PointReacher.gymnasium_env(jit=True)
    o1, _ = a.reset(seed=4)
    o2, _ = b.reset(seed=4)
    _same(o1, o2, "reset")
    for t in range(100):
        action = np.array([np.sin(t / 7), np.cos(t / 5)], dtype=np.float32)
        r1, r2 = a.step(action), b.step(action)
        _same(r1[0], r2[0], f"obs at {t}")
        assert r1[1:4] == r2[1:4]


def test_async_mode_matches_builtin_per_env():
    """Async pools return envs in completion order; each env's own trajectory is fixed by its seed."""

    def trajectories(task):
        env = envhive.make(task, num_envs=8, batch_size=4, num_threads=2, seed=3)
        env.async_reset()
        out = {i: [] for i in range(8)}
        counts = np.zeros(8, dtype=np.int64)
        for _ in range(200):
            obs, reward, terminated, truncated, info = env.recv()
            ids = info["env_id"]
            for row, i in enumerate(ids):
                out[i].append((obs[row].tobytes(), reward[row], terminated[row], truncated[row]))
            env.send((counts[ids] * 7 + ids) % 3 % 2, ids)  # each env's actions depend on its own count
            counts[ids] += 1
        env.close()
        return out

    py, cc = trajectories(CartPole), trajectories("CartPole-v1")
    for i in range(8):
        m = min(len(py[i]), len(cc[i]))
        assert m > 50
        assert py[i][:m] == cc[i][:m], f"env {i}"


def test_thread_count_does_not_change_results():
    def run(threads):
        env = envhive.make(PointReacher, num_envs=16, num_threads=threads, seed=5)
        env.reset()
        env.action_space.seed(0)
        out = [env.step(env.action_space.sample())[0].copy() for _ in range(50)]
        env.close()
        return np.stack(out)

    _same(run(1), run(2), "obs")


def test_registration_by_id_gymnasium_and_dm():
    CartPole.task_id()
    assert "examples/CartPole-v1" in envhive.list_envs()
    env = envhive.make("examples/CartPole-v1", num_envs=2)
    assert env.task_spec.family == "python" and env.task_spec.max_episode_steps == 500
    env.close()

    vec = gymnasium.make_vec("examples/GridWorld-v0", num_envs=3)
    assert isinstance(vec, envhive.HiveVectorEnv)
    assert vec.single_observation_space == gymnasium.spaces.Discrete(7 * 8)
    obs, info = vec.reset(seed=0)
    assert obs.dtype == np.int64 and obs.shape == (3,) and "bumps" in info
    vec.close()

    single = gymnasium.make("examples/GridWorld-v0")  # the pure-Python env, with Gymnasium's TimeLimit
    assert isinstance(single.unwrapped, PyEnvGymnasium)
    assert single.spec.max_episode_steps == 200
    single.reset(seed=0)

    sync = gymnasium.make_vec("examples/PointReacher-v0", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    sync.close()

    dm = envhive.make_dm(PointReacher, num_envs=4)
    ts = dm.reset()
    assert ts.observation.shape == (4, 6)
    ts = dm.step(np.zeros((4, 2), dtype=np.float32))
    assert ts.reward.shape == (4,)
    assert dm.observation_spec().shape == (6,)

    spec = envhive.make_spec("examples/PointReacher-v0", dt=0.1, num_envs=2)
    assert spec.config["dt"] == 0.1 and spec.task.config_docs["dt"] == "Integration step (s)."
    assert spec.info_fields == {"distance": (np.dtype(np.float64), ())}


def test_kwargs_are_validated_and_applied():
    with pytest.raises(TypeError, match="unknown kwarg 'dtt'"):
        envhive.make(PointReacher, dtt=0.1)
    with pytest.raises(TypeError, match="must be of type float"):
        envhive.make(PointReacher, dt="fast")
    env = envhive.make(PointReacher, num_envs=2, seed=0, max_episode_steps=5)
    env.reset()
    for _ in range(5):
        _, _, _, truncated, _ = env.step(np.zeros((2, 2), dtype=np.float32))
    assert truncated.all()
    fast, slow = (envhive.make(PointReacher, num_envs=1, seed=0, dt=dt) for dt in (0.2, 0.05))
    fast.reset()
    slow.reset()
    push = np.ones((1, 2), dtype=np.float32)
    assert not np.array_equal(fast.step(push)[0], slow.step(push)[0])


def test_list_config_and_seeding():
    class Drift(PyEnv):
        observation_space = gymnasium.spaces.Box(-np.inf, np.inf, shape=(2,), dtype=np.float64)
        action_space = gymnasium.spaces.Discrete(1)
        state = {"p": (2,)}
        config = {"velocity": [0.5, -1.0]}
        reset_randoms = 2

        @staticmethod
        def reset(s, rand, cfg):
            s.p[0] = rand[0]
            s.p[1] = rand[1]

        @staticmethod
        def step(s, action, rand, cfg):
            s.p[0] += cfg.velocity[0]
            s.p[1] += cfg.velocity[1]
            return 0.0, False

        @staticmethod
        def observe(s, obs):
            obs[0] = s.p[0]
            obs[1] = s.p[1]

    env = envhive.make(Drift, num_envs=3, seed=[5, 6, 5], velocity=[1.0, 2.0])
    obs, _ = env.reset()
    expected = np.stack([np.random.Generator(np.random.PCG64(s)).random(2) for s in (5, 6, 5)])
    _same(obs, expected, "reset draws are numpy's Generator.random for the env's seed")
    obs, *_ = env.step(np.zeros(3, dtype=np.int64))
    np.testing.assert_allclose(obs, expected + [1.0, 2.0])
    obs, _ = env.reset(seed=[9, 9, 9])
    assert (obs == obs[0]).all()
    with pytest.raises(ValueError, match="must have 2 values"):
        envhive.make(Drift, velocity=[1.0, 2.0, 3.0])


def test_redefinition_replaces_and_old_pools_keep_running():
    def define(speed):
        class Walker(PyEnv):
            id = "tests/Walker-v0"
            observation_space = gymnasium.spaces.Box(-np.inf, np.inf, shape=(1,), dtype=np.float32)
            action_space = gymnasium.spaces.Discrete(2)
            state = {"x": float}

            @staticmethod
            def reset(s, rand):
                s.x = 0.0

            @staticmethod
            def step(s, action):
                s.x += speed
                return 1.0, False

            @staticmethod
            def observe(s, obs):
                obs[0] = s.x

        return Walker

    old = envhive.make(define(1.0), num_envs=1)
    new_cls = define(2.0)
    new = envhive.make("tests/Walker-v0", num_envs=1)  # the latest definition wins
    old.reset()
    new.reset()
    zero = np.zeros(1, dtype=np.int64)
    assert old.step(zero)[0][0, 0] == 1.0
    assert new.step(zero)[0][0, 0] == 2.0
    assert envhive.make(new_cls).step  # compiled once: the same code is reused


class Paint(PyEnv):
    """A uint8 image observation, float64 Box actions, an array info field and int32 state."""

    observation_space = gymnasium.spaces.Box(0, 255, shape=(4, 5), dtype=np.uint8)
    action_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float64)
    state = {"brush": (np.int32, (2,)), "canvas": (np.uint8, (4, 5)), "last": (2,)}
    infos = ("brush", "last")
    reset_randoms = 2
    step_randoms = 1

    @staticmethod
    def reset(s, rand):
        s.brush[0] = int(rand[0] * 4)
        s.brush[1] = int(rand[1] * 5)
        for i in range(4):
            for j in range(5):
                s.canvas[i, j] = 0

    @staticmethod
    def step(s, action, rand):
        s.last[0] = action[0]
        s.last[1] = action[1]
        s.brush[0] = min(max(s.brush[0] + (1 if action[0] > 0 else -1), 0), 3)
        s.brush[1] = min(max(s.brush[1] + (1 if action[1] > 0 else -1), 0), 4)
        s.canvas[s.brush[0], s.brush[1]] = int(rand[0] * 256)
        return float(s.canvas[s.brush[0], s.brush[1]]) / 255.0, False

    @staticmethod
    def observe(s, obs):
        for i in range(4):
            for j in range(5):
                obs[i, j] = s.canvas[i, j]


def test_image_observation_float64_actions_and_array_infos():
    env = envhive.make(Paint, num_envs=3, seed=2)
    ref = [Paint.gymnasium_env() for _ in range(3)]
    obs, info = env.reset()
    assert obs.shape == (3, 4, 5) and obs.dtype == np.uint8
    assert info["brush"].shape == (3, 2) and info["brush"].dtype == np.int32
    for i, r in enumerate(ref):
        o, inf = r.reset(seed=2 + i)
        _same(o, obs[i], "reset obs")
        _same(inf["brush"], info["brush"][i], "reset info")
    rng = np.random.default_rng(0)
    for t in range(30):
        actions = rng.uniform(-1, 1, size=(3, 2))
        obs, reward, _, _, info = env.step(actions)
        _same(info["last"], actions, "float64 actions arrive unrounded")
        for i, r in enumerate(ref):
            o, rew, _, _, inf = r.step(actions[i])
            _same(o, obs[i], f"obs at {t}")
            assert rew == reward[i]
            _same(inf["brush"], info["brush"][i], "info")


class Spin(PyEnv):
    """A slow step (a few ms of arithmetic), to watch workers run while Python holds the GIL."""

    observation_space = gymnasium.spaces.Box(-np.inf, np.inf, shape=(1,), dtype=np.float64)
    action_space = gymnasium.spaces.Discrete(2)
    state = {"x": float}

    @staticmethod
    def reset(s, rand):
        s.x = 0.0

    @staticmethod
    def step(s, action):
        for i in range(2_000_000):
            s.x = s.x * 0.999999 + 1e-9 * i
        return s.x, False

    @staticmethod
    def observe(s, obs):
        obs[0] = s.x


def test_compiled_steps_run_while_python_holds_the_gil():
    env = envhive.make(Spin, num_envs=4, batch_size=2, num_threads=2, seed=0)
    env.async_reset()
    for _ in range(2):
        _, _, _, _, info = env.recv()
        env.send(np.zeros(2, dtype=np.int64), info["env_id"])
    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)  # this thread keeps the GIL: a worker needing it would stall
    try:
        deadline = time.perf_counter() + 0.5
        spins = 0
        while time.perf_counter() < deadline:
            spins += 1
    finally:
        sys.setswitchinterval(old)
    for _ in range(2):  # both batches finished while the GIL was held: no waiting now
        env.recv(timeout=0)
    env.close()


def test_subclass_is_another_task():
    class FastReacher(PointReacher):
        max_episode_steps = 50

    assert FastReacher.task_id() == "FastReacher-v0"
    assert envhive.make_spec("examples/PointReacher-v0").max_episode_steps == 200
    assert envhive.make_spec(FastReacher.task_id()).max_episode_steps == 50


def _run(code, **env):
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_module_reference_and_disk_cache_in_fresh_processes(tmp_path):
    """`module:id` imports the module first (as Gymnasium does); the second process loads the
    compiled code from the disk cache instead of compiling."""
    code = """
import json, time
start = time.perf_counter()
import envhive
env = envhive.make("examples.python_gridworld:examples/GridWorld-v0", num_envs=4, seed=0)
seconds = time.perf_counter() - start
obs, _ = env.reset()
from examples.python_gridworld import GridWorld
print(json.dumps({"obs": obs.tolist(), "seconds": seconds, **GridWorld.compile_info()}))
"""
    first = _run(code, ENVHIVE_CACHE_DIR=str(tmp_path))
    second = _run(code, ENVHIVE_CACHE_DIR=str(tmp_path))
    assert not first["from_cache"] and second["from_cache"]
    assert first["obs"] == second["obs"] and first["fingerprint"] == second["fingerprint"]
    assert Path(first["glue"]).parent == tmp_path
    print(f"GridWorld make: first {first['seconds']:.2f} s, second {second['seconds']:.2f} s")


def test_envhive_bench_runs_a_python_env():
    out = subprocess.run(
        [sys.executable, "-m", "envhive.cli", "bench", "examples.python_cartpole:examples/CartPole-v1",
         "--num-envs", "4", "--seconds", "0.2", "--warmup", "0.05", "--repeats", "1",
         "--compare", "gymnasium-sync", "--json", "-q"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    rows = {row["engine"]: row for row in json.loads(out.stdout)["cases"][0]["rows"]}
    assert rows["envhive"]["steps_per_s"] > 0, rows["envhive"]
    # Gymnasium's SyncVectorEnv over the same env, run as plain Python (registered with Gymnasium).
    assert rows["gymnasium-sync"]["steps_per_s"] > 0, rows["gymnasium-sync"]
