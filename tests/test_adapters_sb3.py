"""Stable-Baselines3 on envhive: the SB3 VecEnv contract, SB3's VecEnv wrappers, and PPO learning."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecFrameStack, VecMonitor, VecNormalize

import envhive
from envhive.adapters.sb3 import SB3VecEnv, make_vec_env, unwrap_pool


def dummy(task: str, n: int, **kwargs) -> DummyVecEnv:
    return DummyVecEnv([lambda: gymnasium.make(task, **kwargs) for _ in range(n)])


@pytest.mark.parametrize("task", ["CartPole-v1", "Pendulum-v1"])
def test_matches_dummy_vec_env(task: str) -> None:
    """Same seeds and actions: the same observations, rewards, dones, terminal observations and
    TimeLimit.truncated flags as SB3's own DummyVecEnv over Gymnasium's envs."""
    n = 4
    hive, ref = make_vec_env(task, num_envs=n), dummy(task, n)
    hive.seed(7)
    ref.seed(7)
    np.testing.assert_array_equal(hive.reset(), ref.reset())
    rng = np.random.default_rng(0)
    space = hive.action_space
    ends = truncations = 0
    for _ in range(450):
        if isinstance(space, gymnasium.spaces.Discrete):
            actions = rng.integers(0, 2, size=n)
        else:
            actions = rng.uniform(-2, 2, size=(n, 1)).astype(np.float32)
        obs, rew, done, infos = hive.step(actions)
        robs, rrew, rdone, rinfos = ref.step(actions)
        np.testing.assert_array_equal(obs, robs)
        np.testing.assert_array_equal(rew, rrew)
        assert rew.dtype == np.float32 and done.dtype == np.bool_
        np.testing.assert_array_equal(done, rdone)
        for i in range(n):
            assert infos[i]["TimeLimit.truncated"] == rinfos[i]["TimeLimit.truncated"]
            assert ("terminal_observation" in infos[i]) == bool(done[i])
            if done[i]:
                np.testing.assert_array_equal(infos[i]["terminal_observation"], rinfos[i]["terminal_observation"])
                assert infos[i]["elapsed_step"] > 0 and hive.reset_infos[i]["elapsed_step"] == 0
        ends += int(done.sum())
        truncations += sum(info["TimeLimit.truncated"] for info in infos)
    assert ends > 0
    if task == "Pendulum-v1":
        assert truncations == 2 * n  # 200-step time limits, bootstrapped by SB3


def test_seed_and_options_apply_at_next_reset() -> None:
    venv = make_vec_env("CartPole-v1", num_envs=3, seed=0)
    first = venv.reset()
    assert venv.seed(11) == [11, 12, 13]
    after_seed_call = venv.step(np.zeros(3, dtype=np.int64))[0]
    assert not np.array_equal(after_seed_call, envhive.make("CartPole-v1", num_envs=3, seed=11).reset()[0])
    np.testing.assert_array_equal(venv.reset(), envhive.make("CartPole-v1", num_envs=3, seed=11).reset()[0])
    assert not np.array_equal(venv.reset(), first)  # seeds are used once

    venv.set_options({"bogus": 1.0})
    with pytest.raises(ValueError, match="unknown reset option 'bogus'.*none"):
        venv.reset()


def test_set_options_reach_the_pool_at_next_reset() -> None:
    """Per-env reset options (domain randomisation) from set_options() equal envhive's own."""
    venv = make_vec_env("HalfCheetah-v5", num_envs=2, seed=0)
    ref = envhive.make("HalfCheetah-v5", num_envs=2, autoreset_mode="same_step", seed=0)
    venv.set_options([{"body_mass_scale": 1.0}, {"body_mass_scale": 3.0}])
    venv.seed(4)
    ref.reset(seed=4, options={"body_mass_scale": np.array([1.0, 3.0])})
    venv.reset()
    plain = envhive.make("HalfCheetah-v5", num_envs=2, seed=4)  # the same without the option
    plain.reset()
    actions = np.random.default_rng(0).uniform(-1, 1, size=(20, 2, 6)).astype(np.float32)
    for a in actions:
        obs = venv.step(a)[0]
        np.testing.assert_array_equal(obs, ref.step(a)[0])
        unscaled = plain.step(a)[0]
    np.testing.assert_array_equal(obs[0], unscaled[0])  # scale 1: unchanged
    assert not np.allclose(obs[1], unscaled[1])  # scale 3: heavier bodies move differently

    venv.set_options([{"body_mass_scale": 2.0}, {}])
    with pytest.raises(ValueError, match="every env or for none"):
        venv.reset()
    venv.set_options({"bogus": 1.0})
    with pytest.raises(ValueError, match="unknown reset option 'bogus'.*body_mass_scale"):
        venv.reset()


def test_attributes_methods_and_wrappers() -> None:
    venv = make_vec_env("CartPole-v1", num_envs=4, seed=0)
    assert venv.render_mode is None  # VecEnv.__init__ asked get_attr("render_mode")
    assert venv.get_attr("render_mode") == [None] * 4
    assert venv.get_attr("action_space", indices=[1, 2]) == [venv.action_space] * 2
    assert venv.get_attr("task_spec", indices=0)[0].id == "CartPole-v1"
    assert venv.has_attr("observation_space") and not venv.has_attr("gravity")
    with pytest.raises(AttributeError, match="no per-env attribute 'gravity'.*task_spec"):
        venv.get_attr("gravity")
    with pytest.raises(AttributeError, match="cannot set 'gravity'.*make_vec_env.*set_options"):
        venv.set_attr("gravity", 1.0)
    with pytest.raises(AttributeError, match="no env method 'compute_reward'.*reset"):
        venv.env_method("compute_reward")
    with pytest.raises(IndexError, match="out of range"):
        venv.get_attr("render_mode", indices=[4])
    assert venv.env_is_wrapped(Monitor) == [False] * 4
    assert venv.env_method("get_wrapper_attr", "render_mode", indices=[0]) == [None]

    venv.reset()
    for _ in range(3):
        venv.step(np.ones(4, dtype=np.int64))
    ((reset_obs, reset_info),) = venv.env_method("reset", indices=[2], seed=5)
    np.testing.assert_array_equal(reset_obs, envhive.make("CartPole-v1", seed=5).reset()[0][0])
    assert reset_info["elapsed_step"] == 0
    nxt = venv.step(np.ones(4, dtype=np.int64))[1]
    assert nxt.shape == (4,)
    assert "SB3VecEnv(HiveVectorEnv(CartPole-v1" in repr(venv)


def test_vec_monitor_normalize_frame_stack() -> None:
    base = make_vec_env("CartPole-v1", num_envs=4, seed=0)
    venv = VecFrameStack(VecNormalize(VecMonitor(base)), n_stack=3)
    assert unwrap_pool(venv) is base.pool
    obs = venv.reset()
    assert obs.shape == (4, 12)
    episodes = []
    for _ in range(120):
        obs, rew, done, infos = venv.step(np.zeros(4, dtype=np.int64))
        for i in np.flatnonzero(done):
            ep = infos[i]["episode"]  # VecMonitor
            episodes.append((ep["r"], ep["l"]))
            assert infos[i]["terminal_observation"].shape == (12,)  # stacked by VecFrameStack
            assert np.all(np.abs(infos[i]["terminal_observation"]) <= 10.0)  # normalized by VecNormalize
    assert episodes and all(r == length for r, length in episodes)  # CartPole: reward 1 per step


def test_bad_pools_get_clear_errors() -> None:
    with pytest.raises(ValueError, match="SAME_STEP autoreset; this pool runs next_step.*autoreset_mode='same_step'"):
        SB3VecEnv(envhive.make("CartPole-v1", num_envs=2))
    with pytest.raises(ValueError, match="async pool.*batch_size=num_envs"):
        SB3VecEnv(envhive.make("CartPole-v1", num_envs=4, batch_size=2, autoreset_mode="same_step"))
    with pytest.raises(ValueError, match="SAME_STEP"):
        make_vec_env("CartPole-v1", autoreset_mode="disabled")
    with pytest.raises(TypeError, match="make_vec_env"):
        SB3VecEnv(gymnasium.make_vec("CartPole-v1", num_envs=2))  # type: ignore[arg-type]


@pytest.fixture
def one_torch_thread():
    """Small networks on a loaded 2-core machine: one torch thread (no spinning thread pool)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.learning
def test_ppo_learns_cartpole(one_torch_thread) -> None:
    """RL Zoo's PPO hyperparameters for CartPole-v1, fixed seed and a 30k-step budget (the zoo
    trains 100k): evaluation return >= 475."""
    venv = make_vec_env("CartPole-v1", num_envs=8, seed=0)
    model = PPO(
        "MlpPolicy",
        venv,
        n_steps=32,
        batch_size=256,
        gae_lambda=0.8,
        gamma=0.98,
        n_epochs=20,
        ent_coef=0.0,
        learning_rate=lambda progress: 1e-3 * progress,
        clip_range=lambda progress: 0.2 * progress,
        seed=0,
        device="cpu",
    )
    model.learn(total_timesteps=30_000)
    eval_env = VecMonitor(make_vec_env("CartPole-v1", num_envs=4, seed=1000))
    mean, _ = evaluate_policy(model, eval_env, n_eval_episodes=20, deterministic=True)
    assert mean >= 475, mean


def test_env_error_reaches_sb3_and_the_venv_stays_usable() -> None:
    venv = make_vec_env("Dummy-v0", num_envs=3, episode_length=0, fail_env=1, fail_step=2)
    venv.reset()
    venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(envhive.EnvError, match="env 1 raised") as excinfo:
        venv.step(np.zeros(3, dtype=np.int64))
    assert excinfo.value.env_id == 1
    _, _, done, infos = venv.step(np.zeros(3, dtype=np.int64))
    assert [info["elapsed_step"] for info in infos] == [3, 0, 3] and not done.any()


def test_render_gives_every_envs_frame() -> None:
    pytest.importorskip("pygame")
    venv = make_vec_env("CartPole-v1", num_envs=3, seed=0, render_mode="rgb_array")
    ref = dummy("CartPole-v1", 3, render_mode="rgb_array")
    assert venv.render_mode == "rgb_array"
    venv.seed(0)
    ref.seed(0)
    venv.reset()
    ref.reset()
    frames, ref_frames = venv.get_images(), ref.get_images()
    assert len(frames) == 3
    for frame, ref_frame in zip(frames, ref_frames, strict=True):
        np.testing.assert_array_equal(frame, ref_frame)
    np.testing.assert_array_equal(venv.render(), ref.render())  # SB3 tiles them alike
    np.testing.assert_array_equal(venv.env_method("render", indices=[2])[0], ref_frames[2])
    venv.close()
    ref.close()
