"""envhive inside the Gymnasium ecosystem: make_vec registration and the vector wrappers."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers.vector import ClipAction, DictInfoToList, NormalizeObservation, RecordEpisodeStatistics

import envhive
from helpers import CLASSIC_TASKS, GYM_WRAPPER_MODES, gym_vec, lockstep, random_actions


def test_make_vec_returns_envhive_pool() -> None:
    env = gymnasium.make_vec("envhive/CartPole-v1", num_envs=8)
    assert isinstance(env, envhive.HiveVectorEnv)
    assert isinstance(env, VectorEnv)
    assert env.num_envs == 8
    obs, info = env.reset(seed=0)
    assert obs.shape == (8, 4)
    assert env.task_spec.max_episode_steps == 500
    env.close()


@pytest.mark.parametrize("task_id", CLASSIC_TASKS)
def test_every_task_is_registered(task_id: str) -> None:
    assert f"envhive/{task_id}" in gymnasium.registry
    listed = set(envhive.list_envs())
    assert set(CLASSIC_TASKS) <= listed
    # Built-in tasks register as envhive/<id>, or as their id where it carries a namespace of its own
    # (Shimmy's dm_control/<domain>-<task>-v0); a Python-written env (compiled by another test in
    # this process, say) registers under its own declared id, which may carry its own namespace.
    builtin = [t for t in listed if envhive.registry.task_info(t).family != "python"]
    assert builtin and all(envhive.registry.gymnasium_id(t) in gymnasium.registry for t in builtin)


def test_make_vec_passes_kwargs_through() -> None:
    env = gymnasium.make_vec(
        "envhive/Pendulum-v1", num_envs=3, g=9.81, max_episode_steps=40, seed=5, autoreset_mode="same_step"
    )
    assert env.task_spec.config["g"] == 9.81
    assert env.task_spec.max_episode_steps == 40
    assert env.task_spec.pool.seeds == {0: 5, 1: 6, 2: 7}
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    with pytest.raises(TypeError, match="bogus"):
        gymnasium.make_vec("envhive/Pendulum-v1", num_envs=2, bogus=1)


def test_make_vec_env_matches_gymnasium_sync() -> None:
    env = gymnasium.make_vec("envhive/CartPole-v1", num_envs=4, seed=17)
    ref = gym_vec("CartPole-v1", 4)
    stats = lockstep(env, ref, "next_step", 17, 120)
    assert stats.episodes.sum() > 0


@pytest.mark.parametrize("mode", GYM_WRAPPER_MODES)
def test_record_episode_statistics(mode: str) -> None:
    env = RecordEpisodeStatistics(envhive.make("CartPole-v1", num_envs=4, seed=3, autoreset_mode=mode))
    ref = RecordEpisodeStatistics(gym_vec("CartPole-v1", 4, mode))
    env.reset()
    ref.reset(seed=3)
    rng = np.random.default_rng(0)
    episodes = 0
    lengths = np.zeros(4, dtype=int)
    prev_done = np.zeros(4, dtype=bool)
    for _ in range(200):
        a = random_actions(env.single_action_space, 4, rng)
        _, _, term, trunc, info = env.step(a)
        _, _, _, _, ref_info = ref.step(a)
        # NEXT_STEP: the step after a done is the reset step, which starts the count at 0.
        lengths = np.where(prev_done, 0, lengths + 1) if mode == "next_step" else lengths + 1
        done = term | trunc
        assert ("episode" in info) == ("episode" in ref_info) == bool(done.any())
        if done.any():
            np.testing.assert_array_equal(info["_episode"], done)
            np.testing.assert_array_equal(info["_episode"], ref_info["_episode"])
            np.testing.assert_array_equal(info["episode"]["l"], ref_info["episode"]["l"])
            np.testing.assert_array_equal(info["episode"]["r"], ref_info["episode"]["r"])
            # CartPole pays +1 per step: return == length == our own count.
            np.testing.assert_array_equal(info["episode"]["r"][done], info["episode"]["l"][done])
            np.testing.assert_array_equal(info["episode"]["l"][done], lengths[done])
            episodes += int(done.sum())
        if mode == "same_step":
            lengths = np.where(done, 0, lengths)
        prev_done = done
    assert episodes >= 10
    assert env.episode_count == episodes
    assert list(env.length_queue) == list(ref.length_queue)
    assert list(env.return_queue) == list(ref.return_queue)


def test_normalize_observation_matches_gymnasium() -> None:
    env = NormalizeObservation(envhive.make("Acrobot-v1", num_envs=3, seed=2))
    ref = NormalizeObservation(gym_vec("Acrobot-v1", 3))
    obs, _ = env.reset()
    ref_obs, _ = ref.reset(seed=2)
    np.testing.assert_array_equal(obs, ref_obs)
    rng = np.random.default_rng(1)
    for _ in range(60):
        a = random_actions(env.single_action_space, 3, rng)
        obs = env.step(a)[0]
        ref_obs = ref.step(a)[0]
        np.testing.assert_array_equal(obs, ref_obs)
    assert np.abs(obs.mean()) < 3.0  # normalized, not raw angular velocities
    np.testing.assert_array_equal(env.obs_rms.mean, ref.obs_rms.mean)


def test_clip_action_pendulum() -> None:
    env = ClipAction(envhive.make("Pendulum-v1", num_envs=2, seed=4))
    ref = ClipAction(gym_vec("Pendulum-v1", 2))
    np.testing.assert_array_equal(env.reset()[0], ref.reset(seed=4)[0])
    rng = np.random.default_rng(3)
    for _ in range(30):
        a = rng.uniform(-10, 10, size=(2, 1)).astype(np.float32)
        out = env.step(a)
        ref_out = ref.step(a)
        for x, y in zip(out[:4], ref_out[:4], strict=True):
            np.testing.assert_array_equal(x, y)
    # ClipAction really clipped: an unclipped 10 and a clipped 2 give the same step.
    a = envhive.make("Pendulum-v1", num_envs=1, seed=0)
    b = ClipAction(envhive.make("Pendulum-v1", num_envs=1, seed=0))
    a.reset()
    b.reset()
    np.testing.assert_array_equal(
        a.step(np.array([[2.0]], dtype=np.float32))[0], b.step(np.array([[10.0]], dtype=np.float32))[0]
    )


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_dict_info_to_list(mode: str) -> None:
    env = DictInfoToList(envhive.make("Dummy-v0", num_envs=3, episode_length=2, autoreset_mode=mode))
    _, infos = env.reset()
    assert isinstance(infos, list) and len(infos) == 3
    for i, info in enumerate(infos):
        assert info["env_id"] == i and info["elapsed_step"] == 0 and info["last_action"] == -1
    env.step(np.array([1, 2, 3]))
    _, _, term, _, infos = env.step(np.array([4, 5, 6]))
    assert term.all()
    for i, info in enumerate(infos):
        assert info["env_id"] == i
        if mode == "next_step":
            assert info["elapsed_step"] == 2 and info["last_action"] == 4 + i
            assert "final_obs" not in info
        else:
            assert info["elapsed_step"] == 0
            np.testing.assert_array_equal(info["final_obs"][1:], [2, 4 + i])
            assert info["final_info"]["last_action"] == 4 + i


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_metadata_autoreset_mode_is_enum(mode: str) -> None:
    env = envhive.make("CartPole-v1", num_envs=2, autoreset_mode=mode)
    assert isinstance(env.metadata["autoreset_mode"], AutoresetMode)
    assert env.metadata["autoreset_mode"] is gym_vec("CartPole-v1", 1, mode).metadata["autoreset_mode"]


def test_vector_env_protocol_bits() -> None:
    env = envhive.make("CartPole-v1", num_envs=2)
    assert env.render_mode is None
    assert env.unwrapped is env
    assert "CartPole-v1" in repr(env) and "sync" in repr(env)
    assert "async" in repr(envhive.make("CartPole-v1", num_envs=2, batch_size=1))
    env.reset()
    assert not env.closed
    env.close()
    assert env.closed
    assert envhive.make_gymnasium("CartPole-v1", num_envs=2).num_envs == 2


def test_make_spec_without_building() -> None:
    spec = envhive.make_spec("Pendulum-v1", num_envs=16, g=3.5)
    assert isinstance(spec, envhive.TaskSpec)
    assert spec.id == "Pendulum-v1" and spec.family == "classic_control"
    assert spec.config == {"g": 3.5, "max_episode_steps": 200}
    assert spec.task.defaults == {"g": 10.0, "max_episode_steps": 200}
    assert set(spec.task.config_docs) == {"g", "max_episode_steps"}
    assert spec.pool.num_envs == 16 and spec.pool.batch_size == 16
    assert spec.pool.autoreset_mode is AutoresetMode.NEXT_STEP
    env = envhive.HiveVectorEnv(spec)
    assert env.task_spec.config["g"] == 3.5
