"""EnvPool's ViZDoom kwargs, each in lock step with the reference made with the same values."""

from __future__ import annotations

import numpy as np
import pytest
from vizdoom_helpers import lockstep
from vizdoom_reference import combined_actions

import envhive
from envhive.families import vizdoom as family

KWARGS = [
    ("Basic-v1", {"img_height": 60, "img_width": 100, "stack_num": 2}),
    ("Basic-v1", {"frame_skip": 1}),
    ("DefendTheCenter-v1", {"use_inter_area_resize": False}),
    ("HealthGathering-v1", {"reward_config": {"HEALTH": [0.5, -0.25]}}),
    ("Deathmatch-v1", {"weapon_duration": 1, "selected_weapon_reward_config": {"2": [0.5], "3": [1.0]}}),
    ("DeadlyCorridor-v1", {"episodic_life": True}),
    ("D3Battle-v1", {"use_combined_action": True}),
    ("Basic-v1", {"use_combined_action": True}),
]


@pytest.mark.parametrize(("task", "kwargs"), KWARGS, ids=[f"{t}-{next(iter(k))}" for t, k in KWARGS])
def test_kwargs_lockstep(task, kwargs):
    counts = lockstep(task, seed=7, max_steps=60, max_episode_steps=30, **kwargs)
    assert counts["steps"] > 0


@pytest.mark.parametrize("scenario", family.SCENARIOS)
def test_combined_actions_are_envpools_enumeration(scenario):
    """The Discrete action set: as many rows as EnvPool enumerates, in its order (the reference's
    enumeration, written from EnvPool's rules)."""
    import vizdoom as vzd

    cfg, _ = family.scenario_files(scenario)
    game = vzd.DoomGame()
    game.load_config(cfg)
    want = combined_actions([int(b) for b in game.get_available_buttons()])
    spec = envhive.make_spec(family.envpool_id(scenario), use_combined_action=True)
    assert spec.action_space.n == len(want)


def test_envpool_sizes_of_its_action_sets():
    """EnvPool 1.2.5's Discrete sizes (its spec: Basic 6, D3Battle 108)."""
    assert envhive.make_spec("Basic-v1", use_combined_action=True).action_space.n == 6
    assert envhive.make_spec("D3Battle-v1", use_combined_action=True).action_space.n == 108


def test_spaces():
    spec = envhive.make_spec("Basic-v1")
    assert spec.observation_space.shape == (12, 84, 84)  # basic.cfg: CRCGCB, 3 channels x 4 frames
    assert spec.action_space.shape == (3,) and spec.action_space.dtype == np.float64
    assert envhive.make_spec("D1Basic-v1").observation_space.shape == (4, 84, 84)  # GRAY8
    assert envhive.make_spec("Basic-v1").max_episode_steps == 525


def test_deathmatch_maps_default_to_deathmatch():
    for task, scenario in family.ENVPOOL_IDS.items():
        if scenario:
            assert envhive.make_spec(task).config["game_args"] == family.GAME_ARGS.get(scenario, ""), task


def test_button_actions_are_unbounded_and_samplable():
    """Without combined actions each button's value is unbounded (delta buttons take any value):
    Box(-inf, inf), which Gymnasium samples and the env steps with (EnvPool's (DBL_MIN, DBL_MAX)
    cannot be sampled: its width overflows)."""
    env = envhive.make("Basic-v1", num_envs=1, seed=0, img_height=30, img_width=40)
    space = env.single_action_space
    assert np.all(space.low == -np.inf) and np.all(space.high == np.inf)
    space.seed(0)
    env.reset(seed=0)
    for _ in range(3):
        action = space.sample()
        assert np.all(np.isfinite(action))
        env.step(action[None])
    env.close()
