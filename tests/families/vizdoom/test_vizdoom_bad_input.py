"""Bad ViZDoom kwargs are refused before an engine starts; a scenario that cannot load is a Python
exception, not a crash; EnvPool's ViZDoom under envhive.envpool takes its kwargs."""

from __future__ import annotations

import numpy as np
import pytest

import envhive
import envhive.envpool as envpool
from envhive.cli import main

BAD = [
    ({"img_height": 0}, ValueError, "img_height must be in"),
    ({"img_width": 100000}, ValueError, "img_width must be in"),
    ({"stack_num": -1}, ValueError, "stack_num must be in"),
    ({"frame_skip": 0}, ValueError, "frame_skip must be in"),
    ({"weapon_duration": -2}, ValueError, "weapon_duration must be in"),
    ({"img_height": 2.5}, TypeError, "img_height"),
    ({"reward_config": {"NOT_A_VARIABLE": [1.0, 0.0]}}, ValueError, "NOT_A_VARIABLE"),
    ({"reward_config": {"HEALTH": [1.0]}}, ValueError, "HEALTH"),
    ({"selected_weapon_reward_config": {"12": [1.0]}}, ValueError, "weapon slots"),
    ({"delta_button_config": {"ATTACK": [3, -1, 1]}}, ValueError, "delta button"),
    ({"delta_button_config": {"TURN_LEFT_RIGHT_DELTA": [3, -1, 1]}, "use_combined_action": True}, ValueError,
     "no button TURN_LEFT_RIGHT_DELTA"),
    ({"cfg_path": "/nonexistent/x.cfg"}, ValueError, "cfg_path: no such file '/nonexistent/x.cfg'"),
]  # fmt: skip


@pytest.mark.parametrize("name", ["cfg_path", "wad_path", "vzd_path", "iwad_path"])
def test_missing_files_are_refused_when_the_pool_is_made(name):
    """Issue 40's sweep: a path to nothing was an engine error at the first reset (or a bare
    RuntimeError for cfg_path); now a ValueError naming the kwarg, before any engine starts."""
    with pytest.raises(ValueError, match=f"{name}: no such file 'no-such-file'"):
        envhive.make("D1Basic-v1", num_envs=1, **{name: "no-such-file"})
    with pytest.raises(ValueError, match=f"{name}: no such file"):
        envhive.make_spec("D1Basic-v1", **{name: "no-such-file"})


@pytest.mark.parametrize(("kwargs", "error", "match"), BAD, ids=[next(iter(k)) for k, _, _ in BAD])
def test_bad_kwargs(kwargs, error, match):
    with pytest.raises(error, match=match):
        env = envhive.make("Basic-v1", num_envs=1, **kwargs)
        env.reset(seed=0)


def test_custom_needs_a_cfg(capsys):
    with pytest.raises(ValueError, match="needs cfg_path"):
        envhive.make("VizdoomCustom-v1", num_envs=1)
    # `envhive info` says so in place of its spaces (they are the cfg's buttons and screen)
    assert main(["info", "VizdoomCustom-v1"]) == 0
    out = capsys.readouterr().out
    assert "observation_space  (depends on the kwargs: VizdoomCustom-v1 needs cfg_path" in out
    assert "cfg_path" in out.split("kwargs", 2)[-1]


def test_seeds_and_actions():
    with pytest.raises(ValueError, match=r"seeds must be in \[0, 4294967295\]"):
        envhive.make("Basic-v1", num_envs=1, seed=2**32)
    env = envhive.make("Basic-v1", num_envs=1, use_combined_action=True)
    env.reset(seed=1)
    with pytest.raises(ValueError):
        env.step(np.array([6]))  # Basic's combined set has 6 actions
    env.step(np.array([5]))
    env.close()


def test_envpool_kwargs_and_spec():
    spec = envpool.make_spec(
        "D3Battle-v1", use_combined_action=True, reward_config={"HEALTH": (0.5, -0.25)},
        selected_weapon_reward_config={2: 0.5}, delta_button_config={},
    )  # fmt: skip
    assert spec.action_space.n == 108 and spec.observation_space.shape == (4, 84, 84)
    assert spec.config.reward_config == {"HEALTH": [0.5, -0.25]} and spec.config.max_episode_steps == 525
    assert "info:HEALTH" in spec.state_array_spec
    env = envpool.make_gymnasium("Basic-v1", num_envs=2, seed=3)
    obs, info = env.reset()
    assert obs.shape == (2, 12, 84, 84) and info["HEALTH"].dtype == np.float64
    obs, rew, term, trunc, info = env.step(np.zeros((2, 3)))
    assert rew.dtype == np.float32
    env.close()
