"""envhive's MPE frames (render_mode="rgb_array") against mpe2's pygame frames, step for step across
an episode end and the reset after it.

The five scenarios whose agents are all silent (spread, adversary, tag, simple, push) are equal to
the last pixel. In the four where an agent talks, mpe2 also writes "<agent> sends <word>" with a
freetype font at the bottom left (one line per talking agent, 35 pixels apart from y = 665 up),
which envhive does not draw: there the frames are equal outside those text lines, and every
differing pixel lies in them (the stated bound)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from mpe_helpers import TASK_IDS

import envhive
from envhive.families.mpe import reference_parallel_env

SILENT = ("simple_spread_v3", "simple_adversary_v3", "simple_tag_v3", "simple_v3", "simple_push_v3")
TALKERS = {"simple_speaker_listener_v4": 1, "simple_reference_v3": 2, "simple_crypto_v3": 3, "simple_world_comm_v3": 1}


def _text_band(lines: int) -> np.ndarray:
    """Where mpe2's text lines may be: x from 35 on, rows from the top line's y to below the first."""
    band = np.zeros((700, 700), bool)
    band[665 - 35 * (lines - 1) : 692, 35:] = True
    return band


def _compare_frames(task_id: str, seed: int, steps: int, **kwargs: Any) -> int:
    pool = envhive.make(task_id, num_envs=1, seed=seed, render_mode="rgb_array", max_cycles=10, **kwargs)
    ref = reference_parallel_env(task_id, render_mode="rgb_array", max_cycles=10, **kwargs)
    band = _text_band(TALKERS[task_id]) if task_id in TALKERS else None
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
            if band is None:
                assert not differ.any(), (task_id, t, np.argwhere(differ)[:5])
            else:
                assert not (differ & ~band).any(), (task_id, t, np.argwhere(differ & ~band)[:5])
            compared += 1
            if continuous:
                acts = {a: rng.uniform(0, 1, ref.action_space(a).shape).astype(np.float32) for a in agents}
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


@pytest.mark.deep
@pytest.mark.parametrize("dynamic_rescaling", [True, False])
@pytest.mark.parametrize("task_id", TASK_IDS)
def test_deep_frames(task_id: str, dynamic_rescaling: bool) -> None:
    for seed in (0, 31):
        _compare_frames(task_id, seed=seed, steps=24, dynamic_rescaling=dynamic_rescaling)
    _compare_frames(task_id, seed=5, steps=12, continuous_actions=True)
