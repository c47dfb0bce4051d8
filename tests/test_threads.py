"""One pool, several Python threads: a call from a second thread is refused, close() from another
thread ends the call in flight cleanly, Ctrl-C answers within one env step. Crash-prone cases run
in a child process, so a segfault or a hang fails the test instead of the run."""

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


def run_child(code: str, timeout: float = 120) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"child exited with {out.returncode}\nstdout:\n{out.stdout}\nstderr:\n{out.stderr}"
    return out.stdout


def test_close_from_another_thread_while_stepping() -> None:
    """The issue's reproducer: a thread steps CartPole in a loop, the main thread closes the pool."""
    out = run_child(
        """
        import threading, time
        import numpy as np
        import envhive
        for rounds in range(5):
            env = envhive.make("CartPole-v1", num_envs=64, seed=0)
            env.reset()
            errors = []
            def loop():
                try:
                    while True:
                        env.step(np.zeros(64, dtype=np.int64))
                except Exception as e:
                    errors.append(e)
            t = threading.Thread(target=loop)
            t.start()
            time.sleep(0.2)
            env.close()
            t.join(30)
            assert not t.is_alive()
            assert len(errors) == 1 and isinstance(errors[0], envhive.PoolClosedError), errors
        print("ok")
        """
    )
    assert out.strip() == "ok"


def test_close_from_another_thread_ends_a_waiting_recv() -> None:
    env = envhive.make("Dummy-v0", num_envs=2, batch_size=1, num_threads=2, delays_us=[300_000, 300_000])
    env.async_reset()
    env.recv()
    env.recv()
    env.send(np.array([1]), np.array([0]))
    caught: list[BaseException] = []

    def wait() -> None:
        try:
            env.recv()
        except BaseException as e:  # noqa: BLE001 (whatever it raises is the result)
            caught.append(e)

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.05)
    env.close()  # waits for the recv in flight to return, then stops the threads
    t.join(10)
    assert not t.is_alive()
    assert len(caught) == 1 and isinstance(caught[0], envhive.PoolClosedError), caught
    assert "another thread" in str(caught[0])
    assert env.closed


def test_a_second_thread_is_refused_while_a_call_waits() -> None:
    """The issue's reproducer: step() in one thread, recv() in another."""
    env = envhive.make("Dummy-v0", num_envs=4, delays_us=[200_000])
    env.reset()
    results: dict[str, object] = {}

    def call(name: str, fn: object) -> None:
        try:
            results[name] = fn()  # type: ignore[operator]
        except BaseException as e:  # noqa: BLE001
            results[name] = e

    a = threading.Thread(target=call, args=("first", lambda: env.step(np.zeros(4, dtype=np.int64))))
    a.start()
    time.sleep(0.05)
    for name, fn in {
        "recv": env.recv,
        "reset": env.reset,
        "async_reset": env.async_reset,
        "step": lambda: env.step(np.zeros(4, dtype=np.int64)),
    }.items():
        b = threading.Thread(target=call, args=(name, fn))
        b.start()
        b.join(10)
        assert not b.is_alive(), name
        assert isinstance(results[name], envhive.PoolBusyError), (name, results[name])
        assert "in use by another thread" in str(results[name])
    a.join(10)
    assert not a.is_alive()
    assert isinstance(results["first"], tuple)  # the first step completed
    # The pool goes on.
    obs, *_ = env.step(np.ones(4, dtype=np.int64))
    assert obs.shape == (4, 3)
    env.close()


def test_threads_taking_turns_are_fine() -> None:
    env = envhive.make("CartPole-v1", num_envs=8, batch_size=4, seed=1)
    env.async_reset()
    lock = threading.Lock()
    done = []

    def work() -> None:
        for _ in range(200):
            with lock:
                _, _, _, _, info = env.recv()
                env.send(np.zeros(4, dtype=np.int64), info["env_id"])
        done.append(True)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert done == [True, True, True]
    env.close()


@pytest.mark.usefixtures("python_sigint")
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_ctrl_c_in_sync_mode_returns_within_one_env_step() -> None:
    """4 envs of 0.5 s each on 2 threads: the caller answers Ctrl-C after its current env, not
    after its whole share of the batch."""
    env = envhive.make("Dummy-v0", num_envs=4, num_threads=2, delays_us=[500_000])
    env.reset()
    timer = threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        env.step(np.zeros(4, dtype=np.int64))
    elapsed = time.monotonic() - start
    timer.join()
    assert elapsed < 0.95, f"Ctrl-C took {elapsed:.2f} s (one env step is 0.5 s)"
    # The pool comes back with a reset.
    obs, _ = env.reset()
    assert obs.shape == (4, 3)
    env.close()


# ------------------------------------------------------------- long steps: cancellation points
# A task whose step loops long (DMC's physics sub-steps, a MuJoCo frame_skip; Dummy-v0's busy-wait
# with cancellable=True) calls core/cancel.h's cancellation_point(): close() and Ctrl-C stop the step
# instead of waiting for it (issue 40). Each env here would step for 60 s.
LONG_STEP = {"delays_us": [60e6], "cancellable": True, "episode_length": 0}


@pytest.mark.usefixtures("python_sigint")
@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_ctrl_c_stops_a_long_step_on_the_calling_thread() -> None:
    """A one-env sync pool steps on the calling thread: its long step sees Ctrl-C."""
    env = envhive.make("Dummy-v0", num_envs=1, num_threads=1, **LONG_STEP)
    env.reset()
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        env.step(np.zeros(1, dtype=np.int64))
    elapsed = time.monotonic() - start
    timer.join()
    assert elapsed < 10, f"Ctrl-C took {elapsed:.1f} s in a 60 s step"
    obs, _ = env.reset()  # the cancelled step failed; the pool comes back with a reset
    assert obs.shape == (1, 3)
    env.close()


@pytest.mark.parametrize("num_threads", [1, 2])
def test_close_from_another_thread_stops_a_long_step(num_threads: int) -> None:
    env = envhive.make("Dummy-v0", num_envs=2, num_threads=num_threads, **LONG_STEP)
    env.reset()
    errors: list[BaseException] = []

    def step() -> None:
        try:
            env.step(np.zeros(2, dtype=np.int64))
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=step)
    t.start()
    time.sleep(0.3)
    start = time.monotonic()
    env.close()
    t.join(30)
    assert not t.is_alive() and time.monotonic() - start < 10
    assert len(errors) == 1 and isinstance(errors[0], envhive.PoolClosedError), errors


def test_close_after_a_recv_timeout_does_not_wait_for_the_step() -> None:
    """The issue's case: recv(timeout=) raises TimeoutError, and close() then returns at once
    instead of waiting for the worker's step in flight."""
    env = envhive.make("Dummy-v0", num_envs=2, batch_size=1, num_threads=2, **LONG_STEP)
    env.async_reset()
    env.recv()
    env.recv()
    env.send(np.zeros(2, dtype=np.int64), np.arange(2))
    with pytest.raises(TimeoutError):
        env.recv(timeout=0.3)
    start = time.monotonic()
    env.close()
    assert time.monotonic() - start < 10


def test_steps_without_cancellation_points_are_unchanged() -> None:
    """cancellable=False (every task but the few long-looping ones): a close() from another thread
    waits for the env step in flight to finish, then the call raises PoolClosedError."""
    env = envhive.make("Dummy-v0", num_envs=1, delays_us=[400_000], episode_length=0)
    env.reset()
    t = threading.Thread(target=lambda: time.sleep(0.1) or env.close())
    t.start()
    start = time.monotonic()
    with pytest.raises(envhive.PoolClosedError):
        env.step(np.full(1, 7, dtype=np.int64))
    assert time.monotonic() - start >= 0.35
    t.join()
    assert env.closed


# ---------------------------------------------------------------------------- timeouts


@pytest.mark.parametrize("timeout", [float("inf"), 1e12, 9.3e9])
def test_unbounded_timeouts_wait(timeout: float) -> None:
    env = envhive.make("Dummy-v0", num_envs=2, batch_size=1, num_threads=2, delays_us=[50_000])
    env.async_reset()
    env.recv()
    env.recv()
    env.send(np.array([3]), np.array([0]))
    _, rew, _, _, info = env.recv(timeout=timeout)  # waits the 50 ms instead of timing out
    assert info["env_id"][0] == 0 and rew[0] == 3
    env.close()


@pytest.mark.parametrize(
    ("timeout", "error", "pattern"),
    [
        (float("nan"), ValueError, "nan"),
        ("1", TypeError, "number"),
        (True, TypeError, "number"),
        (-1, ValueError, ">= 0"),
    ],
)
def test_bad_timeouts_are_refused(timeout: object, error: type[Exception], pattern: str) -> None:
    env = envhive.make("CartPole-v1", num_envs=2, batch_size=1)
    env.async_reset()
    with pytest.raises(error, match=pattern):
        env.recv(timeout=timeout)  # type: ignore[arg-type]
    env.recv()  # the pool is unchanged
    env.close()


# ---------------------------------------------------------------------------- sizes


@pytest.mark.parametrize("kwargs", [{"num_envs": 2**31}, {"num_envs": 10**8, "seed": None}, {"num_envs": 2**20 + 1}])
def test_too_many_envs_are_refused_before_anything_is_allocated(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=r"num_envs must be <= 1048576"):
        envhive.make("CartPole-v1", **kwargs)


# ---------------------------------------------------------------------------- step before reset


def test_step_before_reset_is_refused_in_every_facade() -> None:
    env = envhive.make("CartPole-v1", num_envs=3)
    with pytest.raises(envhive.ResetNeeded, match="env 0 has not been reset"):
        env.step(np.zeros(3, dtype=np.int64))
    env.reset()
    env.step(np.zeros(3, dtype=np.int64))
    env.close()

    env = envhive.make("CartPole-v1", num_envs=4, batch_size=2)
    with pytest.raises(envhive.ResetNeeded):
        env.send(np.zeros(2, dtype=np.int64), np.array([0, 1]))
    env.async_reset()
    _, _, _, _, info = env.recv()
    env.send(np.zeros(2, dtype=np.int64), info["env_id"])
    env.close()

    dm = envhive.make_dm("CartPole-v1", num_envs=2)
    with pytest.raises(envhive.ResetNeeded):
        dm.step(np.zeros(2, dtype=np.int64))
    dm.reset()
    dm.step(np.zeros(2, dtype=np.int64))
    dm.close()


def test_a_partial_reset_of_a_sync_pool_needs_every_env_reset_first() -> None:
    env = envhive.make("CartPole-v1", num_envs=2)
    with pytest.raises(envhive.ResetNeeded, match="env 1"):
        env.reset(options={"reset_mask": np.array([True, False])})
    env.reset()
    env.reset(options={"reset_mask": np.array([True, False])})
    env.close()


def test_reset_needed_is_gymnasiums() -> None:
    import gymnasium

    assert issubclass(envhive.ResetNeeded, gymnasium.error.ResetNeeded)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_freeing_an_inherited_pool_does_not_hang() -> None:
    """A pool in a reference cycle (garbage the parent has not collected yet) is inherited by a child
    forked then (multiprocessing's fork start method: the process backend's default on Linux), whose
    garbage collector frees it. The pool's threads live in the parent only: the child's copy must
    neither join them nor destroy the locks and condition variables they wait on (that waited
    forever: a process-backend worker hung at its first garbage collection)."""
    import gc

    gc.disable()
    try:
        env = envhive.make("CartPole-v1", num_envs=8, num_threads=2)
        env.reset(seed=0)
        env.step(np.zeros(8, np.int64))
        env.cycle = env  # only the collector frees it
        del env
        time.sleep(0.3)  # the worker thread is asleep on the pool's condition variable
        pid = os.fork()
        if pid == 0:  # the child: free the copy, report, leave without Python's exit handlers
            code = 1
            try:
                gc.collect()
                code = 0
            finally:
                os._exit(code)
        deadline = time.monotonic() + 30
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail("the forked child hung freeing the pool it inherited")
            time.sleep(0.05)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        gc.enable()
        gc.collect()  # the parent frees its pool (its threads stop) as usual
