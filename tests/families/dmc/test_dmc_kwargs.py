"""The DeepMind Control Suite family beyond plain lock-step (tests/families/dmc/test_dmc_alignment.py): which
suite tasks exist, reseeding, the other autoreset modes, frame_skip, task_kwargs["random"], the
dm_env view, Gymnasium ids, and bad input."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import envhive
from envhive import _mujoco as _dmc  # the DMC family's test hooks
from envhive.registry import task_info

suite = pytest.importorskip("dm_control.suite")

from test_dmc_alignment import TASKS, _assert_obs, _dm_env, envpool_id  # noqa: E402


def test_registered_tasks_are_the_whole_suite() -> None:
    dmc_ids = {t for t in envhive.list_envs() if task_info(t).family == "dmc"}
    expected = {envpool_id(d, t) for d, t in TASKS} | {f"dm_control/{d}-{t}-v0" for d, t in TASKS}
    assert dmc_ids == expected
    assert len(TASKS) == len(set(TASKS)) == len(suite.ALL_TASKS) == 51
    assert set(TASKS) == set(suite.ALL_TASKS)


def test_spline_zoom_is_scipys_bit_for_bit() -> None:
    # quadruped escape zooms its bumps with scipy.ndimage.zoom (order 3, mode 'constant'): the C++
    # port against scipy on random shapes and factors, and the escape terrain's own 30 -> 201.
    ndimage = pytest.importorskip("scipy.ndimage")
    rng = np.random.default_rng(0)
    cases = [((30, 30), (201 / 30.0, 201 / 30.0))]
    cases += [(tuple(rng.integers(1, 12, size=2)), tuple(rng.uniform(0.4, 7.0, size=2))) for _ in range(60)]
    for shape, zoom in cases:
        a = rng.uniform(-1.0, 1.0, size=shape)
        expected = ndimage.zoom(a, zoom)
        ours = _dmc._spline_zoom(a.ravel().tolist(), *shape, *expected.shape)
        np.testing.assert_array_equal(np.reshape(ours, expected.shape), expected, err_msg=f"{shape} x {zoom}")


@pytest.mark.parametrize("seed", [0, 7, 2**32 - 1])
def test_quadruped_escape_terrain_is_dm_controls(seed: int) -> None:
    env = _dm_env("quadruped", "escape", seed)
    env.reset()
    model = env.physics.model
    res, start = int(model.hfield_nrow[0]), int(model.hfield_adr[0])
    expected = model.hfield_data[start : start + res * res]
    ours = np.asarray(_dmc._escape_terrain(seed, res, float(model.hfield_size[0, 0])), dtype=np.float32)
    np.testing.assert_array_equal(ours, expected)


def _walk(env, refs, steps: int, rng: np.random.Generator, domain: str) -> None:
    """next_step autoreset lock-step of `env` (already reset) against dm_control envs `refs`."""
    ended = [False] * len(refs)
    for t in range(steps):
        actions = rng.uniform(-1, 1, size=(len(refs), *refs[0].action_spec().shape))
        obs, reward, terminated, truncated, _ = env.step(actions)
        for i, ref in enumerate(refs):
            ts = ref.step(actions[i])
            _assert_obs(domain, obs, i, ts.observation, f"step {t} env {i}")
            if not ended[i]:
                assert reward[i] == ts.reward, (t, i)
                assert truncated[i] == (ts.last() and ts.discount == 1.0)
            ended[i] = bool(ts.last()) and not ended[i]


@pytest.mark.parametrize(("domain", "task"), [("lqr", "lqr_2_1"), ("walker", "walk")])
def test_reset_with_new_seeds_plays_dm_controls_episodes_for_them(domain: str, task: str) -> None:
    # lqr: a new seed also redraws the model's stiffness, as suite.load(random=seed) would.
    tl = 10 * _dm_env(domain, task, 0).control_timestep()
    env = envhive.make(envpool_id(domain, task), num_envs=2, seed=0, time_limit=tl)
    env.reset()
    obs, _ = env.reset(seed=[11, 12])
    refs = [_dm_env(domain, task, s, tl) for s in (11, 12)]
    for i, ref in enumerate(refs):
        _assert_obs(domain, obs, i, ref.reset().observation, f"reset env {i}")
    _walk(env, refs, 25, np.random.default_rng(1), domain)


@pytest.mark.parametrize("mode", ["same_step", "disabled"])
def test_other_autoreset_modes(mode: str) -> None:
    domain, task = "cartpole", "swingup"
    tl = 8 * _dm_env(domain, task, 0).control_timestep()
    env = envhive.make(envpool_id(domain, task), num_envs=1, seed=3, time_limit=tl, autoreset_mode=mode)
    ref = _dm_env(domain, task, 3, tl)
    obs, _ = env.reset()
    _assert_obs(domain, obs, 0, ref.reset().observation, "reset")
    rng = np.random.default_rng(0)
    for t in range(20):
        action = rng.uniform(-1, 1, size=(1, 1))
        obs, reward, terminated, truncated, info = env.step(action)
        ts = ref.step(action[0])
        assert reward[0] == ts.reward, t
        assert truncated[0] == ts.last() and not terminated[0]
        if not ts.last():
            _assert_obs(domain, obs, 0, ts.observation, f"step {t}")
        elif mode == "same_step":
            final = info["final_obs"][0]  # Gymnasium's: an object array of each env's own observation
            _assert_obs(domain, {k: v[None] for k, v in final.items()}, 0, ts.observation, f"final {t}")
            _assert_obs(domain, obs, 0, ref.reset().observation, f"reset {t}")
        else:
            _assert_obs(domain, obs, 0, ts.observation, f"last {t}")
            obs, _ = env.reset(options={"reset_mask": np.array([True])})
            _assert_obs(domain, obs, 0, ref.reset().observation, f"reset {t}")


def test_frame_skip_repeats_the_action_and_sums_rewards_until_the_episode_ends() -> None:
    domain, task, k = "walker", "run", 3
    tl = 10 * _dm_env(domain, task, 0).control_timestep()  # 10 control steps: 3 + 3 + 3 + 1
    env = envhive.make(envpool_id(domain, task), num_envs=1, seed=4, time_limit=tl, frame_skip=k)
    ref = _dm_env(domain, task, 4, tl)
    env.reset()
    ref.reset()
    rng = np.random.default_rng(2)
    for t in range(4):
        action = rng.uniform(-1, 1, size=(1, 6))
        obs, reward, _, truncated, _ = env.step(action)
        total = 0.0
        for _ in range(k):
            ts = ref.step(action[0])
            total += ts.reward
            if ts.last():
                break
        _assert_obs(domain, obs, 0, ts.observation, f"step {t}")
        assert reward[0] == total, t
        assert truncated[0] == (t == 3)


def test_random_kwarg_seeds_like_task_kwargs() -> None:
    env = envhive.make("CheetahRun-v1", num_envs=2, seed=0, random=20)
    obs, _ = env.reset()
    for i in range(2):
        _assert_obs("cheetah", obs, i, _dm_env("cheetah", "run", 20 + i).reset().observation, f"env {i}")


def test_dm_view_step_types_and_discounts() -> None:
    domain, task = "lqr", "lqr_2_1"
    tl = 5 * _dm_env(domain, task, 0).control_timestep()
    dm = envhive.make_dm(envpool_id(domain, task), num_envs=1, seed=9, time_limit=tl)
    ref = _dm_env(domain, task, 9, tl)
    first = dm.reset()
    assert int(first.step_type[0]) == 0
    ref.reset()
    for _ in range(12):
        action = np.full((1, 1), 0.3)
        ts, ref_ts = dm.step(action), ref.step(action[0])
        assert int(ts.step_type[0]) == int(ref_ts.step_type)
        if not ref_ts.first():
            assert float(ts.discount[0]) == ref_ts.discount


def test_shimmy_and_envpool_ids_are_the_same_task_through_gymnasium() -> None:
    a = gymnasium.make_vec("dm_control/walker-walk-v0", num_envs=2, seed=1)
    b = envhive.make("WalkerWalk-v1", num_envs=2, seed=1)
    assert isinstance(a.single_observation_space, gymnasium.spaces.Dict)
    assert a.single_observation_space == b.single_observation_space
    obs_a, obs_b = a.reset()[0], b.reset()[0]
    assert list(obs_a) == list(obs_b) == ["orientations", "height", "velocity"]
    for key in obs_a:
        np.testing.assert_array_equal(obs_a[key], obs_b[key])


# Tasks whose keys include scalars and 2-d leaves (arm_pos (8, 2), box_pos (2, 4)): flattening
# follows dm_control's key order and each leaf's C order.
@pytest.mark.parametrize(("domain", "task"), [("walker", "walk"), ("stacker", "stack_2"), ("finger", "turn_hard")])
def test_flatten_is_one_box_of_dm_controls_keys_in_order(domain: str, task: str) -> None:
    env = envhive.make(envpool_id(domain, task), num_envs=2, seed=3, flatten=True)
    refs = [_dm_env(domain, task, 3 + i) for i in range(2)]
    size = sum(int(np.prod(leaf.shape)) for leaf in refs[0].observation_spec().values())
    assert env.single_observation_space == gymnasium.spaces.Box(-np.inf, np.inf, (size,), np.float64)
    obs, _ = env.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (2, size)
    for i, ref in enumerate(refs):
        _assert_obs(domain, obs, i, ref.reset().observation, f"reset env {i}")
    _walk(env, refs, 12, np.random.default_rng(4), domain)


def test_make_dm_gives_dm_controls_named_arrays_batched() -> None:
    dm = envhive.make_dm("HumanoidRun-v1", num_envs=3, seed=2)
    ref = _dm_env("humanoid", "run", 2)
    spec = dm.observation_spec()
    assert list(spec) == list(ref.observation_spec())
    for key, leaf in ref.observation_spec().items():
        assert spec[key].shape == leaf.shape and spec[key].dtype == leaf.dtype, key
    ts = dm.reset()
    assert list(ts.observation) == list(ref.observation_spec())
    for key, leaf in ref.observation_spec().items():
        assert ts.observation[key].shape == (3, *leaf.shape), key
    _assert_obs("humanoid", ts.observation, 0, ref.reset().observation, "reset")
    action = np.zeros((3, *ref.action_spec().shape))
    ts, ref_ts = dm.step(action), ref.step(action[0])
    _assert_obs("humanoid", ts.observation, 0, ref_ts.observation, "step")


# The task constructors' own kwargs, where the suite has them: fewer keys when not fully observable,
# a model rebuilt with another number of poles, the sparse reward.
@pytest.mark.parametrize(
    ("domain", "task", "kwargs"),
    [
        ("manipulator", "bring_ball", {"fully_observable": False}),
        ("stacker", "stack_2", {"fully_observable": False}),
        ("cartpole", "three_poles", {"num_poles": 2, "sparse": True}),
        ("cartpole", "three_poles", {"num_poles": 5}),
    ],
)
def test_task_kwargs_as_dm_controls(domain: str, task: str, kwargs: dict) -> None:
    seed = 6
    tl = 10 * _dm_env(domain, task, 0).control_timestep()
    env = envhive.make(envpool_id(domain, task), num_envs=2, seed=seed, time_limit=tl, **kwargs)
    refs = [_dm_env(domain, task, seed + i, tl, **kwargs) for i in range(2)]
    assert list(env.single_observation_space.spaces) == list(refs[0].observation_spec())
    obs, _ = env.reset()
    for i, ref in enumerate(refs):
        _assert_obs(domain, obs, i, ref.reset().observation, f"reset env {i}")
    _walk(env, refs, 25, np.random.default_rng(7), domain)


def test_task_kwargs_exist_only_where_the_suite_has_them() -> None:
    for task_id, names in [
        ("ManipulatorInsertPeg-v1", {"fully_observable"}),
        ("StackerStack4-v1", {"fully_observable"}),
        ("CartpoleThreePoles-v1", {"num_poles", "sparse"}),
        ("CartpoleTwoPoles-v1", set()),
        ("WalkerWalk-v1", set()),
    ]:
        defaults = task_info(task_id).defaults
        assert {"fully_observable", "num_poles", "sparse"} & set(defaults) == names, task_id
    with pytest.raises(TypeError, match="num_poles"):
        envhive.make("CartpoleTwoPoles-v1", num_poles=4)
    with pytest.raises(ValueError, match=r"num_poles must be in \[1, 50\]"):
        envhive.make("CartpoleThreePoles-v1", num_poles=0)


def test_seeds_beyond_randomstates_range_are_refused_before_any_env_sees_them() -> None:
    # dm_control seeds numpy.random.RandomState(seed): [0, 2**32 - 1]. Env i of seed s gets s + i.
    with pytest.raises(ValueError, match=r"seeds must be in \[0, 4294967295\], got 4294967296 for env 1"):
        envhive.make("CheetahRun-v1", num_envs=2, seed=2**32 - 1)
    env = envhive.make("CheetahRun-v1", num_envs=2, seed=2**32 - 2)
    obs, _ = env.reset()
    _assert_obs("cheetah", obs, 1, _dm_env("cheetah", "run", 2**32 - 1).reset().observation, "env 1")
    with pytest.raises(ValueError, match="got 4294967296 for env 0"):
        env.reset(seed=[2**32, 5])
    with pytest.raises(ValueError, match="got 4294967296 for env 1"):
        env.reset(seed=2**32 - 1)
    obs, _ = env.reset(seed=[0, 2**32 - 1])  # nothing was lost: the pool takes the next valid call
    _assert_obs("cheetah", obs, 1, _dm_env("cheetah", "run", 2**32 - 1).reset().observation, "reseeded env 1")


def test_bad_input_names_the_problem() -> None:
    with pytest.raises(TypeError, match="valid kwargs are: .*frame_skip.*n_sub_steps.*random.*time_limit"):
        envhive.make("CheetahRun-v1", time_limt=3)
    with pytest.raises(ValueError, match="n_sub_steps must be"):
        envhive.make("CheetahRun-v1", n_sub_steps=0)
    with pytest.raises(ValueError, match="frame_skip must be"):
        envhive.make("CheetahRun-v1", frame_skip=0)
    with pytest.raises(ValueError, match="time_limit must be > 0"):
        envhive.make("CheetahRun-v1", time_limit=0.0)
    with pytest.raises(ValueError, match="random must be a seed"):
        envhive.make("CheetahRun-v1", random=2**32)
    with pytest.raises(envhive.UnknownTaskError, match="CheetahRun-v1"):
        envhive.make("CheetahRunn-v1")


def test_cross_entropy_method_learns_cartpole_balance_from_state() -> None:
    """A learning smoke test on the native pool: the cross-entropy method over linear policies
    (a = tanh(w . obs + b), one policy per env of a 32-env pool, flattened state observations),
    fixed seed and budget (8 iterations of 200-step episodes: ~1 s). Random linear policies keep
    the pole up for a third of the episode's reward; the learned mean policy gets over 90% of the
    most there is, on 32 initial states."""
    pop, iterations, steps = 32, 8, 200
    env = envhive.make(
        "CartpoleBalance-v1", num_envs=pop, seed=0, flatten=True, time_limit=steps * 0.01, autoreset_mode="disabled"
    )
    dim = env.single_observation_space.shape[0]
    rng = np.random.default_rng(0)

    def returns(params: np.ndarray) -> np.ndarray:
        obs, _ = env.reset(seed=list(range(pop)))
        total, done = np.zeros(pop), np.zeros(pop, dtype=bool)
        for _ in range(steps):
            action = np.tanh(np.einsum("pi,pi->p", obs, params[:, :dim]) + params[:, dim])[:, None]
            obs, reward, terminated, truncated, _ = env.step(action)
            total += np.where(done, 0.0, reward)
            done |= terminated | truncated
        assert done.all()  # every episode ran to its time limit
        return total

    random_policies = returns(rng.normal(size=(pop, dim + 1)))
    mean, std = np.zeros(dim + 1), np.ones(dim + 1)
    for _ in range(iterations):
        candidates = mean + std * rng.normal(size=(pop, dim + 1))
        elite = candidates[np.argsort(returns(candidates))[-pop // 4 :]]
        mean, std = elite.mean(axis=0), elite.std(axis=0) + 0.05
    learned = returns(np.tile(mean, (pop, 1)))
    assert random_policies.mean() < 0.5 * steps
    assert learned.mean() > 0.9 * steps, (random_policies.mean(), learned.mean())
    env.close()
