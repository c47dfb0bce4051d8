"""envhive's MPE frames (render_mode="rgb_array") against mpe2's pygame frames, step for step across
an episode end and the reset after it, equal to the last pixel: the circles (pygame-ce's rules), and
in the four scenarios where an agent talks, mpe2's "<agent> sends <word>   " lines (pygame.freetype's
glyphs of mpe2's font, from the family's resolver, laid out and blended in C++), with Discrete
actions (a letter) and continuous ones (the channels' values, "[0.12,0.57,...]")."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from mpe_helpers import TASK_IDS

import envhive
from envhive.families.mpe import reference_parallel_env

TALKERS = ("simple_speaker_listener_v4", "simple_reference_v3", "simple_crypto_v3", "simple_world_comm_v3")


def _compare_frames(task_id: str, seed: int, steps: int, **kwargs: Any) -> int:
    pool = envhive.make(task_id, num_envs=1, seed=seed, render_mode="rgb_array", max_cycles=10, **kwargs)
    ref = reference_parallel_env(task_id, render_mode="rgb_array", max_cycles=10, **kwargs)
    agents = list(ref.possible_agents)
    rng = np.random.default_rng(seed)
    continuous = bool(kwargs.get("continuous_actions"))
    compared = 0
    try:
        pool.reset()
        ref.reset(seed=seed)
        pending = False
        for t in range(steps):
            frame, ref_frame = pool.render()[0], ref.render()
            assert frame.shape == ref_frame.shape == (700, 700, 3)
            differ = (frame != ref_frame).any(-1)
            assert not differ.any(), (task_id, t, np.argwhere(differ)[:5])
            if task_id in TALKERS:  # the text is there: dark pixels in the bottom-left lines
                assert (frame[560:700, 35:300] < 128).all(-1).any(), (task_id, t)
            compared += 1
            if continuous:  # out-of-range values too: the text shows the clipped channels
                acts = {a: rng.uniform(-0.2, 1.2, ref.action_space(a).shape).astype(np.float32) for a in agents}
                row = np.concatenate([acts[a] for a in agents])[None]
            else:
                acts = {a: int(rng.integers(ref.action_space(a).n)) for a in agents}
                row = np.array([[acts[a] for a in agents]], np.int64)
            pool.step(row)
            if pending:
                ref.reset()
                pending = False
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ref.step(acts)
                pending = not ref.agents
    finally:
        pool.close()
        ref.close()
    return compared


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_frames(task_id: str) -> None:
    assert _compare_frames(task_id, seed=4, steps=14) == 14


@pytest.mark.parametrize("task_id", TALKERS)
def test_frames_continuous_text(task_id: str) -> None:
    assert _compare_frames(task_id, seed=6, steps=8, continuous_actions=True) == 8


@pytest.mark.deep
@pytest.mark.parametrize("dynamic_rescaling", [True, False])
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_deep_frames(task_id: str, dynamic_rescaling: bool) -> None:
    for seed in (0, 31):
        _compare_frames(task_id, seed=seed, steps=24, dynamic_rescaling=dynamic_rescaling)
    _compare_frames(task_id, seed=5, steps=12, continuous_actions=True)
