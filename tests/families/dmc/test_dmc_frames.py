"""DeepMind Control Suite frames: from_pixels observations and render() against dm_control's own
Physics.render (through its pixels wrapper), pixel for pixel.

Every comparison is exact (tolerance 0): envhive draws with MuJoCo's renderer given the same model,
data, camera, MjvOption and scene size as dm_control's Camera, on the same GL (EGL with Mesa's
llvmpipe here; MUJOCO_GL=egl, set by conftest.py, makes dm_control use it too). The states are
reached by stepping both in lock step with the same seeds and actions (tests/families/dmc/test_dmc_alignment.py
shows them equal), across an episode end, so a frame difference can only come from the renderer.
Frames cost ~0.1-0.7 s each on llvmpipe (a 2048x2048 shadow map per light), so each test draws a
few small ones.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import envhive

suite = pytest.importorskip("dm_control.suite")
pixels = pytest.importorskip("dm_control.suite.wrappers.pixels")

from test_dmc_alignment import _assert_obs, _dm_env, envpool_id  # noqa: E402

EPISODE_STEPS = 4
STEPS = 6  # across the first episode's end: the next step's frame is the new episode's first


def _pixel_refs(domain: str, task: str, seed: int, n: int, time_limit: float, **render_kwargs: int) -> list:
    """dm_control envs i = 0..n-1 of seed + i behind its pixels wrapper (pixels only)."""
    return [
        pixels.Wrapper(_dm_env(domain, task, seed + i, time_limit), pixels_only=True, render_kwargs=render_kwargs)
        for i in range(n)
    ]


@pytest.mark.parametrize(
    ("domain", "task", "camera_id"),
    [
        ("cartpole", "swingup", 0),
        # the free camera (mjv_defaultFreeCamera)
        pytest.param("walker", "walk", -1, marks=pytest.mark.deep),
        # each env's own model copy (its target moves every episode)
        pytest.param("finger", "turn_hard", 1, marks=pytest.mark.deep),
        # each episode's terrain uploaded to the GPU before its frames
        pytest.param("quadruped", "escape", 0, marks=pytest.mark.deep),
    ],
)
def test_pixels_equal_dm_controls_physics_render(domain: str, task: str, camera_id: int) -> None:
    seed, n = 11, 2
    time_limit = EPISODE_STEPS * _dm_env(domain, task, 0).control_timestep()
    env = envhive.make(
        envpool_id(domain, task),
        num_envs=n,
        num_threads=2,  # frames drawn on the caller's and a worker's GL contexts
        seed=seed,
        time_limit=time_limit,
        from_pixels=True,
        camera_id=camera_id,
    )
    try:
        assert list(env.single_observation_space.spaces) == ["pixels"]
        assert env.single_observation_space["pixels"].shape == (84, 84, 3)
        refs = _pixel_refs(domain, task, seed, n, time_limit, height=84, width=84, camera_id=camera_id)
        obs, _ = env.reset()
        for i, ref in enumerate(refs):
            np.testing.assert_array_equal(obs["pixels"][i], ref.reset().observation["pixels"], err_msg=f"reset {i}")
        rng = np.random.default_rng(seed)
        for t in range(STEPS):
            actions = rng.uniform(-1, 1, size=(n, *refs[0].action_spec().shape))
            obs, *_ = env.step(actions)
            for i, ref in enumerate(refs):
                expected = ref.step(actions[i]).observation["pixels"]
                np.testing.assert_array_equal(obs["pixels"][i], expected, err_msg=f"step {t} env {i}")
    finally:
        env.close()


def test_frame_stack_channels_first_state_keys_and_render() -> None:
    """frame_stack 3, channel-first, with the task's keys (pixels_only=False), in an async pool;
    render() draws the same camera. Frames against physics.render stacked as DrQ's FrameStack does
    (the first frame repeated after a reset, oldest first)."""
    domain, task, seed, k = "cheetah", "run", 4, 3
    size = {"height": 48, "width": 40, "camera_id": 1}
    env = envhive.make(
        "CheetahRun-v1",
        num_envs=2,
        batch_size=2,
        num_threads=2,
        seed=seed,
        render_mode="rgb_array",
        from_pixels=True,
        pixels_only=False,
        frame_stack=k,
        channels_first=True,
        **size,
    )
    try:
        space = env.single_observation_space
        assert list(space.spaces) == ["position", "velocity", "pixels"]
        assert space["pixels"].shape == (3 * k, 48, 40) and space["pixels"].dtype == np.uint8
        refs = [_dm_env(domain, task, seed + i) for i in range(2)]
        history: list[list[np.ndarray]] = []
        obs, _ = env.reset()
        for i, ref in enumerate(refs):
            _assert_obs(
                domain, {key: obs[key] for key in ("position", "velocity")}, i, ref.reset().observation, "reset"
            )
            history.append([ref.physics.render(**size)] * k)
        frames = env.render()
        for i, ref in enumerate(refs):
            np.testing.assert_array_equal(frames[i], ref.physics.render(**size), err_msg=f"render() {i}")
        rng = np.random.default_rng(0)
        for t in range(4):
            for i in range(2):
                stacked = np.concatenate([frame.transpose(2, 0, 1) for frame in history[i]])
                np.testing.assert_array_equal(obs["pixels"][i], stacked, err_msg=f"step {t} env {i}")
            actions = rng.uniform(-1, 1, size=(2, 6))
            obs, *_ = env.step(actions)
            for i, ref in enumerate(refs):
                ref.step(actions[i])
                history[i] = history[i][1:] + [ref.physics.render(**size)]
    finally:
        env.close()


def test_flattened_pixels_and_make_dm() -> None:
    env = envhive.make("PendulumSwingup-v1", num_envs=1, seed=0, from_pixels=True, frame_stack=2, flatten=True)
    try:
        assert env.single_observation_space.shape == (84, 84, 6)
        obs, _ = env.reset()
        np.testing.assert_array_equal(obs[0][..., :3], obs[0][..., 3:])  # after a reset: the first frame twice
    finally:
        env.close()
    dm = envhive.make_dm("PendulumSwingup-v1", num_envs=1, seed=0, from_pixels=True, height=32, width=32)
    try:
        assert list(dm.observation_spec()) == ["pixels"]
        ts = dm.reset()
        np.testing.assert_array_equal(ts.observation["pixels"][0], _render_after_reset("pendulum", "swingup", 0, 32))
    finally:
        dm.close()


def _render_after_reset(domain: str, task: str, seed: int, side: int) -> np.ndarray:
    ref = _dm_env(domain, task, seed)
    ref.reset()
    return ref.physics.render(side, side, camera_id=0)


def test_bad_pixel_kwargs_name_the_problem() -> None:
    with pytest.raises(ValueError, match=r"width must be in \[1, 640\] \(the model's offscreen framebuffer width"):
        envhive.make("CheetahRun-v1", from_pixels=True, width=641)
    with pytest.raises(ValueError, match=r"camera_id must be in \[-1, 1\] .*2 cameras"):
        envhive.make("CheetahRun-v1", from_pixels=True, camera_id=2)
    with pytest.raises(ValueError, match="frame_stack must be in"):
        envhive.make("CheetahRun-v1", from_pixels=True, frame_stack=0)
    with pytest.raises(ValueError, match="pixels_only must be True"):
        envhive.make("CheetahRun-v1", from_pixels=True, pixels_only=False, flatten=True)


def test_from_pixels_without_gl_is_a_render_error(tmp_path: Path) -> None:
    """With neither libEGL nor libOSMesa loadable (hidden by bind mounts in a private mount
    namespace), making a from_pixels pool raises envhive.RenderError naming the packages, at once;
    the state observations of the same task still work."""
    libs = []
    out = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True, check=False).stdout
    for name in ("libEGL.so.1", "libOSMesa.so.8", "libOSMesa.so.6"):
        libs += [line.split("=>")[-1].strip() for line in out.splitlines() if line.strip().startswith(name + " ")]
    if shutil.which("unshare") is None or (hasattr(os, "geteuid") and os.geteuid() != 0):
        pytest.skip("needs root and unshare(1) to hide the GL libraries in a private mount namespace")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"unshare -m is not permitted here: {probe.stderr.decode().strip()}")
    script = tmp_path / "no_gl.py"
    script.write_text(
        "import numpy as np, envhive\n"
        "try:\n"
        "    envhive.make('CheetahRun-v1', num_envs=2, from_pixels=True)\n"
        "except envhive.RenderError as e:\n"
        "    print('RENDER-ERROR', e.env_id, e.env_ids, e)\n"
        "env = envhive.make('CheetahRun-v1', num_envs=2)\n"
        "env.reset()\n"
        "env.step(np.zeros((2, 6)))\n"
        "print('STEPPED')\n"
    )
    mounts = "".join(f"mount --bind /dev/null {lib} && " for lib in libs)
    environ = {k: v for k, v in os.environ.items() if k != "MUJOCO_GL"}
    run = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"{mounts}exec {sys.executable} {script}"],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "RENDER-ERROR -1 []" in run.stdout, run.stdout
    assert "libegl1" in run.stdout and "libosmesa6" in run.stdout, run.stdout
    assert "STEPPED" in run.stdout
