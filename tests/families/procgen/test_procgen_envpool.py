"""EnvPool's Procgen under envhive.envpool: its 50 ids, its config (distribution_mode numbers,
channel_first=True), its spec, observation layout (N, 3, 64, 64) and info dtypes, over the same
engine as envhive.make."""

from __future__ import annotations

import numpy as np
import pytest

import envhive
import envhive.envpool as envpool
from envhive.families import procgen as family


def test_every_envpool_id_is_listed_and_specced():
    listed = set(envpool.list_all_envs())
    for task, (game, mode) in family.ENVPOOL_IDS.items():
        assert task in listed
        config = envpool.make_spec(task).config
        assert (config.env_name, config.distribution_mode) == (game, family.MODE_CODES[mode])
        assert config.channel_first is True
        assert config.max_episode_steps == family.timeout(game, mode)


def test_spec_and_layout():
    spec = envpool.make_spec("StarpilotHard-v0", num_envs=4)
    assert spec.observation_space.shape == (3, 64, 64) and spec.observation_space.dtype == np.uint8
    assert spec.action_space.n == 15
    states = spec.state_array_spec
    assert states["obs"].shape == [3, 64, 64]
    assert states["info:prev_level_complete"].dtype == np.int32
    assert states["info:level_seed"].dtype == np.int32
    assert spec.action_array_spec["action"].maximum == 14
    hwc = envpool.make_spec("StarpilotHard-v0", channel_first=False)
    assert hwc.observation_space.shape == (64, 64, 3)


def test_same_engine_as_envhive_make():
    ep = envpool.make_gymnasium("ChaserExtreme-v0", num_envs=3, seed=8)
    ours = envhive.make("procgen-chaser-v0", num_envs=3, distribution_mode="extreme")
    o1, i1 = ep.reset()
    o2, i2 = ours.reset(seed=8)
    np.testing.assert_array_equal(o1, o2.transpose(0, 3, 1, 2))
    assert i1["prev_level_complete"].dtype == np.int32
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = rng.integers(0, 15, size=3)
        o1, r1, t1, u1, i1 = ep.step(a.astype(np.int32))
        o2, r2, t2, u2, i2 = ours.step(a)
        np.testing.assert_array_equal(o1, o2.transpose(0, 3, 1, 2))
        np.testing.assert_array_equal(r1, r2.astype(np.float32))
        np.testing.assert_array_equal(t1 | u1, t2 | u2)
        np.testing.assert_array_equal(i1["level_seed"], i2["level_seed"])
    ep.close()
    ours.close()


def test_envpool_kwargs():
    assert envpool.make_spec("MazeHard-v0", distribution_mode=0).config.distribution_mode == 0
    assert envpool.make_spec("MazeHard-v0", distribution_mode="memory").config.distribution_mode == 10
    assert envpool.make_spec("JumperMemory-v0").config.max_episode_steps == 2000
    assert envpool.make_spec("CoinrunHard-v0", use_easy_jump=True).config.use_easy_jump is True
    with pytest.raises(envpool.EnvPoolArgumentError, match="names another game"):
        envpool.make_spec("CoinrunHard-v0", env_name="maze")
    with pytest.raises(envpool.EnvPoolArgumentError, match="EnvPool's values are"):
        envpool.make_spec("CoinrunHard-v0", distribution_mode=3)
    with pytest.raises(AssertionError, match="no 'memory'"):  # EnvPool asserts: also an AssertionError
        envpool.make_spec("CoinrunHard-v0", distribution_mode=10)
    # the frame is the engine's own 512x512 (EnvPool's is its 64x64 observation, resized): that size only
    with pytest.raises(AssertionError, match=r"render_width=64: .*\(512 x 512, width x height\)"):
        envpool.make_gymnasium("CoinrunHard-v0", render_mode="rgb_array", render_width=64, render_height=64)
    env = envpool.make_gymnasium("CoinrunHard-v0", render_mode="rgb_array", render_width=512, render_height=512)
    env.reset()
    assert env.render().shape[-3:] == (512, 512, 3)
    env.close()


def test_render_is_the_512_frame():
    env = envpool.make_gymnasium("NinjaHard-v0", num_envs=2, render_mode="rgb_array")
    env.reset()
    frame = env.render()
    assert frame.shape[-3:] == (512, 512, 3)
    env.close()
