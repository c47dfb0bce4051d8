"""The trainer adapters on the process backend: SB3 and TorchRL over Gymnasium's own Python env
of LunarLander-v3 (Box2D; backend="process", since envhive also has a native task of that id),
checked against the trainers' own tools on the same seeds."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import envhive

pytest.importorskip("Box2D", reason="LunarLander needs the box2d extra: pip install 'envhive[box2d]'")
TASK = "LunarLander-v3"


def test_sb3_make_vec_env_runs_a_gymnasium_id_on_processes_like_dummy_vec_env() -> None:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from envhive.adapters.sb3 import make_vec_env, unwrap_pool
    from envhive.process import ProcessBackend

    n = 3
    hive = make_vec_env(TASK, num_envs=n, max_episode_steps=40, num_workers=2, backend="process")
    assert isinstance(unwrap_pool(hive).backend, ProcessBackend)
    ref = DummyVecEnv([lambda: gymnasium.make(TASK, max_episode_steps=40) for _ in range(n)])
    hive.seed(11)
    ref.seed(11)
    np.testing.assert_array_equal(hive.reset(), ref.reset())
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(90):
        actions = rng.integers(0, 4, size=n)
        obs, rew, done, infos = hive.step(actions)
        obs_r, rew_r, done_r, infos_r = ref.step(actions)
        np.testing.assert_array_equal(obs, obs_r)
        np.testing.assert_array_equal(rew, rew_r.astype(rew.dtype))
        np.testing.assert_array_equal(done, done_r)
        for i in np.flatnonzero(done_r):
            ended += 1
            np.testing.assert_array_equal(infos[i]["terminal_observation"], infos_r[i]["terminal_observation"])
            assert infos[i]["TimeLimit.truncated"] == infos_r[i]["TimeLimit.truncated"]
    assert ended >= n  # every env ended (40-step limit) and restarted at least once
    hive.close()
    ref.close()


def test_torchrl_wraps_a_process_backend_pool() -> None:
    from torchrl.envs.utils import check_env_specs

    from envhive.adapters.torchrl import TorchRLEnv

    pool = envhive.make(
        TASK, backend="process", num_envs=2, num_workers=2, seed=0, autoreset_mode="same_step", max_episode_steps=25
    )
    env = TorchRLEnv(pool)
    check_env_specs(env, seed=1)
    rollout = env.rollout(60, break_when_any_done=False)
    assert rollout["next", "reward"].shape[:2] == (2, 60)
    assert bool(rollout["next", "done"].any())  # the 25-step limit ended episodes, which restarted
    env.close()
