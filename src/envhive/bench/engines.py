"""The engines the harness can time: what each one honours, and how it steps.

The metadata (`ENGINES`) is cheap to import; the simulators themselves (envhive's native
module, EnvPool, Gymnasium) are imported only inside `build`, in the worker process.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import cycle, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import gymnasium

ENVPOOL_HINT = "envpool not installed: pip install 'envhive[bench]'"
GYMNASIUM_HINT = "gymnasium not installed: pip install gymnasium"

# Random actions are drawn before timing starts and cycled; bound the pool's memory.
POOL_BATCHES = 64
POOL_SINGLE = 1024
POOL_BYTES = 32 << 20


@dataclass
class Runner:
    """A constructed and reset engine. `advance(n)` makes n timed calls, each worth
    `steps_per_call` env steps (num_envs for a sync step, batch_size for recv + send)."""

    advance: Callable[[int], None]
    close: Callable[[], None]
    steps_per_call: int
    child_pids: list[int] = field(default_factory=list)


# (task, num_envs, batch_size, num_threads or None, seed) -> a constructed, reset Runner
Builder = Callable[[str, int, int, int | None, int], Runner]


def gymnasium_id(task: str) -> str:
    """The Gymnasium id of an envhive task: the same name (ALE tasks live under `ALE/`)."""
    import gymnasium

    if task in gymnasium.registry:
        return task
    try:
        import ale_py
    except ImportError:
        return task
    gymnasium.register_envs(ale_py)
    ale_id = f"ALE/{task}"
    return ale_id if ale_id in gymnasium.registry else task


def gymnasium_env(task: str) -> gymnasium.Env[Any, Any]:
    """One Gymnasium env doing what envhive's task does. For Atari that is EnvPool's defaults (the
    DQN recipe envhive's Atari tasks follow): ALE's raw frames (frameskip=1, no sticky actions)
    through AtariPreprocessing(noop_max=30, frame_skip=4, 84x84 gray) and a 4-frame stack --
    ALE's own v5 defaults (sticky actions, no preprocessing) would not be like for like."""
    import gymnasium

    gym_id = gymnasium_id(task)
    if not gym_id.startswith("ALE/"):
        return gymnasium.make(gym_id)
    from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

    env = gymnasium.make(gym_id, frameskip=1, repeat_action_probability=0.0)
    env = AtariPreprocessing(env, noop_max=30, frame_skip=4, screen_size=84, grayscale_obs=True)
    return FrameStackObservation(env, 4)


def atari_rom_id(task: str) -> str:
    """Pong-v5 -> pong, MontezumaRevenge-v5 -> montezuma_revenge (ale-py's ROM ids)."""
    import ale_py.roms

    name = task.rsplit("-", 1)[0].lower()
    for rom in ale_py.roms.get_all_rom_ids():
        if rom.replace("_", "") == name:
            return rom
    raise ValueError(f"no ALE ROM for {task}")


def action_pool(space: gymnasium.Space[Any], batch: int | None, seed: int) -> Iterator[Any]:
    """An endless cycle of random actions drawn up front: single actions when `batch` is None,
    else arrays of `batch` rows in the space's dtype (EnvPool's Box is float64)."""
    import numpy as np
    from gymnasium.vector.utils import batch_space

    if batch is None:
        sampler, size = space, POOL_SINGLE
    else:
        sampler = batch_space(space, batch)
        row_bytes = max(1, int(np.prod(space.shape or (1,))) * np.dtype(space.dtype or "f8").itemsize)
        size = max(1, min(POOL_BATCHES, POOL_BYTES // (row_bytes * batch)))
    sampler.seed(seed)
    actions = [sampler.sample() for _ in range(size)]
    if batch is not None and space.dtype is not None:
        actions = [np.ascontiguousarray(a, dtype=space.dtype) for a in actions]
    return cycle(actions)


def _pool_runner(env: Any, space: gymnasium.Space[Any], num_envs: int, batch_size: int, seed: int) -> Runner:
    """envhive and EnvPool share one protocol: step() when sync, recv()/send() when async."""
    if batch_size == num_envs:
        env.reset()
        sync_actions = action_pool(space, num_envs, seed)
        step = env.step

        def advance_sync(n: int) -> None:
            for a in islice(sync_actions, n):
                step(a)

        return Runner(advance_sync, env.close, num_envs)

    env.async_reset()
    async_actions = action_pool(space, batch_size, seed)
    recv, send = env.recv, env.send

    def advance_async(n: int) -> None:
        for a in islice(async_actions, n):
            send(a, recv()[4]["env_id"])

    return Runner(advance_async, env.close, batch_size)


def _build_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    """envhive.make: the native pool, or the process backend for ids without a native task
    (then `num_threads` is the number of worker processes)."""
    import envhive

    return _envhive_runner(envhive, task, envhive.backend_for(task), num_envs, batch_size, num_threads, seed)


def _build_envhive_process(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import envhive

    return _envhive_runner(envhive, task, "process", num_envs, batch_size, num_threads, seed)


def _envhive_runner(
    envhive: Any, task: str, backend: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int
) -> Runner:
    kwargs: dict[str, Any] = {"num_envs": num_envs, "batch_size": batch_size, "seed": seed, "backend": backend}
    if num_threads:
        kwargs["num_workers" if backend == "process" else "num_threads"] = num_threads
    env = envhive.make(task, **kwargs)
    runner = _pool_runner(env, env.single_action_space, num_envs, batch_size, seed)
    runner.child_pids = list(getattr(env, "worker_pids", []))
    return runner


def _build_envpool(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import envpool

    kwargs: dict[str, Any] = {"num_envs": num_envs, "batch_size": batch_size, "seed": seed}
    if num_threads:
        kwargs["num_threads"] = num_threads
    env = envpool.make(task, env_type="gymnasium", **kwargs)
    # EnvPool's action_space is the single-env space, float64 for Box.
    return _pool_runner(env, env.action_space, num_envs, batch_size, seed)


def _build_gymnasium_single(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:

    env = gymnasium_env(task)
    env.reset(seed=seed)
    actions = action_pool(env.action_space, None, seed)
    step, reset = env.step, env.reset

    def advance(n: int) -> None:
        for a in islice(actions, n):
            _, _, terminated, truncated, _ = step(a)
            if terminated or truncated:
                reset()

    return Runner(advance, env.close, 1)


def _single_env_loop(task: str, seed: int, conn: Any) -> None:
    """A plain process stepping one env (gymnasium.make + Python loop) `n` steps per request."""
    runner = _build_gymnasium_single(task, 1, 1, None, seed)
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


def _build_gymnasium_vector(mode: str) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        import gymnasium

        env: gymnasium.vector.VectorEnv[Any, Any, Any]
        if mode in ("sync", "async") and gymnasium_id(task).startswith("ALE/"):  # the matched pipeline
            vector = gymnasium.vector.SyncVectorEnv if mode == "sync" else gymnasium.vector.AsyncVectorEnv
            env = vector([lambda: gymnasium_env(task)] * num_envs)
        else:
            env = gymnasium.make_vec(gymnasium_id(task), num_envs=num_envs, vectorization_mode=mode)
        env.reset(seed=seed)
        actions = action_pool(env.single_action_space, num_envs, seed)
        step = env.step

        def advance(n: int) -> None:
            for a in islice(actions, n):
                step(a)

        pids = [p.pid for p in getattr(env, "processes", []) if p.pid is not None]
        return Runner(advance, env.close, num_envs, pids)

    return build


def _build_ale_vector(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    """ale-py's AtariVectorEnv (C++ threads) with EnvPool's defaults (no sticky actions, 30 no-ops,
    FIRE reset, no reward clipping, no episodic life)."""
    from ale_py.vector_env import AtariVectorEnv

    env = AtariVectorEnv(
        atari_rom_id(task), num_envs, batch_size=batch_size, num_threads=num_threads or 0,
        repeat_action_probability=0.0, noop_max=30, use_fire_reset=True, reward_clipping=False,
        episodic_life=False,
    )  # fmt: skip
    env.reset(seed=seed)
    actions = action_pool(env.single_action_space, batch_size, seed)
    if batch_size == num_envs:
        step = env.step

        def advance_sync(n: int) -> None:
            for a in islice(actions, n):
                step(a)

        return Runner(advance_sync, env.close, num_envs)
    send, recv = env.send, env.recv  # ale-py's send() addresses the envs of the last batch received

    def advance_async(n: int) -> None:
        for a in islice(actions, n):
            send(a)
            recv()

    return Runner(advance_async, env.close, batch_size)


LOOP_BENCH_DIR_ENV = "ENVHIVE_LOOP_BENCH_DIR"
# The interpreter of another envhive build (its venv's python), timed as the `envhive-alt` engine
# beside this one for before/after comparisons in one run.
ALT_PYTHON_ENV = "ENVHIVE_BENCH_ALT_PYTHON"
# The engine that interpreter runs for `envhive-alt` (default `envhive`; e.g. `envhive-process`).
ALT_ENGINE_ENV = "ENVHIVE_BENCH_ALT_ENGINE"


def loop_bench_rate(task: str, seconds: float, seed: int) -> float:
    """Steps/s of one env of `task` in its family's single-thread C++ loop (csrc/core/loop_bench.h):
    the per-core physical limit. The executables `<family>_loop_bench` are looked up in
    $ENVHIVE_LOOP_BENCH_DIR (benchmarks/loop_bench_build.py builds them)."""
    from envhive import catalog  # the measured engine is imported only in its own worker process

    family = catalog.get(task).family
    folder = os.environ.get(LOOP_BENCH_DIR_ENV)
    binary = Path(folder or ".") / f"{family}_loop_bench"
    if not folder or not binary.exists():
        raise FileNotFoundError(
            f"no {family}_loop_bench: set ${LOOP_BENCH_DIR_ENV} (benchmarks/loop_bench_build.py builds it)"
        )
    if family == "mujoco":
        data = str(importlib.resources.files("gymnasium") / "envs" / "mujoco" / "assets")
    elif family == "atari":
        spec = importlib.util.find_spec("ale_py")
        assert spec is not None and spec.submodule_search_locations
        data = os.environ.get("ALE_ROMS_DIR") or str(Path(spec.submodule_search_locations[0]) / "roms")
    else:
        raise ValueError(f"no loop bench for the {family} family")
    out = subprocess.run([str(binary), data, task, str(seconds), str(seed)], check=True, capture_output=True, text=True)
    m = re.search(r"steps_per_s=([0-9.]+)", out.stdout)
    if m is None:
        raise RuntimeError(f"{binary.name} printed no steps_per_s: {out.stdout[-300:]} {out.stderr[-300:]}")
    return float(m.group(1))


@dataclass(frozen=True)
class Engine:
    """One way of running a task, as the harness and the CLI see it.

    `vectorized`: honours `num_envs` (otherwise always one env); `batched`: honours
    `batch_size < num_envs` with a send/recv loop; `threaded`: honours `num_threads`.
    `label`: the mode column, formatted with num_envs; None for pool engines (sync / async).
    `rate`: an engine that times itself (a C++ executable): (task, seconds, seed) -> steps/s,
    used instead of `build`.
    """

    name: str
    description: str
    requires: str
    install_hint: str
    build: Builder | None
    vectorized: bool = True
    batched: bool = False
    threaded: bool = False
    label: str | None = None
    rate: Callable[[str, float, int], float] | None = None
    python_var: str | None = None
    """An environment variable naming the interpreter that runs this engine's workers (an engine
    whose library cannot share envhive's environment); None: this interpreter."""

    def python(self) -> str | None:
        """The interpreter for this engine's workers, if not this one."""
        return os.environ.get(self.python_var) if self.python_var else None

    def available(self) -> str | None:
        """None if the engine can run here, else why it is skipped."""
        if self.python_var:
            python = self.python()
            if not python or not os.access(python, os.X_OK):
                return f"{self.install_hint} (set ${self.python_var} to its interpreter)"
            return None
        if self.name == "envhive-alt":
            alt = os.environ.get(ALT_PYTHON_ENV)
            return None if alt and Path(alt).exists() else f"set ${ALT_PYTHON_ENV} to another build's python"
        if importlib.util.find_spec(self.requires) is None:
            return self.install_hint
        return None

    def mode(self, num_envs: int, batch_size: int) -> str:
        if self.label is not None:
            return self.label.format(num_envs=num_envs)
        return "sync" if batch_size == num_envs else f"async {batch_size}/{num_envs}"


ENGINES: dict[str, Engine] = {
    e.name: e
    for e in (
        Engine(
            "envhive",
            "envhive.make, C++ thread pool",
            "envhive",
            "envhive not importable",
            _build_envhive,
            batched=True,
            threaded=True,
        ),
        Engine(
            "envhive-alt",
            f"envhive of another build (${ALT_PYTHON_ENV}), for before/after runs",
            "envhive",
            f"set ${ALT_PYTHON_ENV}",
            _build_envhive,
            batched=True,
            threaded=True,
        ),
        Engine(
            "envhive-process",
            "envhive.make(backend='process'): worker processes over shared memory",
            "envhive",
            "envhive not importable",
            _build_envhive_process,
            batched=True,
            threaded=True,
        ),
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
            "PufferLib needs its own venv (numpy<2, gymnasium 0.29, pufferlib-core 3.0.x)",
            _build_pufferlib,
            batched=True,
            threaded=True,
            python_var="ENVHIVE_BENCH_PUFFER_PYTHON",
        ),
        Engine(
            "gymnasium-single",
            "gymnasium.make + Python loop (one env, one core)",
            "gymnasium",
            GYMNASIUM_HINT,
            _build_gymnasium_single,
            vectorized=False,
            label="1 env, Python loop",
        ),
        Engine(
            "gymnasium-sync",
            "gymnasium.make_vec(vectorization_mode='sync')",
            "gymnasium",
            GYMNASIUM_HINT,
            _build_gymnasium_vector("sync"),
            label="SyncVectorEnv",
        ),
        Engine(
            "gymnasium-async",
            "gymnasium.make_vec(vectorization_mode='async'), N processes",
            "gymnasium",
            GYMNASIUM_HINT,
            _build_gymnasium_vector("async"),
            label="AsyncVectorEnv, 1 proc/env",
        ),
        Engine(
            "gymnasium-vec",
            "gymnasium.make_vec(vectorization_mode='vector_entry_point')",
            "gymnasium",
            GYMNASIUM_HINT,
            _build_gymnasium_vector("vector_entry_point"),
            label="vector_entry_point",
        ),
        Engine(
            "envpool",
            "envpool.make(env_type='gymnasium'), C++ thread pool",
            "envpool",
            ENVPOOL_HINT,
            _build_envpool,
            batched=True,
            threaded=True,
        ),
        Engine(
            "ale-vec",
            "ale-py AtariVectorEnv, C++ thread pool (Atari tasks)",
            "ale_py",
            "ale-py not installed: pip install 'envhive[atari]'",
            _build_ale_vector,
            batched=True,
            threaded=True,
        ),
        Engine(
            "cpp-loop",
            "one env in a single-thread C++ loop, no pool, no Python (the per-core limit)",
            "envhive",
            "envhive not importable",
            None,
            vectorized=False,
            label="1 env, C++ loop",
            rate=loop_bench_rate,
        ),
    )
}
