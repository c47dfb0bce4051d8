"""Faults in the process backend: env exceptions, worker deaths, restarts, close and Ctrl-C,
and a parent that dies. Nothing may hang, and nothing may be left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import envhive
from envhive.process import ProcessVectorEnv, WorkerDiedError
from envhive.process.arena import LINE_WORDS
from helpers import call_with_watchdog
from process_envs import make_faulty

SEED = 100  # env i is reset with seed SEED + i, so fail_seed=SEED + i picks env i


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _arena_fds() -> list[str]:
    """This process's descriptors that point at an envhive arena (memfd)."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if "envhive-arena" in target:
            out.append(target)
    return out


def _faulty(num_envs: int = 4, fail: str = "raise", env: int = 1, step: int = 3, **kw) -> ProcessVectorEnv:
    return envhive.make(
        make_faulty,
        num_envs=num_envs,
        seed=SEED,
        fail=fail,
        fail_seed=SEED + env,
        fail_step=step,
        num_workers=kw.pop("num_workers", 2),
        **kw,
    )


def _assert_cleaned_up(env: ProcessVectorEnv, pids: list[int]) -> None:
    assert call_with_watchdog(env.close, timeout=30) is None
    assert env.closed
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)], "worker processes outlived close()"
    assert not _arena_fds(), "an arena descriptor outlived close()"


# ---------------------------------------------------------------------------- env exceptions


def test_env_exception_raises_env_error_and_the_pool_carries_on() -> None:
    env = _faulty()
    env.reset()
    for _ in range(2):
        env.step(np.ones(4, dtype=np.int64))
    with pytest.raises(envhive.EnvError, match=r"env 1 raised: RuntimeError: injected failure at step 3") as excinfo:
        env.step(np.ones(4, dtype=np.int64))
    assert excinfo.value.env_id == 1 and excinfo.value.env_ids == [1]
    assert "new episode on their next step" in str(excinfo.value)
    # The failed env starts a new episode on its next step; the others carry on.
    obs, rew, _, _, info = env.step(np.full(4, 2, dtype=np.int64))
    np.testing.assert_array_equal(info["elapsed_step"], [4, 0, 4, 4])
    np.testing.assert_array_equal(rew, [2, 0, 2, 2])
    np.testing.assert_array_equal(obs[:, 0], [4, 0, 4, 4])
    obs, info = env.reset()
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    _, rew, _, _, info = env.step(np.array([0, 1, 2, 0]))
    np.testing.assert_array_equal(rew, [0, 1, 2, 0])
    env.close()


def test_env_exception_in_async_mode() -> None:
    env = _faulty(num_envs=6, env=4, step=2, batch_size=2, num_workers=3)
    env.async_reset()
    with pytest.raises(envhive.EnvError) as excinfo:
        for _ in range(500):
            info = env.recv()[4]
            env.send(np.zeros(2, dtype=np.int64), info["env_id"])
    assert excinfo.value.env_id == 4 and excinfo.value.env_ids == [4]
    obs, info = env.reset()
    assert obs.shape == (2, 1)
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    _, rew, _, _, info = env.step(np.array([1, 2]), info["env_id"])
    assert rew.shape == (2,)
    env.close()


def test_env_exception_disabled_mode_needs_a_masked_reset() -> None:
    env = _faulty(num_envs=3, step=2, autoreset_mode="disabled")
    env.reset()
    env.step(np.ones(3, dtype=np.int64))
    with pytest.raises(envhive.EnvError):
        env.step(np.ones(3, dtype=np.int64))
    with pytest.raises(ValueError, match="env 1 has ended its episode"):
        env.step(np.ones(3, dtype=np.int64))
    _, info = env.reset(options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(info["elapsed_step"], [2, 0, 2])
    _, rew, _, _, info = env.step(np.array([1, 2, 0]))
    np.testing.assert_array_equal(rew, [1, 2, 0])
    env.close()


def test_env_that_cannot_be_built_is_reported_and_nothing_is_left() -> None:
    before = set(_children())
    with pytest.raises(envhive.EnvError, match=r"env 0 could not be built.*Boom") as excinfo:
        envhive.make(_broken_factory, num_envs=3, num_workers=2)
    assert excinfo.value.env_id in (0, 2)
    time.sleep(0.1)
    assert not (set(_children()) - before)
    assert not _arena_fds()


def _broken_factory():
    raise ValueError("Boom: this env cannot be built")


def _children() -> list[int]:
    me = os.getpid()
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me and fields[0] not in ("Z", "X"):
                out.append(int(entry))
    return out


# ---------------------------------------------------------------------------- worker deaths


@pytest.mark.parametrize(("fail", "reason"), [("segfault", "SIGSEGV"), ("exit", "exited with code 3")])
def test_worker_death_is_reported_with_its_env_ids(fail: str, reason: str) -> None:
    env = _faulty(num_envs=4, fail=fail, env=3, step=2)
    pids = env.worker_pids
    env.reset()
    env.step(np.ones(4, dtype=np.int64))
    err = call_with_watchdog(lambda: env.step(np.ones(4, dtype=np.int64)))
    assert isinstance(err, WorkerDiedError) and isinstance(err, envhive.EnvError)
    assert reason in str(err) and "worker 1 (envs 2-3)" in str(err)
    assert err.env_ids == [2, 3] and err.env_id == 2 and not err.restarted
    # Without restart_workers the pool refuses to go on, and says why.
    again = call_with_watchdog(lambda: env.step(np.ones(4, dtype=np.int64)))
    assert isinstance(again, envhive.EnvError) and reason in str(again)
    assert isinstance(call_with_watchdog(env.reset), envhive.EnvError)
    _assert_cleaned_up(env, pids)


def test_worker_killed_from_outside_while_idle() -> None:
    env = _faulty(num_envs=4)
    env.reset()
    pids = env.worker_pids
    os.kill(pids[0], signal.SIGKILL)
    err = call_with_watchdog(lambda: env.step(np.ones(4, dtype=np.int64)))
    assert isinstance(err, envhive.EnvError) and "SIGKILL" in str(err) and err.env_ids == [0, 1]
    _assert_cleaned_up(env, pids)


def test_worker_killed_while_the_parent_waits_in_async_mode(tmp_path: Path) -> None:
    """Env 2 holds worker 1 (a gate never opened); the parent blocks for it; then worker 1 is killed."""
    env = _faulty(num_envs=4, batch_size=2, fail="gate", env=2, step=1, gate=str(tmp_path / "never"))
    env.async_reset()
    env.recv()
    env.recv()
    env.send(np.ones(4, dtype=np.int64), np.arange(4))
    assert sorted(env.recv(timeout=60)[4]["env_id"].tolist()) == [0, 1]  # worker 0's envs
    pid = env.worker_pids[1]
    killer = threading.Thread(target=_kill_once_the_parent_blocks, args=(env, pid))
    killer.start()
    err = call_with_watchdog(lambda: env.recv(timeout=60))
    killer.join(60)
    assert isinstance(err, WorkerDiedError), f"recv returned {err!r} instead of an error"
    assert err.env_ids == [2, 3] and "SIGKILL" in str(err)
    _assert_cleaned_up(env, env.worker_pids)


def _kill_once_the_parent_blocks(env: ProcessVectorEnv, pid: int) -> None:
    _wait_for(lambda: env.backend.pool.parent_waiting[0] == 1)
    os.kill(pid, signal.SIGKILL)


def _wait_for(condition, timeout: float = 60.0) -> None:
    """Poll ``condition`` until it holds (a generous deadline only guards against a hang)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.005)


def test_recv_returns_the_first_envs_to_finish(tmp_path: Path) -> None:
    """First-N-ready: env 0 is held (worker 0 with it, env 1 queued behind it); recv returns the
    envs that finished, 2 and 3, and the held ones once the gate opens -- whatever the timing."""
    gate = tmp_path / "gate"
    env = _faulty(num_envs=4, batch_size=2, fail="gate", env=0, step=1, gate=str(gate))
    env.async_reset()
    env.recv()
    env.recv()
    env.send(np.array([1, 1, 2, 2]), np.arange(4))
    _, rew, _, _, info = env.recv(timeout=60)
    assert sorted(info["env_id"].tolist()) == [2, 3]
    np.testing.assert_array_equal(rew, [2, 2])
    with pytest.raises(TimeoutError):
        env.recv(timeout=0.05)
    env.send(np.array([0, 0]), info["env_id"])  # the finished envs go on meanwhile
    assert sorted(env.recv(timeout=60)[4]["env_id"].tolist()) == [2, 3]
    gate.touch()
    _, rew, _, _, info = env.recv(timeout=60)
    assert sorted(info["env_id"].tolist()) == [0, 1]
    np.testing.assert_array_equal(rew, [1, 1])
    env.close()


def _cpu_s(pid: int, tid: int | None = None) -> float:
    where = f"/proc/{pid}/task/{tid}/stat" if tid is not None else f"/proc/{pid}/stat"
    fields = Path(where).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_waiters_block_instead_of_spinning(tmp_path: Path) -> None:
    """Idle workers, and a parent waiting on a held env, block in poll (their flags in the arena
    say so) and use no CPU while they wait -- no busy-wait, however loaded the machine."""
    gate = tmp_path / "gate"
    env = _faulty(num_envs=4, fail="gate", env=3, step=2, gate=str(gate))
    env.reset()
    env.step(np.ones(4, dtype=np.int64))
    pool = env.backend.pool
    _wait_for(lambda: all(pool.commands.worker_sleeping[w * LINE_WORDS] == 1 for w in range(2)))
    before = [_cpu_s(p) for p in env.worker_pids]
    time.sleep(0.5)
    used = [_cpu_s(p) - b for p, b in zip(env.worker_pids, before, strict=True)]
    assert max(used) < 0.1, f"idle workers used {used} s of CPU in 0.5 s"
    # A sync step that waits on the held env: the parent's thread blocks too.
    tid: list[int] = []
    result: list[object] = []

    def step() -> None:
        tid.append(threading.get_native_id())
        result.append(env.step(np.ones(4, dtype=np.int64)))

    caller = threading.Thread(target=step)
    caller.start()
    _wait_for(lambda: pool.parent_waiting[0] == 1 and pool.commands.worker_sleeping[0] == 1)
    start = _cpu_s(os.getpid(), tid[0])
    time.sleep(0.5)
    assert _cpu_s(os.getpid(), tid[0]) - start < 0.1, "the waiting call spun"
    gate.touch()
    caller.join(60)
    assert result and isinstance(result[0], tuple)
    np.testing.assert_array_equal(result[0][4]["elapsed_step"], [2, 2, 2, 2])
    env.close()


def test_restart_workers_replaces_a_dead_worker_sync() -> None:
    env = _faulty(num_envs=4, fail="segfault", env=0, step=2, restart_workers=True)
    env.reset()
    old = env.worker_pids
    env.step(np.ones(4, dtype=np.int64))
    err = call_with_watchdog(lambda: env.step(np.ones(4, dtype=np.int64)))
    assert isinstance(err, WorkerDiedError) and err.restarted and err.env_ids == [0, 1]
    assert "restarted" in str(err)
    new = env.worker_pids
    assert new[0] != old[0] and new[1] == old[1]
    # The new worker's envs start a new episode on their next step; the others carry on.
    _, rew, _, _, info = env.step(np.full(4, 2, dtype=np.int64))
    np.testing.assert_array_equal(info["elapsed_step"], [0, 0, 3, 3])
    np.testing.assert_array_equal(rew, [0, 0, 2, 2])
    _, rew, _, _, info = env.step(np.full(4, 1, dtype=np.int64))
    np.testing.assert_array_equal(info["elapsed_step"], [1, 1, 4, 4])
    # The restarted envs got fresh seeds: the pool stays usable after a reset too.
    obs, info = env.reset()
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    _assert_cleaned_up(env, new)


def test_restart_workers_in_async_mode_brings_the_lost_envs_back() -> None:
    env = _faulty(num_envs=6, fail="exit", env=1, step=3, batch_size=2, num_workers=3, restart_workers=True)
    try:
        env.async_reset()
        errors = 0
        seen_after: set[int] = set()
        # First-N-ready makes no promise of fairness: on a loaded machine the other workers' envs
        # may come back first for a long time, so the loop runs until the fault and the recovery
        # were seen (or a generous deadline), not for a fixed number of batches.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                _, _, _, _, info = env.recv(timeout=20)
            except WorkerDiedError as e:
                errors += 1
                assert e.restarted and e.env_ids == [0, 1]
                continue
            if errors:
                seen_after.update(info["env_id"].tolist())
            env.send(np.ones(2, dtype=np.int64), info["env_id"])
            if errors and seen_after >= set(range(6)):
                break
        assert errors == 1
        assert seen_after == set(range(6)), "every env, the restarted ones included, keeps coming back"
    finally:
        env.close()  # also when an assertion failed: the next tests check that no arena outlives its pool


# ---------------------------------------------------------------------------- close, Ctrl-C, parent death


def test_close_with_a_hung_env_returns_and_cleans_up() -> None:
    env = _faulty(num_envs=2, fail="hang", env=0, step=1, batch_size=1)
    env.async_reset()
    env.recv()
    env.recv()
    env.send(np.ones(2, dtype=np.int64), np.arange(2))
    env.recv(timeout=10)  # env 1 comes back; env 0 hangs in its step
    with pytest.raises(TimeoutError):
        env.recv(timeout=0.2)
    _assert_cleaned_up(env, env.worker_pids)


def _interrupt_the_process() -> None:
    os.kill(os.getpid(), signal.SIGINT)  # the kernel picks the thread: usually, not always, the main one


def _interrupt_this_thread() -> None:
    signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # a Ctrl-C that lands on another thread


@pytest.mark.usefixtures("python_sigint")
@pytest.mark.parametrize("send", [_interrupt_the_process, _interrupt_this_thread], ids=["process", "other-thread"])
def test_ctrl_c_during_recv_then_close(send) -> None:
    """Ctrl-C while a step waits on a hung env raises KeyboardInterrupt in the caller, also when
    the signal is delivered to another thread (the wait wakes every SIGNAL_CHECK_MS for it)."""
    env = _faulty(num_envs=2, fail="hang", env=1, step=1)
    env.reset()
    pids = env.worker_pids
    watchdog = threading.Timer(60, env.close)  # a regression: the step raises PoolClosedError, no hang
    watchdog.start()
    try:
        threading.Timer(0.3, send).start()
        with pytest.raises(KeyboardInterrupt):
            env.step(np.ones(2, dtype=np.int64))
    finally:
        watchdog.cancel()
    _assert_cleaned_up(env, pids)


def test_workers_ignore_ctrl_c() -> None:
    """Ctrl-C in a terminal reaches the whole process group: the trainer decides, not the workers."""
    env = _faulty(num_envs=2)
    env.reset()
    for pid in env.worker_pids:
        os.kill(pid, signal.SIGINT)
    time.sleep(0.2)
    _, rew, _, _, _ = env.step(np.array([1, 2]))
    np.testing.assert_array_equal(rew, [1, 2])
    env.close()


def test_recv_timeout_keeps_the_batch(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    env = _faulty(num_envs=2, batch_size=1, fail="gate", env=1, step=1, gate=str(gate))
    env.async_reset()
    env.recv()
    env.recv()
    env.send(np.array([2]), np.array([1]))
    with pytest.raises(TimeoutError):
        env.recv(timeout=0.01)  # env 1 is held until the gate opens
    gate.touch()
    _, rew, _, _, info = env.recv(timeout=60)
    assert info["env_id"][0] == 1 and rew[0] == 2
    with pytest.raises(ValueError, match="timeout"):
        env.recv(timeout=-1)
    env.close()


PARENT = """
import sys, time
sys.path.insert(0, {tests!r})
import envhive
from process_envs import make_faulty
env = envhive.make(make_faulty, num_envs=4, num_workers=2, start_method={method!r})
env.reset()
print(" ".join(map(str, env.worker_pids)), flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_workers_exit_when_the_parent_dies(method: str) -> None:
    code = PARENT.format(tests=str(Path(__file__).parent), method=method)
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        pids = [int(p) for p in line.split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 15
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)], "workers outlived their parent"


def test_spinner_spins_long_only_while_the_pool_has_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """A waiter spins up to twice its mean wait, within the cap: ``spin_us`` while the machine's
    runnable count is at most the pool's own processes, the short cap for ``CALM_S`` after any
    read that showed more, and not at all once its waits outlast the cap."""
    from envhive.process import waiting

    runnable = [1]
    reads = [0]

    def runnable_now() -> int:
        reads[0] += 1
        return runnable[0]

    monkeypatch.setattr(waiting, "runnable_now", runnable_now)
    spinner = waiting.Spinner(200e-6, pool_processes=3)
    spinner.record(20e-6)  # mean 5 us: the window is the 20 us floor
    assert spinner.window(10.0) == pytest.approx(waiting.SPIN_FLOOR_S)
    for _ in range(20):
        spinner.record(80e-6)  # mean ~80 us: above the short cap, within spin_us
    assert spinner.window(10.001) == pytest.approx(2 * spinner.mean_s)
    assert reads[0] == 1  # re-read only every CROWD_CHECK_S
    runnable[0] = 4  # something else wants a core
    t = 10.001 + waiting.CROWD_CHECK_S
    assert spinner.window(t) == 0.0  # mean 80 us > the short cap: block at once
    assert reads[0] == 2
    for _ in range(30):
        spinner.record(15e-6)
    assert spinner.window(t + 0.001) == pytest.approx(2 * spinner.mean_s)
    assert 2 * spinner.mean_s < waiting.CROWDED_CAP_S
    for _ in range(20):
        spinner.record(45e-6)
    assert spinner.window(t + 0.002) == pytest.approx(waiting.CROWDED_CAP_S)  # 2 x 45 us, capped
    runnable[0] = 3  # calm again: the short cap stays for CALM_S of calm reads
    assert spinner.window(t + 2 * waiting.CROWD_CHECK_S) == pytest.approx(waiting.CROWDED_CAP_S)
    assert spinner.window(t + waiting.CALM_S + waiting.CROWD_CHECK_S) == pytest.approx(2 * spinner.mean_s)
    for _ in range(20):
        spinner.record(1e-3)  # waits longer than spin_us: block at once
    assert spinner.window(t + 10.0) == 0.0
    assert spinner.spin(lambda: True, time.perf_counter() + 1.0)
    start = time.perf_counter()
    assert not spinner.spin(lambda: False, start + 1e-3)
    assert time.perf_counter() - start < 0.5
