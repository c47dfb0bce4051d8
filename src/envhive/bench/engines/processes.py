"""Process-based vectorisers of a Python env, beside envhive's process backend: plain single-env
processes side by side (the multi-process ceiling), and PufferLib 3's Multiprocessing backend."""

from __future__ import annotations

import os
from itertools import islice
from typing import Any

from envhive.bench.engines.base import Engine, Runner, action_pool
from envhive.bench.engines.gym_vector import GYMNASIUM_HINT, build_single


def _single_env_loop(task: str, seed: int, conn: Any) -> None:
    """A plain process stepping one env (gymnasium.make + Python loop) `n` steps per request."""
    runner = build_single(task, 1, 1, None, seed)
    conn.send("ready")
    while True:
        n = conn.recv()
        if n is None:
            break
        runner.advance(n)
        conn.send(n)
    runner.close()


def _build_gymnasium_processes(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    """`num_threads` (default: every core) plain single-env processes side by side, each stepping
    its own env in a Python loop; a call is one step of each (the harness's chunks make it many, so
    the pipe round trip per chunk is negligible). Their sum is the ceiling for any multi-process
    vectoriser of a Python env on this machine."""
    import multiprocessing

    count = num_threads or os.cpu_count() or 1
    ctx = multiprocessing.get_context("fork")
    pipes, procs = [], []
    for k in range(count):
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_single_env_loop, args=(task, seed + k, child), daemon=True)
        proc.start()
        pipes.append(parent)
        procs.append(proc)
    for conn in pipes:
        conn.recv()

    def advance(n: int) -> None:
        for conn in pipes:
            conn.send(n)
        for conn in pipes:
            conn.recv()

    def close() -> None:
        for conn in pipes:
            conn.send(None)
        for proc in procs:
            proc.join(10)

    return Runner(advance, close, count, [p.pid for p in procs if p.pid is not None])


# Ids Gymnasium 0.29 (PufferLib's) does not have, and the nearest it has: LunarLander-v3 (Gymnasium
# 1.0) fixed v2's reset determinism; a step costs the same.
PUFFER_FALLBACK_IDS = {"LunarLander-v3": "LunarLander-v2"}


def _build_pufferlib(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    """PufferLib 3's multiprocessing backend (pufferlib.vector.Multiprocessing): runs in its own
    interpreter ($ENVHIVE_BENCH_PUFFER_PYTHON; it needs numpy < 2 and gymnasium 0.29)."""
    import functools

    import gymnasium
    import pufferlib.emulation
    import pufferlib.vector

    if task not in gymnasium.registry and task in PUFFER_FALLBACK_IDS:  # gymnasium 0.29 predates it
        task = PUFFER_FALLBACK_IDS[task]
    creator = functools.partial(pufferlib.emulation.GymnasiumPufferEnv, env_creator=gymnasium.make, env_args=[task])
    workers = min(num_threads or os.cpu_count() or 1, num_envs)
    vecenv = pufferlib.vector.make(
        creator,
        backend=pufferlib.vector.Multiprocessing,
        num_envs=num_envs,
        num_workers=workers,
        batch_size=batch_size,
    )
    vecenv.async_reset(seed)
    actions = action_pool(vecenv.single_action_space, batch_size, seed)
    recv, send = vecenv.recv, vecenv.send

    def advance(n: int) -> None:
        for a in islice(actions, n):
            recv()
            send(a)

    pids = [p.pid for p in getattr(vecenv, "processes", []) if p.pid is not None]
    return Runner(advance, vecenv.close, batch_size, pids)


ENGINES = (
    Engine(
        "gymnasium-procs",
        "plain single-env processes side by side, one per --threads (the multi-process ceiling)",
        "gymnasium",
        GYMNASIUM_HINT,
        _build_gymnasium_processes,
        vectorized=False,
        threaded=True,
        label="plain processes, 1 env each",
    ),
    Engine(
        "pufferlib",
        "PufferLib 3 pufferlib.vector.Multiprocessing (own interpreter: $ENVHIVE_BENCH_PUFFER_PYTHON)",
        "pufferlib",
        "PufferLib needs its own venv (numpy<2, gymnasium 0.29, pufferlib-core 3.0.x): make bench-puffer",
        _build_pufferlib,
        batched=True,
        threaded=True,
        python_var="ENVHIVE_BENCH_PUFFER_PYTHON",
    ),
)
