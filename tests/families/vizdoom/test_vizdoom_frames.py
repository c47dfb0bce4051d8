"""render() of the ViZDoom tasks, as EnvPool 1.2.5 draws it: the latest screen as RGB rows (a gray
screen's plane in all three channels), at the screen's size unless ``width`` / ``height`` (EnvPool's
``render_width`` / ``render_height``) resize it, with the observations' resizer. Checked against
the observation made at the same size, which is the same screen through the same resize."""

from __future__ import annotations

import numpy as np
import pytest

import envhive
import envhive.envpool as hive_envpool


@pytest.mark.parametrize(
    ("task", "size"), [("Basic-v1", (240, 320)), ("D1Basic-v1", (120, 160)), ("Basic-v1", (60, 100))]
)
def test_frames_are_the_screen_as_observed(task: str, size: tuple[int, int]) -> None:
    h, w = size
    env = envhive.make(
        task,
        num_envs=2,
        seed=3,
        render_mode="rgb_array",
        stack_num=1,
        img_height=h,
        img_width=w,
        height=h,
        width=w,
        use_combined_action=True,
    )
    obs, _ = env.reset()
    for step in range(4):
        frames = env.render()
        assert len(frames) == 2
        for i, frame in enumerate(frames):
            assert frame.shape == (h, w, 3) and frame.dtype == np.uint8
            want = obs[i].transpose(1, 2, 0) if obs.shape[1] == 3 else np.repeat(obs[i, 0][:, :, None], 3, axis=2)
            np.testing.assert_array_equal(frame, want, err_msg=f"{task} env {i} step {step}")
        obs, *_ = env.step(np.full(2, step % 3))
    env.close()


def test_default_frame_is_the_screens_size_and_envpools_kwargs_resize_it() -> None:
    spec = envhive.make_spec("Basic-v1", render_mode="rgb_array")
    assert (spec.render.height, spec.render.width) == (240, 320)
    env = hive_envpool.make_gymnasium(
        "Basic-v1", num_envs=1, render_mode="rgb_array", render_width=100, render_height=80
    )
    env.reset()
    assert env.render().shape == (1, 80, 100, 3)
    env.close()


def test_bad_frame_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match=r"width must be in \[0, 16384\]"):
        envhive.make("Basic-v1", num_envs=1, render_mode="rgb_array", width=-1)
    with pytest.raises(ValueError, match=r"height must be in \[0, 16384\]"):
        envhive.make("Basic-v1", num_envs=1, render_mode="rgb_array", height=10**6)
