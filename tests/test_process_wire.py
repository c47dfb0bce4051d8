"""The process backend's sync step in C++ (envhive._procwire): it takes exactly the actions the
Python path takes, hands everything else to that path (which casts them or reports what is
wrong, with nothing queued), and gives the same outputs; the workers' C++ writers fall back the
same way."""

from __future__ import annotations

import os
from typing import Any

import gymnasium
import numpy as np
import pytest

import envhive
from envhive._procwire import BlockWriter, CommandSpin, Publisher, write_rows
from envhive.process import ProcessBackend
from envhive.process.arena import LINE_WORDS
from envhive.process.pool import action_bounds
from process_envs import DICT_WALK, make_faulty
from process_helpers import assert_value_equal


def _faulty(**kwargs: Any) -> envhive.HiveVectorEnv:
    env = envhive.make(make_faulty, num_envs=4, num_workers=2, **kwargs)
    assert isinstance(env.backend, ProcessBackend)
    env.reset(seed=0)
    return env


def test_bad_sync_actions_raise_as_on_the_python_path_and_queue_nothing() -> None:
    """Out of range, wrong dtype kind or shape: the C++ path declines, the Python path raises its
    error, nothing is in flight, and the next step works (through the C++ path again)."""
    env = _faulty()
    pool = env.backend.pool
    try:
        _, rew, _, _, _ = env.step(np.array([0, 1, 2, 1]))
        np.testing.assert_array_equal(rew, [0, 1, 2, 1])
        assert pool._wire is not None  # the C++ path served it
        bad: list[tuple[Any, type[Exception], str]] = [
            (np.array([0, 1, 3, 0]), ValueError, r"action 3 for env 2 is outside Discrete\(3\)"),
            (np.array([0, -1, 0, 0]), ValueError, r"action -1 for env 1 is outside"),
            (np.array([0.0, 1.0, 2.0, 0.0]), TypeError, "must be integers"),
            (np.array([0, 1, 2]), ValueError, r"actions must have shape \(4,\)"),
            (np.array([[0, 1, 2, 1]]), ValueError, r"actions must have shape \(4,\)"),
        ]
        for actions, kind, message in bad:
            with pytest.raises(kind, match=message):
                env.step(actions)
            assert pool.pending() == 0
            _, rew, _, _, _ = env.step(np.array([2, 2, 1, 0]))
            np.testing.assert_array_equal(rew, [2, 2, 1, 0])
        # Taken by the Python path, which casts: another integer dtype or byte order, a list, a strided view.
        for actions in (
            np.array([1, 0, 2, 1], dtype=np.int32),
            np.array([1, 0, 2, 1], dtype=">i8"),  # the other byte order
            [1, 0, 2, 1],
            np.array([1, 9, 0, 9, 2, 9, 1, 9])[::2],
        ):
            _, rew, _, _, _ = env.step(actions)
            np.testing.assert_array_equal(rew, [1, 0, 2, 1])
    finally:
        env.close()


def test_real_actions_that_are_not_finite_are_refused() -> None:
    env = envhive.make("process_envs:" + DICT_WALK, num_envs=3, num_workers=2)
    try:
        env.reset(seed=1)
        good = np.full((3, 2), 0.1, dtype=np.float32)
        env.step(good)
        assert env.backend.pool._wire is not None
        for value in (np.nan, np.inf):
            actions = good.copy()
            actions[1, 0] = value
            with pytest.raises(ValueError, match="action for env 1 is not finite"):
                env.step(actions)
            assert env.backend.pool.pending() == 0
        env.step(good)
    finally:
        env.close()


def test_a_step_while_a_sync_batch_is_in_flight_is_refused() -> None:
    env = _faulty()
    try:
        env.send(np.array([1, 1, 1, 1]))
        with pytest.raises(ValueError, match="in flight"):
            env.step(np.array([0, 0, 0, 0]))
        _, rew, _, _, _ = env.recv()
        np.testing.assert_array_equal(rew, [1, 1, 1, 1])
        _, rew, _, _, _ = env.step(np.array([2, 0, 2, 0]))
        np.testing.assert_array_equal(rew, [2, 0, 2, 0])
    finally:
        env.close()


def test_a_step_that_outlasts_the_spin_blocks_in_python() -> None:
    """Envs of 20 ms against a 20 us spin: the C++ wait gives up, Python blocks until the
    workers finish; same outputs as without the C++ path."""
    for wire in (True, False):
        env = _faulty(delay=0.02, spin_us=20)
        env.backend.pool.use_wire = wire
        try:
            for t in range(3):
                obs, rew, term, trunc, info = env.step(np.array([t % 3, 1, 2, 0]))
                np.testing.assert_array_equal(obs[:, 0], [t + 1] * 4)
                np.testing.assert_array_equal(rew, [t % 3, 1, 2, 0])
                np.testing.assert_array_equal(info["elapsed_step"], [t + 1] * 4)
            assert (env.backend.pool._wire is not None) == wire
        finally:
            env.close()


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
@pytest.mark.parametrize("task", ["CartPole-v1", "process_envs:" + DICT_WALK])
def test_the_c_path_and_the_python_path_give_the_same_steps(task: str, mode: str) -> None:
    """Two pools of the same seeds and actions, one stepped through the C++ path and one through
    the Python path: every output equal, over several episodes."""
    pools = [envhive.make(task, backend="process", num_envs=5, num_workers=2, autoreset_mode=mode) for _ in range(2)]
    pools[1].backend.pool.use_wire = False
    space = pools[0].single_action_space
    rng = np.random.default_rng(5)
    try:
        assert_value_equal(pools[0].reset(seed=3), pools[1].reset(seed=3), "reset")
        ended = 0
        for t in range(120):
            if isinstance(space, gymnasium.spaces.Discrete):
                actions: np.ndarray = rng.integers(0, space.n, size=5)
            else:
                actions = rng.uniform(-1.5, 1.5, size=(5, 2)).astype(np.float32)
            a, b = (p.step(actions) for p in pools)
            assert_value_equal(a, b, f"step {t}")
            ended += int((a[2] | a[3]).sum())
        assert ended >= 5, "episodes should end along the way"
        assert pools[0].backend.pool._wire is not None and pools[1].backend.pool._wire is None
    finally:
        for p in pools:
            p.close()


def test_block_writer_writes_plain_values_and_declines_anything_else() -> None:
    reward, term, trunc = np.zeros(3), np.zeros(3, np.uint8), np.zeros(3, np.uint8)
    elapsed = np.zeros(3, np.int32)
    writer = BlockWriter(reward, term, trunc, elapsed)
    assert writer.write([1.5, np.float64(-2.0), 3], [True, False, True], [False, False, True], [1, 2, 3])
    np.testing.assert_array_equal(reward, [1.5, -2.0, 3.0])
    np.testing.assert_array_equal(term, [1, 0, 1])
    np.testing.assert_array_equal(trunc, [0, 0, 1])
    np.testing.assert_array_equal(elapsed, [1, 2, 3])
    declined = [
        ([np.float32(1.0), 0.0, 0.0], [False] * 3, [False] * 3, [0] * 3),  # numpy's conversion decides
        (["x", 0.0, 0.0], [False] * 3, [False] * 3, [0] * 3),  # not a number: the worker reports it
        ([0.0] * 3, [np.bool_(True), False, False], [False] * 3, [0] * 3),
        ([0.0] * 3, [False] * 3, [1, False, False], [0] * 3),
        ([0.0] * 3, [False] * 3, [False] * 3, [0, 2**40, 0]),  # does not fit int32
        ([0.0] * 2, [False] * 2, [False] * 2, [0] * 2),  # a row short
    ]
    for args in declined:
        assert not writer.write(*args)
        np.testing.assert_array_equal(reward, [1.5, -2.0, 3.0])  # nothing written
        np.testing.assert_array_equal(elapsed, [1, 2, 3])


def test_write_rows_copies_matching_arrays_only() -> None:
    out = np.zeros((3, 2), np.float32)
    rows = [np.array([i, i + 0.5], np.float32) for i in range(3)]
    assert write_rows(rows, out)
    np.testing.assert_array_equal(out, np.stack(rows))
    before = out.copy()
    for bad in (
        [*rows[:2], np.array([9.0, 9.0])],  # float64: numpy casts it
        [*rows[:2], np.array([9.0, 9.0, 9.0], np.float32)],
        [*rows[:2], [9.0, 9.0]],
        [*rows[:2], np.array([[9.0, 9.0, 9.0, 9.0]], np.float32)[:, ::2].reshape(2)],  # a copy: fine
        rows[:2],
    ):
        taken = write_rows(bad, out)
        if taken:  # only the contiguous copy of matching shape and dtype may be taken
            assert len(bad) == 3 and isinstance(bad[2], np.ndarray) and bad[2].dtype == np.float32
            np.testing.assert_array_equal(out[2], bad[2])
            out[:] = before
        else:
            np.testing.assert_array_equal(out, before)
    strided = np.zeros((4, 2), np.float32)[::2]
    assert not write_rows([rows[0], rows[1]], strided)


def test_command_spin_returns_once_the_head_moves_or_when_the_time_is_up() -> None:
    heads = np.zeros(16, dtype=np.int64)
    spin = CommandSpin(heads, 8)
    assert not spin.spin(0, 0.001)
    heads[8] = 1
    assert spin.spin(0, 0.001)
    with pytest.raises(ValueError, match="out of range"):
        CommandSpin(heads, 16)


def test_action_bounds_follow_each_integer_space() -> None:
    from envhive.process.arena import leaves

    def bounds(space: gymnasium.Space[Any]) -> tuple[list[int], list[int]]:
        low, high = action_bounds(leaves(space, "action")[0])
        return low.tolist(), high.tolist()

    assert bounds(gymnasium.spaces.Discrete(3, start=-1)) == ([-1], [2])
    assert bounds(gymnasium.spaces.MultiDiscrete([[2, 3], [4, 5]])) == ([0, 0, 0, 0], [2, 3, 4, 5])
    assert bounds(gymnasium.spaces.MultiBinary(2)) == ([0, 0], [2, 2])
    assert bounds(gymnasium.spaces.Box(-1.0, 1.0, shape=(2,))) == ([], [])
    info = np.iinfo(np.int64)
    assert bounds(gymnasium.spaces.Box(0, 5, shape=(1,), dtype=np.int32)) == ([info.min], [info.max])


def test_publisher_wakes_a_blocked_parent_once_the_workers_reach_its_total() -> None:
    """One wake-up per call: only while the parent's flag says it blocks, and only from the
    publication that brings the workers' sum to what it waits for; every publication writes the
    eventfd where wake-ups are not skipped."""
    done = np.zeros(2 * LINE_WORDS, dtype=np.int64)
    waiting = np.zeros(LINE_WORDS, dtype=np.int64)
    want = np.zeros(LINE_WORDS, dtype=np.int64)
    fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
    try:
        publisher = Publisher(done, waiting, want, fd, 1, 2, LINE_WORDS, True)
        done[0], want[0] = 2, 5
        publisher.publish(2, False)  # the parent spins: no wake-up
        assert done[LINE_WORDS] == 2
        with pytest.raises(BlockingIOError):
            os.eventfd_read(fd)
        waiting[0] = 1
        publisher.publish(2, False)  # 2 + 2 < 5
        with pytest.raises(BlockingIOError):
            os.eventfd_read(fd)
        publisher.publish(3, True)  # 2 + 3 == 5: this one wakes it
        assert os.eventfd_read(fd) == 1
        always = Publisher(done, waiting, want, fd, 0, 2, LINE_WORDS, False)
        waiting[0] = 0
        always.publish(1, False)
        assert done[0] == 1 and os.eventfd_read(fd) == 1
        with pytest.raises(ValueError, match="out of range"):
            Publisher(done, waiting, want, fd, 2, 2, LINE_WORDS, True)
    finally:
        os.close(fd)
