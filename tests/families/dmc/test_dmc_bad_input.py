"""The DeepMind Control Suite's edges (issue 40): kwargs bounded together (frame_skip x n_sub_steps
physics steps an env step); a long step gives way to close() and Ctrl-C between physics steps;
``MUJOCO_GL`` naming a GL library that cannot load breaks no state pool, and a pixel pool raises
envhive.RenderError naming the library; a task's compiled model is released with its last pool."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import envhive

pytest.importorskip("dm_control")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"frame_skip": 10**6, "n_sub_steps": 10**6}, r"(frame_skip|n_sub_steps) must be in \[1, 100000\]"),
        ({"frame_skip": 1000, "n_sub_steps": 1000}, r"frame_skip \* n_sub_steps \(1000 \* 1000 = 1000000 physics"),
        ({"frame_skip": 400, "n_sub_steps": 300}, r"must be at most 100000"),
        ({"n_sub_steps": 0}, r"n_sub_steps must be in \[1, 100000\] \(physics steps per control step\), got 0"),
        ({"frame_skip": -1}, r"frame_skip must be in \[1, 100000\]"),
        ({"frame_stack": 2, "flatten": True}, "frame_stack > 1 stacks each state key"),
        ({"time_limit": float("nan")}, "CheetahRun-v1: time_limit is NaN"),
    ],
)
def test_kwargs_bounded_together(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        envhive.make("CheetahRun-v1", **kwargs)


def _long_step_pool() -> tuple[envhive.HiveVectorEnv, float]:
    """A one-env sync pool (it steps on the calling thread) whose env step is 1e5 humanoid physics
    steps, and how long such a step would take (from 1000 of them)."""
    probe = envhive.make("HumanoidRun-v1", num_envs=1, n_sub_steps=1000)
    probe.reset()
    start = time.monotonic()
    probe.step(np.zeros((1, 21)))
    full_step = 100 * (time.monotonic() - start)
    probe.close()
    env = envhive.make("HumanoidRun-v1", num_envs=1, n_sub_steps=100_000)
    env.reset()
    return env, full_step


def test_close_stops_a_long_step() -> None:
    env, full_step = _long_step_pool()
    errors: list[BaseException] = []

    def step() -> None:
        try:
            env.step(np.zeros((1, 21)))
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=step)
    t.start()
    time.sleep(0.2)
    start = time.monotonic()
    env.close()
    t.join(120)
    took = time.monotonic() - start
    assert len(errors) == 1 and isinstance(errors[0], envhive.PoolClosedError), errors
    assert took < max(1.0, full_step / 4), f"close() took {took:.2f} s; the step would take {full_step:.1f} s"


@pytest.mark.usefixtures("python_sigint")
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_ctrl_c_stops_a_long_step_on_the_calling_thread() -> None:
    env, full_step = _long_step_pool()
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        env.step(np.zeros((1, 21)))
    took = time.monotonic() - start
    timer.join()
    assert took < max(1.2, full_step / 4), f"Ctrl-C took {took:.2f} s; the step would take {full_step:.1f} s"
    obs, _ = env.reset()  # the interrupted step failed: the env restarts
    assert obs["joint_angles"].shape == (1, 21)
    env.close()


def _child(code: str, env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    assert out.returncode == 0, f"child exited with {out.returncode}\nstdout:\n{out.stdout}\nstderr:\n{out.stderr}"
    return out.stdout


BROKEN_GL = {
    # no libOSMesa on the machine that tests: PyOpenGL cannot load it (skipped where it is installed)
    "osmesa": {"MUJOCO_GL": "osmesa"},
    # libEGL without a vendor library: no EGL display can be made
    "egl": {"MUJOCO_GL": "egl", "__EGL_VENDOR_LIBRARY_FILENAMES": "/nonexistent/egl_vendor.json"},
}


@pytest.mark.parametrize("gl", sorted(BROKEN_GL))
def test_mujoco_gl_naming_a_library_that_cannot_load(gl: str) -> None:
    """State pools need no GL (dm_control builds their XML; its GL backend loads only if something
    draws with it); a pixel pool raises envhive.RenderError naming the library."""
    if gl == "osmesa":
        import ctypes.util

        if ctypes.util.find_library("OSMesa"):
            pytest.skip("libOSMesa is installed here: MUJOCO_GL=osmesa works")
    out = _child(
        """
        import numpy as np
        import envhive
        env = envhive.make("WalkerWalk-v1", num_envs=2, seed=0)
        obs, _ = env.reset()
        obs, *_ = env.step(np.zeros((2, 6)))
        assert obs["height"].shape == (2,)
        env.close()
        try:
            envhive.make("CartpoleBalance-v1", num_envs=1, from_pixels=True)
        except envhive.RenderError as e:
            print("RenderError:", e)
        else:
            raise AssertionError("a pixel pool without GL was made")
        """,
        BROKEN_GL[gl],
    )
    assert "RenderError:" in out
    assert ("OSMesa" if gl == "osmesa" else "EGL") in out, out


def test_dm_control_still_draws_with_its_own_backend_after_envhive_built_a_model() -> None:
    """envhive defers dm_control's GL import, never changes it: dm_control's own Physics.render in
    the same process still loads the backend MUJOCO_GL names (EGL here) and draws."""
    out = _child(
        """
        import envhive
        env = envhive.make("CartpoleBalance-v1", num_envs=1)
        env.reset()
        from dm_control import suite
        frame = suite.load("cartpole", "balance").physics.render(32, 32)
        print(frame.shape, int(frame.max()) > 0)
        """,
        {"MUJOCO_GL": "egl"},
    )
    assert out.strip() == "(32, 32, 3) True", out


def test_models_are_released_with_their_last_pool() -> None:
    from envhive import catalog

    module = catalog.module_for("CheetahRun-v1")
    before = set(module._dmc_cached_models())
    a = envhive.make("FishSwim-v1", num_envs=2)
    b = envhive.make("FishSwim-v1", num_envs=1)
    assert "fish/swim" in module._dmc_cached_models()
    a.close()
    del a
    assert "fish/swim" in module._dmc_cached_models()  # b still uses it
    b.reset()
    b.step(np.zeros((1, 5)))
    b.close()
    del b
    assert "fish/swim" not in module._dmc_cached_models()
    assert set(module._dmc_cached_models()) <= before | {"fish/swim"}
    again = envhive.make("FishSwim-v1", num_envs=1, seed=3)  # compiled again, the same task
    obs, _ = again.reset()
    assert obs["target"].shape == (1, 3)
    again.close()


def test_memory_of_closed_dog_pools_goes_back_to_the_system() -> None:
    """Issue 40: a dog pool (a ~430 MB model, compiled and freed on the pool's threads) made and
    closed repeatedly. glibc keeps what other threads' arenas freed, so RSS grew by about 24 MB a
    cycle (402 -> 876 MB over 20 cycles) until Pool::close trimmed the heap (malloc_trim); now it
    stays within a few MB of the first cycle's (378 -> 388 MB over 20, 393 over 100). Measured in a
    fresh interpreter: in a process that has run a whole test suite (4 GB of other allocations in
    the same arenas) RSS says little about one mechanism. Without the trim this grows ~150 MB."""
    code = """
import os, numpy as np, envhive
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
def cycle():
    env = envhive.make("DogRun-v1", num_envs=2, num_threads=2)
    env.reset(seed=0)
    env.step(np.zeros((2, 38)))
    env.close()
cycle()
first = rss()
for _ in range(8):
    cycle()
print(first, rss())
"""
    out = _child(code, {})
    first, last = map(float, out.split()[-2:])
    assert last - first < 100, (first, last)
