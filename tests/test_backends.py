"""One facade, every backend: the same calls get the same answers whether the envs run on the native
pool, in worker processes or in Ray actors (``envhive.backend``). Bad input gets one set of checks
(``envhive.checks``; the native pool applies the same rules in C++) with the same messages, and the
pool stays usable afterwards. The rules of the call contract run on every backend in
test_contract.py (envhive.testing.PoolContract); these are the cases beyond it (Box actions, timeouts,
render, one trajectory across backends, structured actions). Ray's cases run in .venv-rllib
(marker ``rllib``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator

import gymnasium
import numpy as np
import pytest

import envhive

BACKENDS = ["native", "process", pytest.param("ray", marks=pytest.mark.rllib)]


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def make(backend: str, request: pytest.FixtureRequest, task: str = "CartPole-v1", **kw) -> envhive.HiveVectorEnv:
    """A pool of ``task`` on ``backend`` (Ray: two shards of a native pool)."""
    if backend == "ray":
        request.getfixturevalue("ray_cluster")
        from envhive.ray import RayVectorEnv

        num_envs = kw.pop("num_envs")
        return RayVectorEnv(task, num_envs, 2, **kw)
    if backend == "process":
        kw.setdefault("num_workers", 2)
    return envhive.make(task, backend=backend, **kw)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def open_pool(backend: str, request: pytest.FixtureRequest) -> Iterator[Callable[..., envhive.HiveVectorEnv]]:
    made: list[envhive.HiveVectorEnv] = []

    def opener(task: str = "CartPole-v1", **kw) -> envhive.HiveVectorEnv:
        env = make(backend, request, task, **kw)
        made.append(env)
        return env

    yield opener
    for env in made:
        env.close()


def test_every_backend_is_the_one_vector_env(open_pool) -> None:
    env = open_pool(num_envs=4, seed=0)
    assert type(env) is envhive.HiveVectorEnv and isinstance(env, gymnasium.vector.VectorEnv)
    assert len(env) == 4 and env.num_envs == 4 and env.all_env_ids.tolist() == [0, 1, 2, 3]
    obs, info = env.reset()
    assert obs.shape == (4, 4) and info["env_id"].tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="num_envs is fixed"):
        env.num_envs = 5


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.nan, r"action for env 2 is not finite"),
        (np.inf, r"action for env 2 is not finite"),
        (1e300, r"action for env 2 is not finite"),  # finite as float64, infinite as the space's float32
    ],
)
def test_real_actions_must_be_finite_in_the_spaces_dtype(open_pool, value, message) -> None:
    env = open_pool("Pendulum-v1", num_envs=3, seed=0)
    env.reset()
    actions = np.zeros((3, 1), dtype=np.float64)
    actions[2, 0] = value
    with pytest.raises(ValueError, match=message):
        env.step(actions)
    env.step(np.zeros((3, 1), dtype=np.float32))


def test_bad_timeouts_are_refused_alike(open_pool) -> None:
    env = open_pool(num_envs=4, batch_size=2, seed=0)
    env.async_reset()
    for timeout, error, message in (
        (float("nan"), ValueError, "nan"),
        ("1", TypeError, "number of seconds"),
        (True, TypeError, "number of seconds"),
        (-1, ValueError, ">= 0"),
    ):
        with pytest.raises(error, match=message):
            env.recv(timeout=timeout)
    _, _, _, _, info = env.recv(timeout=10**400)  # past any deadline: no deadline (no OverflowError)
    assert len(info["env_id"]) == 2


def test_render_without_a_render_mode_warns_and_returns_none(open_pool) -> None:
    env = open_pool(num_envs=2, seed=0)
    env.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert env.render() is None
    assert any("render_mode" in str(w.message) for w in caught)


def test_the_same_seeds_give_the_same_trajectories(open_pool) -> None:
    """Native and process run the same MDP (Gymnasium's CartPole, envhive reproduces its numpy
    draws), Ray shards a native pool: one seed, one trajectory, whatever the backend."""
    env = open_pool(num_envs=4, seed=7)
    ref = envhive.make("CartPole-v1", num_envs=4, seed=7)
    np.testing.assert_array_equal(env.reset()[0], ref.reset()[0])
    rng = np.random.default_rng(0)
    for _ in range(40):
        a = rng.integers(0, 2, size=4)
        got, want = env.step(a), ref.step(a)
        for g, w in zip(got[:4], want[:4], strict=True):
            np.testing.assert_array_equal(g, w)
    ref.close()


# ---------------------------------------------------------------------------- one backend's input


class DictActions(gymnasium.Env):
    """An env whose action is a Dict of a Box and a Tuple (a Discrete, a MultiBinary)."""

    observation_space = gymnasium.spaces.Box(-10.0, 10.0, shape=(1,), dtype=np.float32)
    action_space = gymnasium.spaces.Dict(
        {
            "move": gymnasium.spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32),
            "grip": gymnasium.spaces.Tuple((gymnasium.spaces.Discrete(3), gymnasium.spaces.MultiBinary(2))),
        }
    )

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(1, dtype=np.float32), {}

    def step(self, action):
        reward = float(action["move"].sum() + action["grip"][0])
        return np.zeros(1, dtype=np.float32), reward, False, False, {}


def test_structured_actions_of_the_wrong_structure_name_the_problem() -> None:
    """Dict / Tuple actions (the process backend runs any Gymnasium space): a clear ValueError
    naming the path, not a raw KeyError / IndexError / TypeError."""
    env = envhive.make(DictActions, num_envs=3, num_workers=2, start_method="fork")
    try:
        env.reset(seed=0)
        good = {"move": np.zeros((3, 2), np.float32), "grip": (np.array([0, 1, 2]), np.zeros((3, 2), np.int8))}
        _, reward, _, _, _ = env.step(good)
        np.testing.assert_array_equal(reward, [0, 1, 2])
        with pytest.raises(ValueError, match=r"actions must be a dict with the keys \['grip', 'move'\]"):
            env.step(np.zeros((3, 2), dtype=np.float32))
        with pytest.raises(ValueError, match=r"actions must have the keys .*; missing \['grip'\]; unknown \['nope'\]"):
            env.step({"move": good["move"], "nope": 1})
        with pytest.raises(ValueError, match=r"actions\['grip'\] must be a tuple of 2 parts, got 1 parts"):
            env.step({"move": good["move"], "grip": (good["grip"][0],)})
        with pytest.raises(ValueError, match=r"action \[0 3\] for env 1 is outside the action space MultiBinary"):
            env.step({"move": good["move"], "grip": (good["grip"][0], np.array([[0, 0], [0, 3], [1, 1]]))})
        env.step(good)
    finally:
        env.close()


def test_info_bytes_too_large_for_memory_is_refused_up_front() -> None:
    with pytest.raises(ValueError, match=r"info_bytes=4611686018427387904 needs .* GB of shared memory"):
        envhive.make("CartPole-v1", backend="process", num_envs=2, info_bytes=2**62)


def test_a_nan_discrete_action_through_envpool_names_the_env() -> None:
    import envhive.envpool as envpool

    env = envpool.make_gym("CartPole-v1", num_envs=3)
    env.reset()
    with pytest.raises(ValueError, match=r"action for env 1 is not finite \(nan\)"):
        env.step(np.array([0.0, np.nan, 1.0]))
    env.step(np.array([0.0, 1.0, 1.0]))


def test_a_single_env_past_its_episode_asks_for_reset() -> None:
    """A single env says reset(), not the pool's reset(options={'reset_mask': ...})."""
    from envhive.single import HiveEnv

    env = HiveEnv("CartPole-v1", max_episode_steps=2)
    env.reset(seed=0)
    env.step(0)
    _, _, _, truncated, _ = env.step(0)
    assert truncated
    with pytest.raises(ValueError, match=r"the episode has ended .*: call reset\(\) before stepping again") as err:
        env.step(0)
    assert "reset_mask" not in str(err.value)
    env.reset()
    env.step(0)
    env.close()


def test_sb3_get_attr_on_a_process_pool_does_not_call_its_envs_native() -> None:
    pytest.importorskip("stable_baselines3")
    from envhive.adapters.sb3 import make_vec_env

    venv = make_vec_env("CartPole-v1", num_envs=2, backend="process", num_workers=1)
    try:
        with pytest.raises(AttributeError) as err:
            venv.get_attr("gravity")
        assert "no Python env objects in this process" in str(err.value)
        assert "envs are native" not in str(err.value)
    finally:
        venv.close()


class Malformed(gymnasium.Env):
    """An env whose observation goes wrong at its first step once reset with ``bad_seed`` (as
    ``bad``: None, a scalar, a shorter row, strings), and whose spaces may differ (``wide``)."""

    action_space = gymnasium.spaces.Discrete(2)

    def __init__(self, bad: str = "none", bad_seed: int = -1, wide: bool = False) -> None:
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(5 if wide else 4,), dtype=np.float32)
        self.bad, self.bad_seed, self.failing = bad, bad_seed, False

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self.failing = seed == self.bad_seed
        return np.zeros(self.observation_space.shape, np.float32), {}

    def step(self, action):
        obs = np.zeros(self.observation_space.shape, np.float32)
        if self.failing:
            obs = {"none": None, "scalar": 0.5, "short": np.zeros(1, np.float32), "strings": np.array(list("abcd"))}[
                self.bad
            ]
        return obs, 1.0, False, False, {}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("none", "returned None as its observation"),
        ("scalar", r"an observation of shape \(\); the space's is \(4,\)"),
        ("short", r"an observation of shape \(1,\); the space's is \(4,\)"),
        ("strings", "not numbers"),
    ],
)
@pytest.mark.parametrize("batch_size", [None, 2])
def test_a_malformed_observation_is_an_env_error_not_a_broadcast(bad: str, message: str, batch_size) -> None:
    """Gymnasium's SyncVectorEnv raises for these; the process backend reports the env that
    returned it (numpy alone would broadcast a scalar or a short row, and write None as NaN)."""
    env = envhive.make(Malformed, num_envs=4, num_workers=2, start_method="fork", bad=bad, bad_seed=12, seed=10)
    try:
        if batch_size is None:
            env.reset()
            with pytest.raises(envhive.EnvError, match=message) as err:
                env.step(np.zeros(4, dtype=np.int64))
        else:  # async, env by env
            env.close()
            env = envhive.make(
                Malformed, num_envs=4, num_workers=2, start_method="fork", bad=bad, bad_seed=12, seed=10, batch_size=4
            )
            env.reset()
            with pytest.raises(envhive.EnvError, match=message) as err:
                env.step(np.zeros(4, dtype=np.int64), np.arange(4))
        assert err.value.env_ids == [2]
    finally:
        env.close()


def test_envs_of_one_pool_with_other_spaces_are_refused() -> None:
    calls = iter(range(100))

    def factory() -> Malformed:
        return Malformed(wide=next(calls) == 1)  # the second env of the (single) worker differs

    with pytest.raises(
        envhive.EnvError, match=r"env 1 has the spaces Box.*\(5,\).*every env of a pool must have the same"
    ):
        envhive.make(factory, num_envs=3, num_workers=1, start_method="fork")
