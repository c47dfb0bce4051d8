"""Every upstream option of procgen, each in lock step with the official engine made with the same
option, plus what each option is for (it changes the frames, the level seeds it promises)."""

from __future__ import annotations

import numpy as np
import pytest
from procgen_harness import OfficialEngine
from procgen_helpers import lockstep

import envhive
from envhive.families import procgen as family

# (game, option values): each option on a game whose frames or levels it changes.
OPTIONS = [
    ("coinrun", {"paint_vel_info": True}),
    ("coinrun", {"use_generated_assets": True}),
    ("coinrun", {"use_monochrome_assets": True}),
    ("coinrun", {"restrict_themes": True}),
    ("coinrun", {"use_backgrounds": False}),
    ("coinrun", {"center_agent": False}),
    ("coinrun", {"debug_mode": 6}),  # coinrun's generator: no pits, no crates
    ("bossfight", {"num_levels": 3, "start_level": 50}),
    ("leaper", {"use_sequential_levels": True, "distribution_mode": "easy"}),
]


@pytest.mark.parametrize(("game", "options"), OPTIONS, ids=[next(iter(o)) for _, o in OPTIONS])
def test_option_lockstep(game, options):
    if options.get("use_sequential_levels"):  # on through completed levels (seed + 997), up to an end
        ends = lockstep(family.gym_id(game), n=2, seed=3, max_steps=3000, ends_wanted=8, after_end=5, **options)
        assert ends.completions >= 1
    else:
        ends = lockstep(family.gym_id(game), n=2, seed=3, max_steps=300, after_end=5, **options)
    assert ends.steps > 0


DRAWING = [(g, o) for g, o in OPTIONS if not {"num_levels", "use_sequential_levels"} & set(o)]


@pytest.mark.parametrize(("game", "options"), DRAWING, ids=[next(iter(o)) for _, o in DRAWING])
def test_option_changes_the_frames(game, options):
    """Against the default options, over the first 30 steps of 8 levels: the option is not ignored."""
    differ = False
    for kwargs in (options, {}):
        env = envhive.make(family.gym_id(game), num_envs=8, **kwargs)
        frames = [env.reset(seed=11)[0]]
        rng = np.random.default_rng(0)
        frames += [env.step(rng.integers(0, 15, size=8))[0] for _ in range(30)]
        env.close()
        if kwargs:
            with_option = np.stack(frames)
        else:
            differ = not np.array_equal(with_option, np.stack(frames))
    assert differ, f"{options} drew the same frames as the defaults"


def test_num_levels_and_start_level_bound_the_level_seeds():
    env = envhive.make("procgen-bossfight-v0", num_envs=4, num_levels=3, start_level=50)
    _, info = env.reset(seed=0)
    seeds = set(info["level_seed"].tolist())
    rng = np.random.default_rng(1)
    for _ in range(600):
        _, _, _, _, info = env.step(rng.integers(0, 15, size=4))
        seeds |= set(info["level_seed"].tolist())
    env.close()
    assert seeds <= {50, 51, 52} and len(seeds) >= 2


def test_exploration_mode_plays_the_games_one_level():
    env = envhive.make("CoinrunExploration-v0", num_envs=2)
    _, info = env.reset(seed=5)
    assert (info["level_seed"] == 1949448038).all()
    env.close()
    with pytest.raises(ValueError, match="exploration"):
        envhive.make("procgen-coinrun-v0", num_envs=1, distribution_mode="exploration", num_levels=5)


def test_sequential_levels_continue_the_episode():
    """Random play completes leaper's easy levels now and then: with use_sequential_levels the episode
    goes on into level seed + 997 (same episode), as procgen's Game::reset does."""
    env = envhive.make("LeaperEasy-v0", num_envs=1, use_sequential_levels=True)
    _, info = env.reset(seed=2)
    seed = int(info["level_seed"][0])
    rng = np.random.default_rng(0)
    continued = 0
    for _ in range(6000):
        _, _, term, trunc, info = env.step(rng.integers(0, 15, size=1))
        if info["prev_level_complete"][0] and not (term[0] or trunc[0]):
            assert int(info["level_seed"][0]) == np.int32(seed + 997)
            continued += 1
        seed = int(info["level_seed"][0])
        if continued >= 2:
            break
    env.close()
    assert continued >= 2


def test_channel_first_is_envpools_layout():
    a = envhive.make("procgen-starpilot-v0", num_envs=2)
    b = envhive.make("procgen-starpilot-v0", num_envs=2, channel_first=True)
    assert b.single_observation_space.shape == (3, 64, 64)
    oa, _ = a.reset(seed=4)
    ob, _ = b.reset(seed=4)
    np.testing.assert_array_equal(ob, oa.transpose(0, 3, 1, 2))
    rng = np.random.default_rng(0)
    for _ in range(50):
        act = rng.integers(0, 15, size=2)
        np.testing.assert_array_equal(b.step(act)[0], a.step(act)[0].transpose(0, 3, 1, 2))
    a.close()
    b.close()


def test_envpool_ids_are_their_mode():
    easy = envhive.make("CoinrunEasy-v0", num_envs=1)
    gym_easy = envhive.make("procgen-coinrun-v0", num_envs=1, distribution_mode="easy")
    np.testing.assert_array_equal(easy.reset(seed=9)[0], gym_easy.reset(seed=9)[0])
    assert envhive.make_spec("CoinrunEasy-v0").config["distribution_mode"] == "easy"
    assert envhive.make_spec("procgen-coinrun-v0").config["distribution_mode"] == "hard"
    easy.close()
    gym_easy.close()


@pytest.mark.parametrize("game", family.GAMES)
def test_timeouts_are_the_engines(game):
    """envhive.families.procgen's table of each game's clock (EnvPool's max_episode_steps) is what the
    engine itself holds (Game::timeout in its serialized state), in every mode."""
    for mode in family.modes(game):
        kwargs = {} if mode == "hard" else {"distribution_mode": mode}
        engine = OfficialEngine(game, 0, **kwargs)
        assert engine.timeout() == family.timeout(game, mode), (game, mode)
        engine.close()


def test_the_tasks_clock_is_the_table():
    """The clock the C++ tasks split terminated / truncated by is the table the engine was checked
    against above."""
    from envhive import _procgen

    assert _procgen.engine_timeouts() == {g: {m: family.timeout(g, m) for m in family.modes(g)} for g in family.GAMES}
