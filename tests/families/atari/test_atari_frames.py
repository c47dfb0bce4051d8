"""The C++ resize equals cv2.resize bit for bit on ALE frames; the raw screen equals ALE's own.

Two pools run in lock step with the same seed and actions: one observes the raw 210x160 screen
(max-pooled, gray or RGB), the other the resized one; cv2.resize of the first must equal the
second exactly, for INTER_AREA (use_inter_area_resize=True) and INTER_LINEAR, 84x84 and other
sizes: non-integer downscales (float area path), integer ones (block means), upscales (OpenCV's
bilinear emulation of INTER_AREA).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import envhive

GAMES = ["Pong", "Breakout", "MsPacman", "Seaquest"]


def lockstep_frames(game: str, size: tuple[int, int], gray: bool, area: bool, steps: int):
    kw = {
        "num_envs": 2,
        "num_threads": 1,
        "seed": 7,
        "gray_scale": gray,
        "use_inter_area_resize": area,
        "stack_num": 1,
        "noop_max": 30,
        "repeat_action_probability": 0.25,
    }
    raw = envhive.make(f"{game}-v5", img_height=210, img_width=160, **kw)
    small = envhive.make(f"{game}-v5", img_height=size[0], img_width=size[1], **kw)
    r_obs, _ = raw.reset()
    s_obs, _ = small.reset()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        yield r_obs, s_obs
        actions = rng.integers(0, raw.single_action_space.n, 2)
        r_obs = raw.step(actions)[0]
        s_obs = small.step(actions)[0]
    raw.close()
    small.close()


def cv2_resize(frame: np.ndarray, size: tuple[int, int], gray: bool, area: bool) -> np.ndarray:
    img = frame[0] if gray else frame.transpose(1, 2, 0)  # (C, H, W) -> OpenCV's H x W x C
    out = cv2.resize(img, (size[1], size[0]), interpolation=cv2.INTER_AREA if area else cv2.INTER_LINEAR)
    return out[None] if gray else out.transpose(2, 0, 1)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("gray", [True, False], ids=["gray", "rgb"])
@pytest.mark.parametrize("area", [True, False], ids=["area", "linear"])
def test_84x84_equals_cv2(game: str, gray: bool, area: bool) -> None:
    distinct = set()
    for raw, small in lockstep_frames(game, (84, 84), gray, area, 100):
        for r, s in zip(raw, small, strict=True):
            np.testing.assert_array_equal(s, cv2_resize(r, (84, 84), gray, area))
            distinct.add(s.tobytes())
    assert len(distinct) > 50  # the frames did change


@pytest.mark.parametrize("size", [(42, 42), (105, 80), (70, 80), (100, 120), (64, 160), (250, 200), (420, 320)])
@pytest.mark.parametrize("area", [True, False], ids=["area", "linear"])
def test_other_sizes_equal_cv2(size: tuple[int, int], area: bool) -> None:
    for raw, small in lockstep_frames("MsPacman", size, False, area, 25):
        for r, s in zip(raw, small, strict=True):
            assert s.shape == (3, *size)
            np.testing.assert_array_equal(s, cv2_resize(r, size, False, area))


@pytest.mark.parametrize("simd", ["base", "avx2", "avx512"])
@pytest.mark.parametrize("gray", [True, False], ids=["gray", "rgb"])
def test_raw_size_is_the_max_pooled_screen(simd: str, gray: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """img 210x160 skips the resize: the observation is ALE's own grayscale (or RGB) screen,
    max-pooled over the last two frames of the skip -- at every vector level of the palette lookup
    ($ENVHIVE_ATARI_SIMD caps it; a level the CPU lacks runs as the CPU's best)."""
    ale_py = pytest.importorskip("ale_py")
    import gymnasium

    monkeypatch.setenv("ENVHIVE_ATARI_SIMD", simd)
    gymnasium.register_envs(ale_py)
    g = gymnasium.make("ALE/Pong-v5", frameskip=1, repeat_action_probability=0.0)
    g.reset(seed=0)
    h = envhive.make(
        "Pong-v5",
        num_envs=1,
        noop_max=0,
        use_fire_reset=False,
        img_height=210,
        img_width=160,
        stack_num=1,
        gray_scale=gray,
    )
    h.reset()
    ale = g.unwrapped.ale
    screen = ale.getScreenGrayscale if gray else lambda: ale.getScreenRGB().transpose(2, 0, 1)
    rng = np.random.default_rng(1)
    for _ in range(50):
        a = int(rng.integers(6))
        frames = []
        for _ in range(4):
            g.step(a)
            frames.append(screen())
        obs = h.step(np.array([a]))[0]
        want = np.maximum(frames[2], frames[3])
        np.testing.assert_array_equal(obs[0, 0] if gray else obs[0], want)


def test_an_unknown_vector_level_is_a_value_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENVHIVE_ATARI_SIMD", "sse9")
    with pytest.raises(ValueError, match="ENVHIVE_ATARI_SIMD=sse9: expected base, avx2 or avx512"):
        envhive.make("Pong-v5", num_envs=1)
