"""render() frames against Meta-World's own (Gymnasium's MujocoRenderer), pixel for pixel on the same
GL: the free camera Gymnasium sets up and a model camera by name, after a reset and after steps."""

from __future__ import annotations

import os

import numpy as np
import pytest

if os.environ.get("MUJOCO_GL") not in ("egl", "osmesa"):
    os.environ["MUJOCO_GL"] = "egl"

import envhive  # noqa: E402

H = pytest.importorskip("metaworld_helpers")


@pytest.mark.parametrize(("task", "camera_name"), [("pick-place-v3", None), ("door-open-v3", "corner")])
def test_frames_equal_metaworlds(task: str, camera_name: str | None) -> None:
    size = 64
    kwargs = {"camera_name": camera_name} if camera_name else {}
    try:
        env = envhive.make(
            f"Meta-World/{task}", num_envs=1, seed=3, render_mode="rgb_array", width=size, height=size, **kwargs
        )
        env.reset()
        ours = [env.render()[0]]
    except envhive.RenderError as e:
        pytest.skip(f"no GL here: {e}")
    ref_env = H.ALL_V3_ENVIRONMENTS[task](render_mode="rgb_array", width=size, height=size, camera_name=camera_name)
    ref_env.seed(3)
    ref_env._freeze_rand_vec = False
    ref_env.seeded_rand_vec = True
    ref_env._set_task_called = True
    ref_env.reset()
    frames = [ref_env.render()]
    rng = np.random.default_rng(0)
    for _ in range(3):
        act = H.random_actions(rng, 1)
        env.step(act)
        ref_env.step(act[0])
        ours.append(env.render()[0])
        frames.append(ref_env.render())
    for k, (a, b) in enumerate(zip(ours, frames, strict=True)):
        assert a.shape == b.shape == (size, size, 3)
        np.testing.assert_array_equal(a, b, err_msg=f"frame {k}")
    assert any(f.std() > 0 for f in frames)  # the frames show something
