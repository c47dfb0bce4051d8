"""The process backend's surface: routing from envhive.make, spaces, infos, render, start
methods, validation, the dm_env facade and Gymnasium's wrappers. The rules of a call given the
pool's state, bad env ids, masks and seeds, and env errors are the contract's, as for every backend
(envhive.testing.PoolContract, test_contract.py)."""

from __future__ import annotations

import functools
import os
import threading
import time

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

import envhive
from envhive.process import ProcessBackend
from envhive.process.infos import InfoReader, InfoWriter, add_info
from process_envs import DICT_WALK, DictWalk, Faulty, make_faulty

WALK = "process_envs:" + DICT_WALK


# ---------------------------------------------------------------------------- routing


def test_make_routes_by_task() -> None:
    assert envhive.backend_for("CartPole-v1") == "native"
    assert envhive.backend_for("envhive/CartPole-v1") == "native"
    assert envhive.backend_for(WALK) == "process"
    assert envhive.backend_for(make_faulty) == "process"
    assert envhive.backend_for("Acrobot-v1") == "native"
    env = envhive.make("CartPole-v1", num_envs=2, backend="process")
    assert isinstance(env.backend, ProcessBackend) and isinstance(env, gymnasium.vector.VectorEnv)
    assert "CartPole-v1" in repr(env)
    env.close()
    native = envhive.make("CartPole-v1", num_envs=2)
    assert isinstance(native, envhive.HiveVectorEnv)
    native.close()
    with pytest.raises(ValueError, match="backend"):
        envhive.make("CartPole-v1", backend="threads")
    with pytest.raises(ValueError, match="native"):
        envhive.make(make_faulty, backend="native")
    with pytest.raises(envhive.UnknownTaskError, match="Gymnasium"):
        envhive.make("NoSuchEnv-v7")


def test_kwargs_are_validated() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        envhive.make(make_faulty, num_envs=0)
    with pytest.raises(ValueError, match="batch_size"):
        envhive.make(make_faulty, num_envs=2, batch_size=3)
    with pytest.raises(TypeError, match="num_workers"):
        envhive.make(make_faulty, num_envs=2, num_workers=1.5)
    with pytest.raises(ValueError, match="autoreset_mode"):
        envhive.make(make_faulty, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="start_method"):
        envhive.make(make_faulty, start_method="thread")
    with pytest.raises(ValueError, match="seed"):
        envhive.make(make_faulty, num_envs=3, seed=[1, 2])
    with pytest.raises(ValueError, match="2\\*\\*64"):
        envhive.make(make_faulty, seed=-1)
    with pytest.raises(TypeError, match="num_workers"):
        envhive.make(make_faulty, num_envs=2, num_threads=2)
    env = envhive.make(make_faulty, num_envs=3, num_workers=8)
    assert env.num_workers == 3  # never more workers than envs
    env.close()


# ---------------------------------------------------------------------------- spaces and infos


def test_dict_observations_are_batched_like_gymnasium() -> None:
    env = envhive.make(WALK, num_envs=5, batch_size=2, num_workers=2)
    assert env.single_observation_space == DictWalk().observation_space
    assert env.observation_space == gymnasium.vector.utils.batch_space(env.single_observation_space, 2)
    obs, info = env.reset(seed=3)
    assert set(obs) == {"pos", "count", "flags", "pair"}
    assert obs["pos"].shape == (2, 2) and obs["pos"].dtype == np.float32
    assert obs["count"].shape == (2,) and obs["count"].dtype == np.int64
    assert obs["flags"].dtype == np.int8 and obs["flags"].shape == (2, 3)
    assert isinstance(obs["pair"], tuple) and obs["pair"][1].shape == (2, 2)
    assert env.observation_space.contains(obs)
    # Reset infos: a numpy array and a Python bool, with masks.
    assert info["start"].shape == (2, 2) and info["_start"].all()
    assert info["seeded"].dtype == np.bool_ and info["seeded"].all()
    env.close()


def test_infos_through_records_and_through_the_pipe() -> None:
    env = envhive.make(WALK, num_envs=3, num_workers=2, seed=0)
    env.reset()
    seen_note = False
    for t in range(1, 11):
        _, _, terminated, _, info = env.step(np.zeros((3, 2), dtype=np.float32))
        assert info["count"].dtype == np.int64 and info["distance"].dtype == np.float64
        assert info["near"].dtype == np.bool_ and info["pos32"].dtype == np.float32
        assert info["trace"].shape == (3, 2)
        assert set(info["stats"]) == {"max", "_max", "steps", "_steps"} and info["_stats"].all()
        np.testing.assert_array_equal(info["count"], t)
        if t % 5 == 0:  # every fifth step each env adds a string: an object array, pickled
            seen_note = True
            assert info["note"].dtype == object and list(info["note"]) == [f"step {t}"] * 3
            assert info["_note"].all()
        else:
            assert "note" not in info
    assert seen_note
    env.close()


def test_info_batching_matches_gymnasium_add_info() -> None:
    """Records and the pickled path batch exactly as VectorEnv._add_info does, mixed rows included."""
    infos = [
        {},
        {"a": 1, "b": np.float32(2.5), "c": np.arange(3), "d": {"e": True}},
        {"a": 2, "s": "text", "d": {"e": False, "f": 1.5}},
        {"b": np.float32(-1.0), "g": np.bool_(True)},
    ]
    ref_env = gymnasium.vector.SyncVectorEnv([lambda: Faulty()] * 4)
    expected: dict = {}
    for row, info in enumerate(infos):
        expected = ref_env._add_info(expected, info, row)
    area = np.zeros((4, 128), dtype=np.uint8)
    learned = []
    writer = InfoWriter(0, [area], 128, lambda code, fields: learned.append((code, fields)))
    reader = InfoReader([area], 128)
    kinds = np.array([writer.write(0, row, info) for row, info in enumerate(infos)], dtype=np.int32)
    assert kinds[0] == 0 and kinds[1] > 0 and kinds[2] == -1 and kinds[3] == -1  # str, np.bool_: pickled
    for code, fields in learned:
        reader.learn(code, fields)
    got = reader.batch(0, np.arange(4), kinds, lambda env_id: infos[env_id])
    _assert_infos_equal(got, expected)
    # One layout for every row: gathered column by column, same result as row by row.
    same = [{"a": i, "c": np.full(2, i)} for i in range(4)]
    kinds = np.array([writer.write(0, i, info) for i, info in enumerate(same)], dtype=np.int32)
    for code, fields in learned[1:]:
        reader.learn(code, fields)
    expected = {}
    for row, info in enumerate(same):
        expected = add_info(expected, info, row, 4)
    _assert_infos_equal(reader.batch(0, np.arange(4), kinds, lambda env_id: {}), expected)
    ref_env.close()


def _assert_infos_equal(a: dict, b: dict) -> None:
    assert set(a) == set(b), (sorted(a), sorted(b))
    for k in b:
        if isinstance(b[k], dict):
            _assert_infos_equal(a[k], b[k])
        else:
            assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
            assert list(a[k].ravel()) == list(b[k].ravel()), k


def test_big_infos_fall_back_to_the_pipe() -> None:
    env = envhive.make(WALK, num_envs=2, num_workers=1, info_bytes=16)  # the step info needs more
    env.reset()
    _, _, _, _, info = env.step(np.zeros((2, 2), dtype=np.float32))
    assert info["trace"].shape == (2, 2) and set(info["stats"]) == {"max", "_max", "steps", "_steps"}
    env.close()


class SpaceZoo(gymnasium.Env):
    """Every leaf kind, as observation and as action."""

    def __init__(self) -> None:
        self.observation_space = spaces.Tuple(
            (
                spaces.Discrete(5, start=-2),
                spaces.MultiDiscrete([2, 3]),
                spaces.MultiBinary([2, 2]),
                spaces.Dict({"x": spaces.Box(-1, 1, (3,), np.float64), "t": spaces.Text(8)}),
            )
        )
        self.action_space = spaces.Dict({"d": spaces.Discrete(3), "m": spaces.MultiBinary(2)})

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.observation_space.sample(), {}

    def step(self, action):
        obs = self.observation_space.sample()
        return obs, float(action["d"] + action["m"].sum()), False, False, {}


def test_every_space_kind_round_trips() -> None:
    env = envhive.make(SpaceZoo, num_envs=3, num_workers=2, start_method="fork")
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert isinstance(obs[3]["t"], tuple) and len(obs[3]["t"]) == 3 and all(isinstance(t, str) for t in obs[3]["t"])
    _, rew, _, _, _ = env.step({"d": np.array([0, 1, 2]), "m": np.array([[1, 1], [0, 0], [1, 0]], dtype=np.int8)})
    np.testing.assert_array_equal(rew, [2, 1, 3])
    with pytest.raises(ValueError, match=r"action 3 for env 2 is outside Discrete\(3\)"):
        env.step({"d": np.array([0, 1, 3]), "m": np.zeros((3, 2), dtype=np.int8)})
    env.close()


def test_action_validation_names_the_problem() -> None:
    env = envhive.make(make_faulty, num_envs=3, num_workers=1)
    env.reset()
    with pytest.raises(ValueError, match=r"shape \(3,\), got \(2,\)"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="integers"):
        env.step(np.zeros(3))
    with pytest.raises(ValueError, match="action 5 for env 2"):
        env.step(np.array([0, 1, 5]))
    _, _, _, _, info = env.step(np.zeros(3, dtype=np.int64))  # nothing was queued by the failures
    np.testing.assert_array_equal(info["elapsed_step"], 1)
    lander = envhive.make(WALK, num_envs=2, num_workers=1)
    lander.reset()
    with pytest.raises(ValueError, match="env 1 is not finite"):
        lander.step(np.array([[0, 0], [np.nan, 0]], dtype=np.float32))
    lander.close()
    env.close()


# ---------------------------------------------------------------------------- send / recv


def test_a_sync_step_in_any_order_routes_each_action_to_its_env() -> None:
    env = envhive.make(make_faulty, num_envs=3)
    env.reset()
    _, rew, _, _, info = env.step(np.array([2, 1, 0]), np.array([2, 1, 0]))
    np.testing.assert_array_equal(info["env_id"], [0, 1, 2])
    np.testing.assert_array_equal(rew, [0, 1, 2])
    env.close()


def test_reset_seeds_options_and_masks() -> None:
    env = envhive.make(WALK, num_envs=3, num_workers=2, seed=None)
    first, _ = env.reset(seed=[5, None, 7])
    again, info = env.reset(seed=[5, None, 7])
    np.testing.assert_array_equal(first["pos"][[0, 2]], again["pos"][[0, 2]])
    np.testing.assert_array_equal(info["seeded"], [True, False, True])
    shifted, _ = env.reset(seed=[5, 6, 7], options={"start": 100.0})  # passed to each env's reset
    np.testing.assert_allclose(shifted["pos"][[0, 2]], first["pos"][[0, 2]] + 100, rtol=1e-6)
    env.step(np.zeros((3, 2), dtype=np.float32))
    obs, info = env.reset(options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(info["elapsed_step"], [1, 0, 1])
    np.testing.assert_array_equal(info["_seeded"], [False, True, False])
    env.close()


def test_async_reset_and_step_round_trip() -> None:
    env = envhive.make(make_faulty, num_envs=6, batch_size=3, num_workers=2)
    env.async_reset()
    got = []
    for _ in range(2):
        _, rew, _, _, info = env.recv()
        got.extend(info["env_id"].tolist())
        np.testing.assert_array_equal(info["elapsed_step"], 0)
    assert sorted(got) == list(range(6))
    rewards = {}
    env.send(np.array([0, 1, 2, 0, 1, 2]), np.arange(6))
    for _ in range(2):
        _, rew, _, _, info = env.recv()
        rewards.update(zip(info["env_id"].tolist(), rew.tolist(), strict=True))
    assert rewards == {0: 0, 1: 1, 2: 2, 3: 0, 4: 1, 5: 2}
    env.close()


# ---------------------------------------------------------------------------- render, start methods


def test_render_returns_one_frame_per_env() -> None:
    env = envhive.make(WALK, num_envs=3, num_workers=2, render_mode="rgb_array")
    assert env.render_mode == "rgb_array" and env.metadata["render_modes"] == ["rgb_array"]
    env.reset()
    env.step(np.zeros((3, 2), dtype=np.float32))
    frames = env.render()
    assert isinstance(frames, tuple) and len(frames) == 3
    assert all(f.shape == (4, 4, 3) for f in frames) and all(f[0, 1, 0] == 1 for f in frames)
    env.close()


def test_unpicklable_factory_is_refused_with_a_clear_message() -> None:
    lock = threading.Lock()

    def factory():
        with lock:
            return Faulty()

    with pytest.raises(TypeError, match=r"cannot be pickled, which start_method='spawn' needs"):
        envhive.make(factory, num_envs=2, start_method="spawn")
    env = envhive.make(factory, num_envs=2, start_method="fork")  # fork needs no pickling
    env.reset()
    env.close()


def test_ids_registered_by_an_imported_module_work_in_spawned_workers() -> None:
    """The parent resolves the id to its EnvSpec: the spawned worker needs no registration."""
    pytest.importorskip("minigrid")
    env = envhive.make("MiniGrid-Empty-5x5-v0", backend="process", num_envs=2, num_workers=2, start_method="spawn")
    obs, _ = env.reset(seed=0)
    assert obs["image"].shape == (2, 7, 7, 3) and len(obs["mission"]) == 2
    env.close()


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_lambdas_and_partials_work_with_every_start_method(method: str) -> None:
    for factory in (lambda: Faulty(), functools.partial(Faulty, fail_step=5)):
        env = envhive.make(factory, num_envs=2, num_workers=2, start_method=method)
        env.reset()
        _, rew, _, _, _ = env.step(np.array([1, 2]))
        np.testing.assert_array_equal(rew, [1, 2])
        env.close()


# ---------------------------------------------------------------------------- facades and wrappers


def test_dm_env_facade_on_the_process_backend() -> None:
    dm = envhive.make_dm(make_faulty, num_envs=2)
    spec = dm.observation_spec()
    assert spec.shape == (1,)
    assert dm.action_spec().num_values == 3
    ts = dm.reset()
    np.testing.assert_array_equal(ts.step_type, [0, 0])
    ts = dm.step(np.array([1, 2]))
    np.testing.assert_array_equal(ts.step_type, [1, 1])
    np.testing.assert_array_equal(ts.reward, [1, 2])
    with pytest.raises(ValueError, match="NEXT_STEP"):
        envhive.make_dm(make_faulty, autoreset_mode="same_step")
    dm.close()
    walk = envhive.make_dm(WALK, num_envs=2)
    assert set(walk.observation_spec()) == {"pos", "count", "flags", "pair"}
    walk.close()


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_record_episode_statistics_matches_on_both(mode: str) -> None:
    wrapper = gymnasium.wrappers.vector.RecordEpisodeStatistics
    ours = wrapper(envhive.make("CartPole-v1", backend="process", num_envs=3, autoreset_mode=mode))
    ref = wrapper(
        gymnasium.make_vec(
            "CartPole-v1",
            num_envs=3,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": AutoresetMode[mode.upper()]},
        )
    )
    ours.reset(seed=4)
    ref.reset(seed=4)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(150):
        a = rng.integers(0, 2, 3)
        *_, i1 = ours.step(a)
        *_, i2 = ref.step(a)
        assert ("episode" in i1) == ("episode" in i2)
        if "episode" in i2:
            episodes += int(i2["_episode"].sum())
            np.testing.assert_array_equal(i1["_episode"], i2["_episode"])
            np.testing.assert_array_equal(i1["episode"]["r"], i2["episode"]["r"])
            np.testing.assert_array_equal(i1["episode"]["l"], i2["episode"]["l"])
    assert episodes >= 3
    ours.close()
    ref.close()


def test_gymnasium_wrappers_accept_it() -> None:
    pytest.importorskip("Box2D", reason="LunarLander needs the box2d extra: pip install 'envhive[box2d]'")
    base = envhive.make("LunarLander-v3", backend="process", num_envs=2, continuous=True)
    assert isinstance(base.backend, ProcessBackend)  # Gymnasium's Python env of that id, in worker processes
    env = gymnasium.wrappers.vector.ClipAction(gymnasium.wrappers.vector.NormalizeObservation(base))
    env.reset(seed=0)
    obs, *_ = env.step(np.full((2, 2), 5.0, dtype=np.float32))
    assert obs.shape == (2, 8)
    env.close()


# ---------------------------------------------------------------------------- threads, as the native pool


def test_a_second_thread_is_refused_while_a_call_waits() -> None:
    env = envhive.make(make_faulty, num_envs=2, num_workers=2, delay=1.0, render_mode="rgb_array")
    env.reset()
    results: dict[str, object] = {}

    def call(name: str, fn) -> None:
        try:
            results[name] = fn()
        except BaseException as e:  # noqa: BLE001 - the outcome is the result
            results[name] = e

    first = threading.Thread(target=call, args=("first", lambda: env.step(np.array([1, 2]))))
    first.start()
    deadline = time.monotonic() + 10
    while env.backend.pool._owner is None and time.monotonic() < deadline:  # the step is inside the pool
        time.sleep(0.001)
    for name, fn in {
        "recv": env.recv,
        "reset": env.reset,
        "async_reset": env.async_reset,
        "step": lambda: env.step(np.array([1, 2])),
        "render": env.render,
    }.items():
        other = threading.Thread(target=call, args=(name, fn))
        other.start()
        other.join(10)
        assert not other.is_alive(), name
        if first.is_alive():  # (on a very slow machine the first step may have finished already)
            assert isinstance(results[name], envhive.PoolBusyError), (name, results[name])
            assert "in use by another thread" in str(results[name])
    first.join(30)
    assert isinstance(results["first"], tuple)  # the first step completed
    _, rew, _, _, _ = env.step(np.array([2, 1]))  # and the pool goes on
    np.testing.assert_array_equal(rew, [2, 1])
    env.close()


@pytest.mark.parametrize("batch_size", [None, 1])
def test_close_from_another_thread_ends_the_call_in_flight(batch_size) -> None:
    env = envhive.make(make_faulty, num_envs=2, batch_size=batch_size, num_workers=2, delay=5.0)
    pids = env.worker_pids
    if batch_size is None:
        env.reset()
    else:
        env.async_reset()
        env.recv()
        env.recv()
        env.send(np.array([1, 1]), [0, 1])
    caught: list[BaseException] = []

    def wait() -> None:
        try:
            if batch_size is None:
                env.step(np.array([1, 1]))
            else:
                env.recv()
        except BaseException as e:  # noqa: BLE001 - the outcome is the result
            caught.append(e)

    t = threading.Thread(target=wait)
    t.start()
    deadline = time.monotonic() + 10
    while env.backend.pool._owner is None and time.monotonic() < deadline:
        time.sleep(0.001)
    start = time.monotonic()
    env.close()  # the call in flight raises PoolClosedError, then the workers are stopped
    t.join(30)
    assert not t.is_alive()
    assert time.monotonic() - start < 20  # not the 5 s steps plus a hang: the grace, then SIGTERM
    assert len(caught) == 1 and isinstance(caught[0], envhive.PoolClosedError), caught
    assert "another thread" in str(caught[0])
    assert env.closed
    with pytest.raises(envhive.PoolClosedError):
        env.reset()
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped: not a zombie either


def test_workers_build_lean_envs_past_the_first() -> None:
    """A worker's first env is built as registered; the others skip the two pass-through wrappers
    (OrderEnforcing, PassiveEnvChecker), keep the time limit, and step identically."""
    from envhive.process.factory import GymnasiumFactory

    def chain(env):
        names = []
        while isinstance(env, gymnasium.Wrapper):
            names.append(type(env).__name__)
            env = env.env
        return names

    factory = GymnasiumFactory(gymnasium.spec("CartPole-v1"))
    checked, lean = factory.build(checked=True), factory.build(checked=False)
    assert chain(checked) == ["TimeLimit", "OrderEnforcing", "PassiveEnvChecker"]
    assert chain(lean) == ["TimeLimit"] and lean.spec.max_episode_steps == 500
    o1, _ = checked.reset(seed=3)
    o2, _ = lean.reset(seed=3)
    np.testing.assert_array_equal(o1, o2)
    for t in range(600):
        r1, r2 = checked.step(t % 2), lean.step(t % 2)
        for a, b in zip(r1[:4], r2[:4], strict=True):
            np.testing.assert_array_equal(a, b)
        if r1[2] or r1[3]:
            break
    assert r1[2] or r1[3]


def test_thread_affinity_offset_pins_worker_i_to_core_offset_plus_i() -> None:
    """As the native pool's threads: worker i runs on core offset + i (of those allowed, wrapping
    around); -1, the default, pins nothing."""
    cores = sorted(os.sched_getaffinity(0))
    env = envhive.make(make_faulty, num_envs=4, num_workers=2, thread_affinity_offset=1)
    assert [os.sched_getaffinity(p) for p in env.worker_pids] == [
        {cores[1 % len(cores)]},
        {cores[2 % len(cores)]},
    ]
    env.reset()
    _, rew, _, _, _ = env.step(np.array([1, 2, 1, 2]))
    np.testing.assert_array_equal(rew, [1, 2, 1, 2])
    assert env.pool_config.thread_affinity_offset == 1
    env.close()
    free = envhive.make(make_faulty, num_envs=2, num_workers=2, pin_workers=False)
    assert all(os.sched_getaffinity(p) == set(cores) for p in free.worker_pids)
    free.close()
    with pytest.raises(ValueError, match="thread_affinity_offset"):
        envhive.make(make_faulty, num_envs=2, thread_affinity_offset=-2)


def test_workers_that_cover_every_core_are_pinned_one_per_core_by_default() -> None:
    """pin_workers=None (the default) pins when the workers cover every core this process may
    use (worker i on core i, wrapping around), and leaves fewer workers to the scheduler;
    True pins any count, False none (and contradicts an offset)."""
    cores = sorted(os.sched_getaffinity(0))
    covering = envhive.make(make_faulty, num_envs=len(cores) + 1, num_workers=len(cores) + 1)
    assert [os.sched_getaffinity(p) for p in covering.worker_pids] == [
        {cores[i % len(cores)]} for i in range(len(cores) + 1)
    ]
    covering.reset()
    _, rew, _, _, _ = covering.step(np.ones(len(cores) + 1, dtype=np.int64))
    np.testing.assert_array_equal(rew, np.ones(len(cores) + 1))
    covering.close()
    one = envhive.make(make_faulty, num_envs=2, num_workers=1)
    assert os.sched_getaffinity(one.worker_pids[0]) == ({cores[0]} if len(cores) == 1 else set(cores))
    one.close()
    forced = envhive.make(make_faulty, num_envs=2, num_workers=1, pin_workers=True)
    assert os.sched_getaffinity(forced.worker_pids[0]) == {cores[0]}
    forced.close()
    with pytest.raises(ValueError, match="pin_workers=False contradicts thread_affinity_offset=1"):
        envhive.make(make_faulty, num_envs=2, pin_workers=False, thread_affinity_offset=1)
    with pytest.raises(TypeError, match="pin_workers must be a bool or None"):
        envhive.make(make_faulty, num_envs=2, pin_workers=1)


def test_a_forked_process_never_runs_the_parents_cleanup() -> None:
    """A process forked while a pool is open (a later pool's worker, a user's os.fork) inherits the
    pool's finalizer: running it there must neither touch the parent's workers (ask them to close,
    test them with multiprocessing's is_alive, which only a parent may) nor raise."""
    env = envhive.make("CartPole-v1", backend="process", num_envs=2, num_workers=2, seed=0)
    env.reset()
    pid = os.fork()
    if pid == 0:  # the child: run the inherited cleanup as garbage collection or exit would
        code = 0
        try:
            env.backend.pool.res.shutdown()
        except BaseException:
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the parent's cleanup raised in the forked child"
    for _ in range(3):  # the parent's workers were not asked to close
        env.step(np.zeros(2, np.int64))
    env.close()
