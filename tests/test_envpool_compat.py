"""envhive.envpool: EnvPool 1.2's API, written from EnvPool's documented API (README, docs/content/
python_interface.rst, its examples): single-env spaces, make(task_id, env_type), make_gym /
make_gymnasium / make_dm / make_spec, the spec object, list_all_envs, reset(env_id), step(action,
env_id), send/recv, info keys, kwargs, task ids, len(env), is_async, the dm facade."""

from __future__ import annotations

import typing
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

import envhive
import envhive.envpool as envpool


def test_module_surface() -> None:
    assert envpool.__version__ == "1.2.5"
    assert Path(envpool.__file__).with_name("py.typed").is_file()
    for name in ("EnvSpec", "EnvPool", "DMEnvPool", "GymnasiumEnvPool", "make", "make_spec", "list_all_envs"):
        assert name in envpool.__all__ and getattr(envpool, name) is not None
    assert typing.get_type_hints(envpool.make_spec)["return"] is envpool.EnvSpec
    assert typing.get_type_hints(envpool.make_gym)["return"] is envpool.GymnasiumEnvPool
    assert typing.get_type_hints(envpool.make_gymnasium)["return"] is envpool.GymnasiumEnvPool
    assert typing.get_type_hints(envpool.make_dm)["return"] is envpool.DMEnvPool


@pytest.mark.parametrize(
    ("task_id", "obs_shape", "obs_dtype", "action"),
    [
        ("CartPole-v1", (4,), np.float32, spaces.Discrete(2)),
        ("Pendulum-v1", (3,), np.float32, spaces.Box(-2.0, 2.0, (1,), np.float32)),
        ("HalfCheetah-v5", (17,), np.float64, spaces.Box(-1.0, 1.0, (6,), np.float32)),
        ("Pong-v5", (4, 84, 84), np.uint8, spaces.Discrete(6)),
    ],
)
def test_spaces_are_single_env_spaces(
    task_id: str, obs_shape: tuple[int, ...], obs_dtype: type, action: object
) -> None:
    env = envpool.make_gym(task_id, num_envs=3)
    for space in (env.observation_space, env.spec.observation_space, envpool.make_spec(task_id).observation_space):
        assert space.shape == obs_shape and space.dtype == obs_dtype
    assert env.action_space == action == env.spec.action_space
    assert env.single_observation_space is env.observation_space and env.single_action_space is env.action_space
    assert isinstance(env, gymnasium.vector.VectorEnv) and env.is_vector_env
    obs, info = env.reset()
    assert obs.shape == (3, *obs_shape)
    env.close()


def test_make_env_types() -> None:
    for env_type in ("gym", "gymnasium"):
        env = envpool.make("CartPole-v1", env_type=env_type, num_envs=2)
        assert isinstance(env, envpool.GymnasiumEnvPool)
        env.close()
    dm_env = pytest.importorskip("dm_env")  # the [dm] extra (installed by make test)
    env = envpool.make("CartPole-v1", env_type="dm", num_envs=2)
    assert isinstance(env, envpool.DMEnvPool) and isinstance(env, dm_env.Environment)
    env.close()
    with pytest.raises(AssertionError, match="env_type"):
        envpool.make("CartPole-v1", env_type="jax")
    with pytest.raises(TypeError):
        envpool.make("CartPole-v1")  # type: ignore[call-arg]  # EnvPool requires env_type


def test_spec_object() -> None:
    spec = envpool.make_spec("CartPole-v1", num_envs=8, batch_size=4, seed=3)
    assert isinstance(spec, envpool.EnvSpec)
    assert (spec.config.num_envs, spec.config.batch_size, spec.config.seed) == (8, 4, 3)
    assert spec.config.max_episode_steps == 500 and spec.reward_threshold == 475.0
    assert spec.config.max_num_players == 1 and spec.config.env_seed == []
    assert spec.observation_space.shape == (4,) and spec.action_space == spaces.Discrete(2)
    assert spec.state_array_spec["obs"].shape == [4]
    assert spec.action_array_spec["action"].maximum == 1
    atari = envpool.make_spec("Breakout-v5", episodic_life=True, reward_clip=True)
    assert atari.config.task == "breakout" and atari.config.episodic_life and atari.config.reward_clip
    assert (atari.config.stack_num, atari.config.frame_skip, atari.config.noop_max) == (4, 4, 30)
    env = envpool.make_gym("Breakout-v5", num_envs=2, img_height=64, img_width=64)
    assert env.spec.config.img_height == 64 and env.config["img_width"] == 64
    assert env.observation_space.shape == (4, 64, 64)
    env.close()


def test_task_ids_and_kwargs() -> None:
    ids = envpool.list_all_envs()
    assert {"CartPole-v1", "phys2d/CartPole-v1", "Pong-v5", "Ant-v3", "Ant-v5", "HalfCheetah-v3"} <= set(ids)
    assert len(ids) == len(set(ids))
    for task_id in ids:
        assert envpool.make_spec(task_id).id == task_id
    # EnvPool's ids: phys2d/CartPole-v1 is CartPole-v1; Ant-v3 observes the contact forces.
    a, _ = envpool.make_gym("phys2d/CartPole-v1", num_envs=2, seed=1).reset()
    b, _ = envpool.make_gym("CartPole-v1", num_envs=2, seed=1).reset()
    np.testing.assert_array_equal(a, b)
    assert envpool.make_spec("Ant-v3").observation_space.shape == (111,)
    assert envpool.make_spec("Ant-v4").observation_space.shape == (27,)
    # EnvPool's MuJoCo kwargs: <name>_min / <name>_max pairs, EnvPool's names.
    assert tuple(envpool.make_spec("Ant-v4", healthy_z_min=0.3).config.healthy_z_range) == (0.3, 1.0)
    assert envpool.make_spec("Ant-v4", use_contact_force=True).observation_space.shape == (111,)
    # What envhive does not run is refused with a reason (an AssertionError too, as EnvPool asserts).
    with pytest.raises(AssertionError, match="gym's old dynamics"):
        envpool.make_gym("Pendulum-v0")
    with pytest.raises(envhive.UnknownTaskError, match="list_all_envs"):
        envpool.make_gym("NoSuchGame-v5")
    with pytest.raises(AssertionError, match="frame_stack"):
        envpool.make_gym("HalfCheetah-v5", frame_stack=4)
    with pytest.raises(TypeError, match="unknown kwarg 'foo'"):
        envpool.make_gym("CartPole-v1", foo=1)


def test_seeds() -> None:
    # env i is seeded with seed + i; env_seed gives each env its own.
    a, _ = envpool.make_gym("CartPole-v1", num_envs=3, seed=5).reset()
    b, _ = envpool.make_gym("CartPole-v1", num_envs=1, seed=7).reset()
    c, _ = envpool.make_gym("CartPole-v1", num_envs=2, env_seed=[7, 5]).reset()
    np.testing.assert_array_equal(a[2], b[0])
    np.testing.assert_array_equal(c, a[[2, 0]])
    assert envpool.make_spec("CartPole-v1", env_seed=[7, 5], num_envs=2).config.env_seed == [7, 5]
    with pytest.raises(AssertionError, match="int32"):
        envpool.make_gym("CartPole-v1", seed=2**31)


def test_info_keys_and_dtypes() -> None:
    env = envpool.make_gym("CartPole-v1", num_envs=2)
    obs, info = env.reset()
    assert set(info) == {"env_id", "elapsed_step", "players"}
    np.testing.assert_array_equal(info["players"]["env_id"], [0, 1])
    _, reward, terminated, truncated, info = env.step(np.zeros(2, dtype=np.int32))
    assert reward.dtype == np.float32 and terminated.dtype == truncated.dtype == np.bool_
    assert info["env_id"].dtype == np.int32 and list(info["elapsed_step"]) == [1, 1]
    env.close()
    atari = envpool.make_gym("Breakout-v5", num_envs=2, reward_clip=True, episodic_life=True)
    _, info = atari.reset()
    assert {"env_id", "players", "elapsed_step", "lives", "reward", "terminated", "ram"} <= set(info)
    assert "discount" not in info
    assert info["reward"].dtype == np.float32 and info["terminated"].dtype == np.int32
    assert info["ram"].shape == (2, 128) and list(info["lives"]) == [5, 5]
    atari.close()


def test_reset_and_step_by_env_id_in_sync_mode() -> None:
    env = envpool.make_gym("CartPole-v1", num_envs=4, seed=0)
    ref = envpool.make_gym("CartPole-v1", num_envs=4, seed=0)  # every env stepped each time
    assert len(env) == 4 and not env.is_async
    r_obs, _ = ref.reset()
    obs, info = env.reset(env_id=np.array([3, 1]))
    np.testing.assert_array_equal(info["env_id"], [3, 1])
    np.testing.assert_array_equal(obs, r_obs[[3, 1]])
    env.reset()  # every env's second reset
    ref.reset()
    actions = np.array([1, 0, 1, 1], dtype=np.int32)
    r_obs, r_rew, *_ = ref.step(actions)
    obs, rew, term, trunc, info = env.step(actions[[2, 0]], np.array([2, 0], dtype=np.int32))
    np.testing.assert_array_equal(info["env_id"], [2, 0])
    np.testing.assert_array_equal(obs, r_obs[[2, 0]])
    assert obs.shape == (2, 4) and rew.shape == term.shape == trunc.shape == (2,)
    # The envs not stepped held their state: stepping them now gives the reference's first step.
    obs, _, _, _, info = env.step(actions[[1, 3]], np.array([1, 3]))
    np.testing.assert_array_equal(obs, r_obs[[1, 3]])
    np.testing.assert_array_equal(info["elapsed_step"], [1, 1])
    # send/recv with env_id in sync mode returns the same rows.
    env.send(actions, np.arange(4, dtype=np.int32))
    _, _, _, _, info = env.recv()
    np.testing.assert_array_equal(info["elapsed_step"], [2, 2, 2, 2])
    env.close()


def test_first_step_resets_like_envpool() -> None:
    # EnvPool resets an env on its first step when the user never reset it (action ignored).
    ref, _ = envpool.make_gym("CartPole-v1", num_envs=3, seed=2).reset()
    env = envpool.make_gym("CartPole-v1", num_envs=3, seed=2)
    obs, rew, term, trunc, info = env.step(np.ones(3, dtype=np.int32))
    np.testing.assert_array_equal(obs, ref)
    assert not rew.any() and not term.any() and not trunc.any() and not info["elapsed_step"].any()
    assert list(env.step(np.ones(3, dtype=np.int32))[4]["elapsed_step"]) == [1, 1, 1]
    # By env_id: the never-reset envs report their first reset, the others step.
    env = envpool.make_gym("CartPole-v1", num_envs=3, seed=2)
    env.step(np.zeros(1, dtype=np.int32), np.array([1]))
    obs, _, _, _, info = env.step(np.zeros(3, dtype=np.int32))
    np.testing.assert_array_equal(info["elapsed_step"], [0, 1, 0])
    np.testing.assert_array_equal(obs[[0, 2]], ref[[0, 2]])
    # Async: send to never-reset envs, recv their resets.
    env = envpool.make_gym("CartPole-v1", num_envs=4, batch_size=2, seed=2)
    env.send(np.zeros(2, dtype=np.int32), np.array([0, 3], dtype=np.int32))
    _, rew, _, _, info = env.recv()
    assert sorted(info["env_id"].tolist()) == [0, 3] and not info["elapsed_step"].any() and not rew.any()
    env.close()


def test_async_send_recv_loop() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=6, batch_size=2, seed=0)
    assert len(env) == 6 and env.is_async and env.spec.config.batch_size == 2
    env.async_reset()
    seen = set()
    for _ in range(30):
        obs, rew, term, trunc, info = env.recv()
        assert obs.shape == (2, 4) and rew.dtype == np.float32 and info["env_id"].shape == (2,)
        seen.update(info["env_id"].tolist())
        env.send(np.zeros(2, dtype=np.int32), info["env_id"])
    assert seen == set(range(6))
    # EnvPool's dict action form.
    obs, _, _, _, info = env.recv()
    env.send({"action": np.zeros(2, dtype=np.int32), "env_id": info["env_id"]})
    env.recv()
    env.num_envs = 6  # CleanRL's EnvPool scripts assign it
    with pytest.raises(ValueError, match="num_envs is fixed"):
        env.num_envs = 3
    env.close()


def test_gymnasium_reset_keywords_and_actions() -> None:
    env = envpool.make_gym("Pendulum-v1", num_envs=2)
    a, _ = env.reset(seed=4)
    b, _ = envpool.make_gym("Pendulum-v1", num_envs=2, seed=4).reset()
    np.testing.assert_array_equal(a, b)  # reset(seed=) reseeds (EnvPool ignores it)
    env.step(np.zeros((2, 1)))  # float64 actions are cast to the space's float32, as EnvPool casts them
    disc = envpool.make_gym("CartPole-v1", num_envs=2)
    disc.reset()
    disc.step(np.array([1.0, 0.0]))  # a float array for a Discrete space, cast like EnvPool
    with pytest.raises(ValueError, match="outside Discrete"):
        disc.step(np.array([2, 0], dtype=np.int32))


def test_dm_facade() -> None:
    dm_env = pytest.importorskip("dm_env")
    env = envpool.make_dm("Breakout-v5", num_envs=2, seed=1)
    ts = env.reset()
    assert list(ts.step_type) == [dm_env.StepType.FIRST] * 2
    obs = ts.observation
    assert type(obs).__name__ == "State" and obs._fields[:3] == ("env_id", "players", "obs")
    assert obs.obs.shape == (2, 4, 84, 84) and obs.players.env_id.tolist() == [0, 1]
    assert obs.lives.tolist() == [5, 5] and obs.terminated.dtype == np.int32
    ts = env.step(np.array([1, 1], dtype=np.int32))
    assert ts.reward.dtype == np.float32 and ts.discount.dtype == np.float32
    assert list(ts.step_type) == [dm_env.StepType.MID] * 2
    spec = env.observation_spec()
    assert spec.obs.shape == (4, 84, 84) and env.action_spec().num_values == 4
    env.close()
    # A time limit ends an episode with discount 1 (EnvPool: 0), a termination with 0.
    limited = envpool.make_dm("CartPole-v1", num_envs=1, max_episode_steps=3)
    limited.reset()
    steps = [limited.step(np.ones(1, dtype=np.int32)) for _ in range(3)]
    assert steps[-1].step_type[0] == dm_env.StepType.LAST and steps[-1].discount[0] == 1.0
    assert limited.step(np.ones(1, dtype=np.int32)).step_type[0] == dm_env.StepType.FIRST
    limited.close()


def test_render_as_envpool_renders() -> None:
    env = envpool.make_gym("CartPole-v1", num_envs=3, seed=0, render_mode="rgb_array", render_env_id=1)
    plain = envhive.make("CartPole-v1", num_envs=3, seed=0, render_mode="rgb_array")
    env.reset()
    plain.reset()
    frames = env.render()  # the default env: render_env_id
    assert frames.shape == (1, 400, 600, 3) and frames.dtype == np.uint8
    expected = plain.render()
    assert expected is not None
    np.testing.assert_array_equal(frames[0], expected[1])
    both = env.render(env_ids=[2, 0])
    np.testing.assert_array_equal(both, np.stack([expected[2], expected[0]]))
    with pytest.raises(ValueError, match="camera"):
        env.render(camera_id=3)
    env.close()
    plain.close()
    with pytest.raises(RuntimeError, match="render_mode must be set"):
        envpool.make_gym("CartPole-v1").render()
    with pytest.raises(AssertionError, match="render_mode must be one of"):
        envpool.make_gym("CartPole-v1", render_mode="video")
    with pytest.raises(AssertionError, match="opens no window"):
        envpool.make_gym("CartPole-v1", render_mode="human")
    with pytest.raises(AssertionError, match="render_env_id 5"):
        envpool.make_gym("CartPole-v1", num_envs=2, render_mode="rgb_array", render_env_id=5)
    assert envpool.make_spec("CartPole-v1", render_mode="rgb_array").config.num_envs == 1  # ignored, as EnvPool


def test_render_size_goes_to_mujoco() -> None:
    env = envpool.make_gymnasium(
        "HalfCheetah-v5", num_envs=1, render_mode="rgb_array", render_width=64, render_height=48
    )
    env.reset()
    assert env.render().shape == (1, 48, 64, 3)
    env.close()


def test_vector_wrappers_see_a_vector_env() -> None:
    # Single-env spaces (EnvPool's) still work with Gymnasium's vector wrappers.
    env = gymnasium.wrappers.vector.NormalizeObservation(envpool.make_gym("CartPole-v1", num_envs=3))
    obs, _ = env.reset()
    assert obs.shape == (3, 4)
    obs, rew, *_ = env.step(np.zeros(3, dtype=np.int32))
    assert obs.shape == (3, 4) and rew.shape == (3,)
    stats = envhive.RecordEpisodeStatistics(envpool.make_gym("CartPole-v1", num_envs=2, max_episode_steps=5))
    stats.reset()
    for _ in range(6):
        _, _, _, _, info = stats.step(np.zeros(2, dtype=np.int32))
    assert stats.episode_count == 2 and list(stats.length_queue) == [5, 5]


def test_pools_are_gymnasium_envs_as_envpools_are() -> None:
    """EnvPool 1.2's gymnasium pools are both a VectorEnv and a gymnasium.Env (its make tests assert
    it for every family): gymnasium.Wrapper takes them; envhive.make's pools stay VectorEnvs only."""
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2)
    assert isinstance(env, gymnasium.Env) and isinstance(env, gymnasium.vector.VectorEnv)
    assert isinstance(env, envpool.GymnasiumEnvPool) and isinstance(env, envhive.HiveVectorEnv)
    wrapped = gymnasium.Wrapper(env)
    obs, info = wrapped.reset()
    assert obs.shape == (2, 4) and wrapped.unwrapped is env
    obs, reward, terminated, truncated, info = wrapped.step(np.zeros(2, dtype=np.int32))
    assert reward.dtype == np.float32 and list(info["env_id"]) == [0, 1]
    wrapped.close()
    assert env.closed
    plain = envhive.make("CartPole-v1", num_envs=2)
    assert not isinstance(plain, gymnasium.Env)
    plain.close()


def test_cleanrl_ppo_atari_envpool_env_code() -> None:
    """The env side of CleanRL's ppo_atari_envpool.py with the changes docs/envpool-migration.md lists
    (Gymnasium's 5-tuple and (obs, info) reset; its episode wrapper stays a gymnasium.Wrapper, as the
    pool is a gymnasium.Env like EnvPool's): the script's attribute assignments, and episodes of whole
    games counted from info's raw reward and game over."""
    pytest.importorskip("ale_py")
    num_envs = 2

    class EpisodeReturns(gymnasium.Wrapper):  # CleanRL's RecordEpisodeStatistics, its logic
        def __init__(self, env, deque_size=100):
            super().__init__(env)
            self.num_envs = getattr(env, "num_envs", 1)

        def reset(self, **kwargs):
            out = super().reset(**kwargs)
            self.returns = np.zeros(num_envs, np.float32)
            self.lengths = np.zeros(num_envs, np.int32)
            return out

        def step(self, action):
            obs, rewards, terminations, truncations, infos = super().step(action)
            dones = terminations | truncations
            self.returns += infos["reward"]
            self.lengths += 1
            infos["r"], infos["l"] = self.returns.copy(), self.lengths.copy()
            self.returns *= 1 - infos["terminated"]
            self.lengths *= 1 - infos["terminated"]
            return obs, rewards, dones, infos

    envs = envpool.make("Breakout-v5", env_type="gym", num_envs=num_envs, episodic_life=True, reward_clip=True, seed=1)
    envs.num_envs = num_envs
    envs.single_action_space = envs.action_space
    envs.single_observation_space = envs.observation_space
    envs = EpisodeReturns(envs)
    assert isinstance(envs.action_space, gymnasium.spaces.Discrete) and envs.num_envs == num_envs
    next_obs = envs.reset()[0]
    assert next_obs.shape == (num_envs, 4, 84, 84)
    rng = np.random.default_rng(0)
    games = []
    for _ in range(400):
        next_obs, reward, next_done, info = envs.step(rng.integers(0, 4, num_envs))
        games += [(info["r"][i], info["l"][i]) for i in range(num_envs) if next_done[i] and info["lives"][i] == 0]
    assert len(games) >= 4 and all(length > 0 for _, length in games), games
    assert reward.dtype == np.float32 and info["terminated"].dtype == np.int32
    envs.close()


def test_deepmind_control_as_envpool_has_it() -> None:
    """EnvPool 1.2.5's DMC tasks (its ids are envhive's): Dict observations of dm_control's keys,
    ``frame_skip`` as physics steps per control step, 1000-step episodes (lqr's too), ``task_name``,
    ``obs:<key>`` state arrays, dm ``State`` fields named by the keys, float32 rewards."""
    spec = envpool.make_spec("WalkerWalk-v1")
    assert spec.config.frame_skip == 10 and spec.config.task_name == "walk" and spec.config.frame_stack == 1
    assert spec.config.max_episode_steps == 1000
    assert list(spec.observation_space.spaces) == ["orientations", "height", "velocity"]
    assert [k for k in spec.state_array_spec if k.startswith("obs")] == [
        "obs:orientations",
        "obs:height",
        "obs:velocity",
    ]
    assert envpool.make_spec("DogRun-v1").config.frame_skip == 3
    env = envpool.make_gymnasium("WalkerWalk-v1", num_envs=2, frame_skip=5, max_episode_steps=20, seed=3)
    assert env.spec.config.frame_skip == 5 and env.spec.task_spec.config["n_sub_steps"] == 5
    obs, info = env.reset()
    assert set(obs) == {"orientations", "height", "velocity"} and obs["height"].shape == (2,)
    for t in range(20):
        obs, reward, terminated, truncated, info = env.step(np.zeros((2, 6)))
        assert reward.dtype == np.float32 and not terminated.any()
        assert truncated.all() == (t == 19)
    lqr = envpool.make_gymnasium("LqrLqr21-v1", num_envs=1)
    assert lqr.spec.config.max_episode_steps == 1000 and lqr.spec.task_spec.max_episode_steps == 1000
    dm = envpool.make_dm("CheetahRun-v1", num_envs=2)
    ts = dm.reset()
    assert ts.observation._fields == ("env_id", "players", "position", "velocity")
    assert ts.observation.position.shape == (2, 8)
    assert list(dm.observation_spec()._fields)[2:] == ["position", "velocity"]
    ts = dm.step(np.zeros((2, 6)))
    assert ts.reward.dtype == np.float32 and list(ts.step_type) == [1, 1]
    with pytest.raises(envpool.EnvPoolArgumentError, match="task_name='walk' names another task"):
        envpool.make_gymnasium("CheetahRun-v1", task_name="walk")
    # EnvPool stacks DMC state keys too: (frame_stack, *shape), oldest first, the first repeated after a reset
    stacked = envpool.make_gymnasium("CheetahRun-v1", frame_stack=2, num_envs=1, seed=1)
    plain = envpool.make_gymnasium("CheetahRun-v1", num_envs=1, seed=1)
    assert stacked.observation_space["position"].shape == (2, 8)
    obs, _ = stacked.reset()
    ref, _ = plain.reset()
    np.testing.assert_array_equal(obs["position"][0, 0], obs["position"][0, 1])
    np.testing.assert_array_equal(obs["position"][0, 1], ref["position"][0])
    for _ in range(3):
        prev = obs
        obs, *_ = stacked.step(np.full((1, 6), 0.3))
        ref, *_ = plain.step(np.full((1, 6), 0.3))
        np.testing.assert_array_equal(obs["velocity"][0, 0], prev["velocity"][0, 1])
        np.testing.assert_array_equal(obs["velocity"][0, 1], ref["velocity"][0])
    assert envpool.make_dm("WalkerWalk-v1", frame_stack=4).observation_spec().height.shape == (4,)
    stacked.close()
    plain.close()


def test_deepmind_control_from_pixels_as_envpool_has_it() -> None:
    """EnvPool's ``from_pixels``: one (3 * frame_stack, H, W) uint8 Box, 84 x 84 from the free camera
    unless render_width / render_height / render_camera_id say otherwise; only DMC tasks have it."""
    assert envpool.make_spec("CheetahRun-v1", from_pixels=True, frame_stack=3).observation_space == spaces.Box(
        0, 255, (9, 84, 84), np.uint8
    )
    env = envpool.make_gymnasium(
        "CheetahRun-v1", num_envs=2, from_pixels=True, render_width=40, render_height=32, render_camera_id=1
    )
    obs, _ = env.reset()
    assert obs.shape == (2, 3, 32, 40) and obs.dtype == np.uint8
    assert env.spec.task_spec.config["camera_id"] == 1
    with pytest.raises(envpool.EnvPoolArgumentError, match="from_pixels observations are the DeepMind Control"):
        envpool.make_gymnasium("Ant-v4", from_pixels=True)
