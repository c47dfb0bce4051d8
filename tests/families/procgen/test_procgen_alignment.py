"""envhive's Procgen against the official procgen 0.10.7 engine driven directly (procgen_harness:
ctypes over the same libenv.so, one instance per env made with rand_seed = seed + i and the
options procgen/env.py builds): every 64x64x3 frame, reward, terminated / truncated flag and info
bit for bit equal across level ends and resets, in all three autoreset modes. The engine is one
binary run on both sides, so every leaf is compared exactly (no tolerance anywhere).

By default one short run per id (one seed, until an episode ended and a few steps after; the ids
cycle through the three autoreset modes). ``-m deep``: every game in every distribution mode
procgen allows, several seeds, every autoreset mode, several ends each.
"""

from __future__ import annotations

import pytest
from procgen_helpers import IDS, MODE_NAMES, lockstep

from envhive.families import procgen as family

ALL_IDS = sorted(IDS)


@pytest.mark.parametrize("task", ALL_IDS)
def test_every_id_lockstep(task):
    mode = MODE_NAMES[ALL_IDS.index(task) % 3]
    ends = lockstep(task, n=2, seed=ALL_IDS.index(task), mode=mode, max_steps=2100, after_end=8)
    assert ends.terminations + ends.truncations >= 1, f"{task}: no episode ended in {ends.steps} steps"


def test_ids_are_upstreams_and_envpools():
    assert len(family.ENVPOOL_IDS) == 50
    assert {f"procgen-{g}-v0" for g in family.GAMES} <= set(IDS)
    assert "CoinrunHard-v0" in IDS and "MazeExploration-v0" in IDS and "StarpilotExtreme-v0" in IDS
    assert "BigfishMemory-v0" not in IDS  # procgen has no memory mode for bigfish


MATRIX = [(g, m) for g in family.GAMES for m in family.modes(g)]


@pytest.mark.deep
@pytest.mark.parametrize(("game", "dist_mode"), MATRIX, ids=[f"{g}-{m}" for g, m in MATRIX])
def test_deep_matrix(game, dist_mode):
    """Each game and distribution mode: three seeds, one per autoreset mode, three envs each, until
    four episodes ended in each (level ends by death, completion and the engine's own timeout)."""
    task = family.envpool_id(game, dist_mode)
    total = 0
    for k, mode in enumerate(MODE_NAMES):
        ends = lockstep(task, n=3, seed=1000 * k + 7, mode=mode, max_steps=4100, ends_wanted=4, after_end=5,
                        action_seed=k)  # fmt: skip
        total += ends.terminations + ends.truncations
    assert total >= 12, f"{task}: {total} episode ends"


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_bench_reference_is_the_same_engine(mode):
    """The benchmarks' reference (envhive.bench.procgen_env.OfficialProcgenEnv: upstream's gym env on
    the engine through ctypes) under Gymnasium's SyncVectorEnv plays what the pool plays."""
    import gymnasium
    import numpy as np
    from procgen_helpers import assert_frames

    import envhive
    from envhive.bench.procgen_env import OfficialProcgenEnv

    ref = gymnasium.vector.SyncVectorEnv(
        [lambda: OfficialProcgenEnv("BossfightEasy-v0")] * 2,
        autoreset_mode=gymnasium.vector.AutoresetMode[mode.upper()],
    )
    ours = envhive.make("BossfightEasy-v0", num_envs=2, autoreset_mode=mode)
    assert_frames(ours.reset(seed=[5, 9])[0], ref.reset(seed=[5, 9])[0], "reset")
    rng = np.random.default_rng(0)
    ends = 0
    for t in range(300):
        a = rng.integers(0, 15, size=2)
        o1, r1, t1, u1, i1 = ours.step(a)
        o2, r2, t2, u2, i2 = ref.step(a)
        assert_frames(o1, o2, f"step {t}")
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(t1 | u1, t2 | u2)
        ends += int((t2 | u2).sum())
        if mode == "disabled" and (t2 | u2).any():
            mask = t2 | u2
            assert_frames(
                ours.reset(options={"reset_mask": mask})[0][mask],
                ref.reset(options={"reset_mask": mask})[0][mask],
                "reset",
            )
    ours.close()
    ref.close()
    assert ends >= 2
