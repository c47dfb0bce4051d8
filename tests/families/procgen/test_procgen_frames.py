"""render(): the engine's own 512x512 frame (procgen's render_mode="rgb_array": render_human, the
"rgb" info drawn at each libenv_observe), equal to the engine's drawn directly; rendering changes
nothing the agent sees."""

from __future__ import annotations

import numpy as np
from procgen_harness import OfficialEngine
from procgen_helpers import lockstep

import envhive


def test_render_is_the_engines_512_frame():
    """SAME_STEP: every action reaches the engine, as it does the reference (an episode end included:
    render() then draws the next level, which the engine is on)."""
    env = envhive.make("procgen-ninja-v0", num_envs=2, render_mode="rgb_array", autoreset_mode="same_step")
    assert env.metadata["render_fps"] == 15
    env.reset(seed=21)
    refs = [OfficialEngine("ninja", 21 + i, render=True) for i in range(2)]
    rng = np.random.default_rng(0)
    drawn = 0
    ends = 0
    for t in range(400):
        actions = rng.integers(0, 15, size=2)
        _, _, term, trunc, _ = env.step(actions)
        ends += int((term | trunc).sum())
        for i, ref in enumerate(refs):
            ref.act(int(actions[i]))
        if t % 40 == 0 or t == 399 or (term | trunc).any():
            frames = env.render()
            assert len(frames) == 2
            for i, ref in enumerate(refs):
                want = ref.render()
                assert frames[i].shape == (512, 512, 3) and frames[i].dtype == np.uint8
                np.testing.assert_array_equal(frames[i], want, err_msg=f"step {t} env {i}")
                drawn += 1
    one = env.render(env_ids=[1])
    np.testing.assert_array_equal(one[0], refs[1].render())
    env.close()
    assert ends >= 1 and drawn >= 22


def test_rendering_changes_nothing_the_agent_sees():
    """A pool that renders every step plays exactly what the engine without render_human plays."""
    ends = lockstep("procgen-caveflyer-v0", n=2, seed=5, max_steps=400, ends_wanted=2, render_mode="rgb_array")
    assert ends.steps > 0
