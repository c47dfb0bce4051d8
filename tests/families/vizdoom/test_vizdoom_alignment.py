"""envhive's ViZDoom (EnvPool's ids and definitions over the vizdoom wheel's C++ client) against
the vizdoom package's own DoomGame driven through its Python API with the same scenario, seed and
actions, EnvPool's definitions written again in the reference (vizdoom_reference): every stacked
84x84 frame (cv2.resize of the same screens: bit for bit), float32 reward, flag and info equal.
The engine is the same binary on both sides and the arithmetic is the same IEEE float/double, so
nothing has a tolerance.

By default: each id for one short run (one env, its own autoreset mode in turn, a short time limit
so that every id ends an episode quickly). ``-m deep``: longer runs, two envs, every mode, the
scenarios' own time limit.
"""

from __future__ import annotations

import pytest
from vizdoom_helpers import lockstep

from envhive.families import vizdoom as family

IDS = sorted(i for i in family.ENVPOOL_IDS if i != "VizdoomCustom-v1")
MODES = ("next_step", "same_step", "disabled")


@pytest.mark.parametrize("task", IDS)
def test_every_id_lockstep(task):
    mode = MODES[IDS.index(task) % 3]
    counts = lockstep(task, n=1, seed=IDS.index(task), mode=mode, max_steps=60, max_episode_steps=25, after_end=3)
    assert counts["terminated"] + counts["truncated"] >= 1


def test_custom_id_takes_a_cfg():
    cfg, wad = family.scenario_files("defend_the_line")
    counts = lockstep("VizdoomCustom-v1", seed=4, max_steps=40, max_episode_steps=20, cfg_path=cfg, wad_path=wad)
    assert counts["truncated"] >= 1


@pytest.mark.deep
@pytest.mark.parametrize("task", IDS)
@pytest.mark.parametrize("mode", MODES)
def test_deep_lockstep(task, mode):
    """Two envs, the default 525-step limit, until two episodes ended."""
    counts = lockstep(task, n=2, seed=100, mode=mode, max_steps=600, ends_wanted=2, action_seed=3)
    assert counts["terminated"] + counts["truncated"] >= 1
