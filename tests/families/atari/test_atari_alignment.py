"""Atari against its references, step by step: Gymnasium's ALE env + AtariPreprocessing +
FrameStackObservation (the Python pipeline everyone knows) and EnvPool (the engine envhive
replaces).

Both are deterministic here (no sticky actions, no random no-ops), so the emulators stay in the
same state and every observation, reward and life count must be equal. The one documented
exception is the observation of a step on which the game ended inside the frame skip:
envhive reproduces EnvPool there (the frames it captured before the end), while
AtariPreprocessing returns the frames of the step before; those frames are compared with
EnvPool instead.
"""

from __future__ import annotations

import cv2
import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

import envhive

ale_py = pytest.importorskip("ale_py")
gymnasium.register_envs(ale_py)

STEPS = 2000


def gym_pipeline(game: str, **kwargs: object) -> gymnasium.Env:
    env = gymnasium.make(
        f"ALE/{game}-v5", frameskip=1, repeat_action_probability=0.0, full_action_space=False, **kwargs
    )
    env = AtariPreprocessing(
        env, noop_max=0, frame_skip=4, screen_size=84, terminal_on_life_loss=False, grayscale_obs=True
    )
    return FrameStackObservation(env, 4)


def hive(game: str, **kwargs: object) -> envhive.HiveVectorEnv:
    return envhive.make(f"{game}-v5", num_envs=1, num_threads=1, noop_max=0, **kwargs)


def screen84(gym_env: gymnasium.Env) -> np.ndarray:
    """The current ALE screen, gray and resized as AtariPreprocessing does (no pooling)."""
    return cv2.resize(gym_env.unwrapped.ale.getScreenGrayscale(), (84, 84), interpolation=cv2.INTER_AREA)


GAMES = ["Pong", *(pytest.param(game, marks=pytest.mark.deep) for game in ("Breakout", "SpaceInvaders"))]


@pytest.mark.parametrize("game", GAMES)
def test_matches_gymnasium_over_episodes(game: str) -> None:
    g = gym_pipeline(game)
    h = hive(game, use_fire_reset=False, ram=True)
    g_obs, g_info = g.reset(seed=0)
    h_obs, h_info = h.reset()
    np.testing.assert_array_equal(h_obs[0], g_obs)
    rng = np.random.default_rng(0)
    n = h.single_action_space.n
    assert n == g.action_space.n
    ends = life_losses = terminal_frames_differing = 0
    lives = g_info["lives"]
    for t in range(STEPS):
        a = int(rng.integers(n))
        g_obs, g_r, g_term, g_trunc, g_info = g.step(a)
        h_obs, h_r, h_term, h_trunc, h_info = h.step(np.array([a]))
        assert (h_r[0], h_term[0], h_trunc[0]) == (g_r, g_term, g_trunc), f"step {t}"
        assert h_info["lives"][0] == g_info["lives"], f"step {t}"
        assert h_info["terminated"][0] == g_term and h_info["reward"][0] == g_r
        np.testing.assert_array_equal(h_info["ram"][0], g.unwrapped.ale.getRAM(), err_msg=f"ram at step {t}")
        life_losses += int(g_info["lives"] < lives)
        lives = g_info["lives"]
        if g_term:
            ends += 1
            terminal_frames_differing += int(not np.array_equal(h_obs[0], g_obs))
            np.testing.assert_array_equal(h_obs[0][:3], g_obs[:3], err_msg=f"older frames at step {t}")
            g_obs, g_info = g.reset()
            lives = g_info["lives"]
            h_obs, h_r, h_term, _, h_info = h.step(np.array([0]))  # NEXT_STEP: this call resets
            assert h_r[0] == 0 and not h_term[0] and h_info["elapsed_step"][0] == 0
        np.testing.assert_array_equal(h_obs[0], g_obs, err_msg=f"{game} step {t}")
    assert ends >= 1, "the run should cross an episode end"
    if game != "Pong":
        assert life_losses >= 3
    assert terminal_frames_differing <= ends


@pytest.mark.deep
def test_episodic_life_continues_the_game() -> None:
    """episodic_life: a lost life ends the episode; the reset that follows keeps playing the same
    game (no reset_game, no refilled stack: the current screen is pushed) until the game is over."""
    g = gym_pipeline("Breakout")
    h = hive("Breakout", use_fire_reset=False, episodic_life=True)
    g_obs, g_info = g.reset(seed=0)
    h_obs, _ = h.reset()
    rng = np.random.default_rng(1)
    life_resets = game_resets = 0
    lives = g_info["lives"]
    for t in range(STEPS):
        a = int(rng.integers(h.single_action_space.n))
        g_obs, g_r, g_term, _, g_info = g.step(a)
        h_obs, h_r, h_term, _, h_info = h.step(np.array([a]))
        assert h_r[0] == g_r and h_info["lives"][0] == g_info["lives"], f"step {t}"
        lost = 0 < g_info["lives"] < lives
        lives = g_info["lives"]
        assert h_term[0] == (g_term or lost), f"step {t}"
        assert h_info["terminated"][0] == g_term
        if not g_term:
            np.testing.assert_array_equal(h_obs[0][-1], g_obs[-1], err_msg=f"step {t}")
        if g_term:
            game_resets += 1
            g_obs, g_info = g.reset()
            lives = g_info["lives"]
            h_obs, *_ = h.step(np.array([0]))
            np.testing.assert_array_equal(h_obs[0], g_obs, err_msg=f"game reset after step {t}")
        elif lost:
            life_resets += 1
            prev, game_steps = h_obs[0], h_info["elapsed_step"][0]
            h_obs, h_r, h_term, _, h_info = h.step(np.array([0]))  # the reset: no emulation here
            # The game goes on, so its step count (time limit, elapsed_step) does too, as in EnvPool.
            assert h_r[0] == 0 and h_info["elapsed_step"][0] == game_steps and h_info["lives"][0] == lives
            np.testing.assert_array_equal(h_obs[0][:3], prev[1:], err_msg="the stack is kept")
            np.testing.assert_array_equal(h_obs[0][3], screen84(g), err_msg="the current screen is pushed")
    assert life_resets >= 5 and game_resets >= 1


def test_fire_reset_presses_fire_once() -> None:
    """use_fire_reset: reset_game, then one FIRE frame (Breakout launches its ball with it)."""
    g = gym_pipeline("Breakout")
    h = hive("Breakout", use_fire_reset=True)
    g.reset(seed=0)
    g.unwrapped.ale.act(1)  # FIRE, one frame
    h_obs, _ = h.reset()
    np.testing.assert_array_equal(h_obs[0], np.stack([screen84(g)] * 4))
    rng = np.random.default_rng(2)
    for t in range(200):
        a = int(rng.integers(4))
        g_obs, g_r, g_term, _, g_info = g.step(a)
        h_obs, h_r, h_term, _, h_info = h.step(np.array([a]))
        assert (h_r[0], h_term[0], h_info["lives"][0]) == (g_r, g_term, g_info["lives"]), f"step {t}"
        np.testing.assert_array_equal(h_obs[0][-1], g_obs[-1], err_msg=f"step {t}")
        if g_term:
            break


def test_mode_and_difficulty_match_gymnasium() -> None:
    g = gym_pipeline("Freeway", mode=3, difficulty=1)
    h = hive("Freeway", use_fire_reset=False, mode=3, difficulty=1)
    g_obs, _ = g.reset(seed=0)
    h_obs, _ = h.reset()
    np.testing.assert_array_equal(h_obs[0], g_obs)
    rng = np.random.default_rng(3)
    for t in range(300):
        a = int(rng.integers(3))
        g_obs, g_r, *_ = g.step(a)
        h_obs, h_r, *_ = h.step(np.array([a]))
        assert h_r[0] == g_r
        np.testing.assert_array_equal(h_obs[0], g_obs, err_msg=f"step {t}")


ENVPOOL_CASES = [
    ("Pong", {}),
    ("Breakout", {}),
    ("Breakout", {"episodic_life": True, "reward_clip": True}),
    ("SpaceInvaders", {"gray_scale": False, "use_fire_reset": False}),
    ("MsPacman", {"use_inter_area_resize": False, "zero_discount_on_life_loss": True}),
]


ENVPOOL_IDS = [f"{g}-{'-'.join(k) or 'defaults'}" for g, k in ENVPOOL_CASES]


@pytest.mark.parametrize(("game", "kwargs"), ENVPOOL_CASES, ids=ENVPOOL_IDS)
def test_matches_envpool_including_terminal_frames(game: str, kwargs: dict) -> None:
    """noop_max=1 makes EnvPool's reset deterministic (one NOOP frame, or just FIRE); everything
    else is EnvPool's defaults. Observations must be equal at every step, terminal ones included."""
    envpool = pytest.importorskip("envpool")
    common = {"num_envs": 1, "noop_max": 1, **kwargs}
    ep = envpool.make_gymnasium(f"{game}-v5", seed=0, **common)
    h = envhive.make(f"{game}-v5", seed=0, num_threads=1, **common)
    e_obs, _ = ep.reset()
    h_obs, _ = h.reset()
    rng = np.random.default_rng(4)
    n = h.single_action_space.n
    ends = 0
    for t in range(1500):
        np.testing.assert_array_equal(h_obs, e_obs, err_msg=f"{game} step {t}")
        a = rng.integers(0, n, 1)
        e_obs, e_r, e_term, e_trunc, e_info = ep.step(a)
        h_obs, h_r, h_term, h_trunc, h_info = h.step(a)
        assert (h_r[0], h_term[0], h_trunc[0]) == (e_r[0], e_term[0], e_trunc[0]), f"step {t}"
        assert h_info["lives"][0] == e_info["lives"][0] and h_info["reward"][0] == e_info["reward"][0]
        assert h_info["terminated"][0] == bool(e_info["terminated"][0])
        ends += int(h_term[0])
    assert ends >= 1
