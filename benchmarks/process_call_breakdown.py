"""Where a sync ``step`` of the process backend spends its time, part by part.

Steps ``envhive.make(..., backend="process")`` sync, as the harness's ``envhive-process`` engine
does (its runner and timing loop: random actions drawn up front, ``--warmup`` seconds untimed, then
``--seconds`` timed; ``--repeats`` fresh pools), and splits each timed call into:

* ``parent before``: the parent's Python from ``step()`` until the workers' command is published
  (checks, actions into the arena, the ring entries and wake-ups) -- on the C++ path (the
  default), until the C++ step is entered;
* ``pickup``: from that publication until each worker starts its block (its wait noticing it;
  on the C++ path this includes the C++ check and queueing of the actions, ~0.3 us);
* ``block``: a worker stepping its envs and writing their outputs into the arena;
* ``notice``: from the later worker's end until the parent's wait returns;
* ``parent after``: from there until ``step()`` returns (the outputs' copies and infos).

Timestamps are ``time.perf_counter`` (CLOCK_MONOTONIC: one clock for every process), taken by
wrapping the pool's ``step``, ``BlockStep.step`` (a worker's sync step; each worker saves its
times when it exits), ``ProcessPool.wire_step`` (the C++ sync step), ``ProcessPool.queue_block_steps``
and ``Completions.wait_all`` (the Python path, ``--python-path``) in this process before the workers
are forked (so the start method is ``fork``). The wrappers add about a microsecond to the parts
they bound. Envs: Gymnasium's ``CartPole-v1``, ``nop`` (an
env whose step does nothing: the fixed costs alone) or ``busy:US`` (a step that spins US
microseconds: a known amount of env work).

    python benchmarks/process_call_breakdown.py                      # CartPole, 16 envs, 2 workers
    python benchmarks/process_call_breakdown.py --env nop --num-envs 2
    python benchmarks/process_call_breakdown.py --env busy:9 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import envhive
from envhive.bench import Settings
from envhive.bench.engines.base import pool_runner
from envhive.bench.worker import run_for
from envhive.process import block_step as block_module
from envhive.process import completions as completions_module
from envhive.process import pool as pool_module
from envhive.process import worker as worker_module
from envhive.vector import HiveVectorEnv

clock = time.perf_counter


class NopEnv(gym.Env[np.ndarray, int]):
    """A step that does nothing: what remains of a call is the backend's own cost."""

    observation_space = spaces.Box(-1.0, 1.0, (4,), np.float32)
    action_space = spaces.Discrete(2)

    def __init__(self, busy_us: float = 0.0) -> None:
        self.obs = np.zeros(4, np.float32)
        self.busy_s = busy_us * 1e-6

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        return self.obs, {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.busy_s:
            end = clock() + self.busy_s
            while clock() < end:
                pass
        return self.obs, 1.0, False, False, {}


def make_factory(env: str) -> Any:
    if env == "nop":
        return NopEnv
    if env.startswith("busy:"):
        us = float(env.split(":", 1)[1])
        return lambda: NopEnv(us)
    return env  # a Gymnasium id: the process backend is forced below


class Record:
    """What the wrappers write: the parent's (start, end) of each call and its (published, seen)
    times; where each worker saves its (start, end) pairs when it exits."""

    calls: list[tuple[float, float]] = []
    published: list[float] = []
    seen: list[float] = []
    folder = Path()


def instrument() -> None:
    """Wrap the pool's step, the worker's block and exit, and the parent's queue / wait (once per process)."""
    step = HiveVectorEnv.step

    def timed_step(self: Any, actions: Any, *args: Any, **kwargs: Any) -> Any:
        start = clock()
        out = step(self, actions, *args, **kwargs)
        Record.calls.append((start, clock()))
        return out

    step_block = block_module.BlockStep.step

    def timed_block(self: Any) -> None:
        times: list[tuple[float, float]] = self.__dict__.setdefault("_breakdown", [])
        start = clock()
        step_block(self)
        times.append((start, clock()))

    run = worker_module.Worker.run

    def run_and_save(self: Any) -> None:
        try:
            run(self)
        finally:
            times = self.block_step.__dict__.get("_breakdown", [])
            np.save(Record.folder / f"worker{self.block_step.rows.index}.npy", np.array(times).reshape(-1, 2))

    queue = pool_module.ProcessPool.queue_block_steps
    wait_all = completions_module.Completions.wait_all

    def timed_queue(self: Any) -> None:
        queue(self)
        Record.published.append(clock())

    def timed_wait(self: Any, timeout: float | None = None, spin: bool = True) -> None:
        wait_all(self, timeout, spin)
        Record.seen.append(clock())

    wire_step = pool_module.ProcessPool.wire_step

    def timed_wire_step(self: Any, actions: Any) -> int:
        entered = clock()
        flags = wire_step(self, actions)
        if flags != -2:  # taken (-2: the Python path queues it, and queue_block_steps records it)
            Record.published.append(entered)
        if flags >= 0:  # done within the spin (else wait_all records when the wait ends)
            Record.seen.append(clock())
        return flags

    HiveVectorEnv.step = timed_step  # type: ignore[method-assign]
    block_module.BlockStep.step = timed_block  # type: ignore[method-assign]
    worker_module.Worker.run = run_and_save  # type: ignore[method-assign]
    pool_module.ProcessPool.queue_block_steps = timed_queue  # type: ignore[method-assign]
    completions_module.Completions.wait_all = timed_wait  # type: ignore[method-assign]
    pool_module.ProcessPool.wire_step = timed_wire_step  # type: ignore[method-assign]


def measure(env: str, num_envs: int, workers: int, settings: Settings, python_path: bool) -> dict[str, np.ndarray]:
    """One fresh pool stepped as the harness steps it: the timed calls' parts (seconds each)."""
    with tempfile.TemporaryDirectory() as tmp:
        Record.folder = Path(tmp)
        vec = envhive.make(
            make_factory(env),
            num_envs=num_envs,
            num_workers=workers,
            seed=settings.seed,
            backend="process",
            start_method="fork",
        )
        try:
            vec.backend.pool.use_wire = not python_path
            runner = pool_runner(vec, vec.single_action_space, num_envs, num_envs, settings.seed)  # resets
            for record in (Record.calls, Record.published, Record.seen):
                record.clear()  # (a reset waits too: only the steps' times are kept)
            _, _, chunk = run_for(runner.advance, settings.warmup)
            warm = len(Record.calls)
            run_for(runner.advance, settings.seconds, chunk)
        finally:
            vec.close()
        deadline = clock() + 10.0
        paths = [Record.folder / f"worker{w}.npy" for w in range(workers)]
        while not all(p.exists() for p in paths) and clock() < deadline:
            time.sleep(0.01)
        blocks = [np.load(p)[warm:] for p in paths]
    calls = np.array(Record.calls)[warm:]
    starts, ends = calls[:, 0], calls[:, 1]
    pub, got = np.array(Record.published)[warm:], np.array(Record.seen)[warm:]
    last_end = np.max([b[:, 1] for b in blocks], axis=0)
    parts = {"parent before": pub - starts}
    for w, b in enumerate(blocks):
        parts[f"pickup, worker {w}"] = b[:, 0] - pub
    for w, b in enumerate(blocks):
        parts[f"block, worker {w}"] = b[:, 1] - b[:, 0]
    parts["notice"] = got - last_end
    parts["parent after"] = ends - got
    parts["call"] = ends - starts
    return parts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="CartPole-v1", help="a Gymnasium id, 'nop' or 'busy:US' (default CartPole-v1)")
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seconds", type=float, default=1.0, help="timed seconds per repetition (default 1)")
    p.add_argument("--warmup", type=float, default=0.5, help="untimed seconds of stepping first (default 0.5)")
    p.add_argument("--repeats", type=int, default=1, help="repetitions, each a fresh pool (default 1)")
    p.add_argument("--python-path", action="store_true", help="step through the Python path, not the C++ one")
    a = p.parse_args(argv)
    settings = Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats)
    instrument()
    path = "Python path" if a.python_path else "C++ path"
    print(f"{a.env}, {a.num_envs} envs, {a.workers} workers, {os.cpu_count()} cores, {path}; us, median / mean")
    for r in range(settings.repeats):
        parts = measure(a.env, a.num_envs, a.workers, settings, a.python_path)
        cells = [f"{name} {np.median(v) * 1e6:.1f} / {np.mean(v) * 1e6:.1f}" for name, v in parts.items()]
        print(f"run {r + 1} ({len(parts['call'])} calls): " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
