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
    """The Gymnasium id of an envhive task: the same name (ALE tasks live under `ALE/`; minigrid's
    ids exist once minigrid is imported)."""
    import gymnasium

    if task in gymnasium.registry:
        return task
    if task.startswith(("MiniGrid-", "BabyAI-")):  # minigrid registers its ids when imported
        if importlib.util.find_spec("minigrid") is not None:
            importlib.import_module("minigrid")
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


def _build_envhive_dm(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import envhive

    kwargs: dict[str, Any] = {"num_envs": num_envs, "batch_size": batch_size, "seed": seed}
    if num_threads:
        kwargs["num_threads"] = num_threads
    env = envhive.make_dm(task, **kwargs)
    space = env.task_spec.action_space
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
            recv()
            send(a, env.last_info["env_id"])

    return Runner(advance_async, env.close, batch_size)


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
    family = "minigrid" if family == "babyai" else family  # one executable runs both
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
    elif family == "minigrid":
        data = "-"  # the family reads no files
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
            "envhive-dm",
            "envhive.make_dm, the dm_env facade over the same pool",
            "envhive",
            "envhive not importable",
            _build_envhive_dm,
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
            "PufferLib needs its own venv (numpy<2, gymnasium 0.29, pufferlib-core 3.0.x): make bench-puffer",
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


# ---------------------------------------------------------------------------------------------
# Trainers' env APIs (benchmarks/adapters_compare.py): envhive through envhive.adapters.<trainer>
# against the trainer's own default vectoriser, stepping with random actions. The trainers are
# imported only inside `build`, in the worker process.


def reference_env_fn(task: str) -> Callable[[], gymnasium.Env[Any, Any]]:
    """A function making the Gymnasium env that matches envhive's task: the same id, and for
    Atari EnvPool's defaults (frame skip 4 with max-pooling, 84x84 gray, 4 stacked frames, up to
    30 no-ops, no sticky actions), as benchmarks/atari_compare.py builds them."""
    import gymnasium

    gid = gymnasium_id(task)
    if not gid.startswith("ALE/"):
        return lambda: gymnasium.make(gid)

    def make_atari() -> gymnasium.Env[Any, Any]:
        import ale_py
        from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

        gymnasium.register_envs(ale_py)  # also in a subprocess vectoriser's child processes
        env = gymnasium.make(gid, frameskip=1, repeat_action_probability=0.0)
        env = AtariPreprocessing(env, noop_max=30, frame_skip=4, screen_size=84, grayscale_obs=True)
        return FrameStackObservation(env, 4)

    return make_atari


def _loop(step: Callable[[Any], Any], actions: Iterator[Any]) -> Callable[[int], None]:
    def advance(n: int) -> None:
        for a in islice(actions, n):
            step(a)

    return advance


def _pool_kwargs(num_envs: int, num_threads: int | None, seed: int) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"num_envs": num_envs, "seed": seed}
    if num_threads:
        kwargs["num_threads"] = num_threads
    return kwargs


def _build_sb3_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from envhive.adapters.sb3 import make_vec_env

    venv = make_vec_env(task, **_pool_kwargs(num_envs, num_threads, seed))
    venv.reset()
    return Runner(_loop(venv.step, action_pool(venv.action_space, num_envs, seed)), venv.close, num_envs)


def _build_sb3_reference(subproc: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

        fns = [reference_env_fn(task) for _ in range(num_envs)]
        venv = SubprocVecEnv(fns) if subproc else DummyVecEnv(fns)
        venv.seed(seed)
        venv.reset()
        pids = [p.pid for p in getattr(venv, "processes", []) if p.pid is not None]
        return Runner(_loop(venv.step, action_pool(venv.action_space, num_envs, seed)), venv.close, num_envs, pids)

    return build


def _torchrl_loop(env: Any, num_envs: int, seed: int) -> Runner:
    import torch

    space = env.action_spec
    torch.manual_seed(seed)
    actions = cycle([space.rand() for _ in range(POOL_BATCHES)])
    td = env.reset()
    step = env.step_and_maybe_reset

    def advance(n: int) -> None:
        nonlocal td
        for a in islice(actions, n):
            td["action"] = a
            _, td = step(td)

    return Runner(advance, env.close, num_envs)


def _build_torchrl_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from envhive.adapters.torchrl import make_env

    env = make_env(task, categorical_action_encoding=True, **_pool_kwargs(num_envs, num_threads, seed))
    return _torchrl_loop(env, num_envs, seed)


def _build_torchrl_reference(parallel: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        from torchrl.envs import GymWrapper, ParallelEnv, SerialEnv

        make = reference_env_fn(task)

        def make_env() -> Any:
            return GymWrapper(make(), categorical_action_encoding=True)

        env = (ParallelEnv if parallel else SerialEnv)(num_envs, make_env)
        env.set_seed(seed)
        runner = _torchrl_loop(env, num_envs, seed)
        runner.child_pids = [w.pid for w in getattr(env, "_workers", []) if getattr(w, "pid", None)]
        return runner

    return build


def _build_rllib_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from gymnasium.wrappers.vector import DictInfoToList

    from envhive.adapters.rllib import make_runner_env

    config: dict[str, Any] = {"num_envs": num_envs}
    if num_threads:
        config["num_threads"] = num_threads
    env = DictInfoToList(make_runner_env(task, config))  # what an RLlib EnvRunner steps
    env.reset(seed=seed)
    return Runner(_loop(env.step, action_pool(env.single_action_space, num_envs, seed)), env.close, num_envs)


def _build_rllib_reference(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import gymnasium
    from gymnasium.wrappers.vector import DictInfoToList

    # RLlib's default: gym_env_vectorize_mode="sync", a SyncVectorEnv of single envs.
    env = DictInfoToList(gymnasium.vector.SyncVectorEnv([reference_env_fn(task) for _ in range(num_envs)]))
    env.reset(seed=seed)
    return Runner(_loop(env.step, action_pool(env.single_action_space, num_envs, seed)), env.close, num_envs)


def _build_rl_games_envhive(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from envhive.adapters.rl_games import RlGamesVecEnv

    kwargs = _pool_kwargs(num_envs, num_threads, seed)
    env = RlGamesVecEnv("envhive", kwargs.pop("num_envs"), env_name=task, **kwargs)
    env.reset()
    space = env.get_env_info()["action_space"]
    return Runner(_loop(env.step, action_pool(space, num_envs, seed)), env.close, num_envs)


def _build_rl_games_envpool(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    from rl_games.envs.envpool import Envpool

    kwargs: dict[str, Any] = {"seed": seed}
    if num_threads:
        kwargs["num_threads"] = num_threads
    env = Envpool("envpool", num_envs, env_name=task, env_type="gymnasium", **kwargs)
    env.reset()
    return Runner(_loop(env.step, action_pool(env.action_space, num_envs, seed)), env.env.close, num_envs)


TRAINER_ENGINES = (
    Engine(
        "sb3-envhive",
        "SB3 VecEnv: envhive.adapters.sb3",
        "stable_baselines3",
        "pip install 'envhive[sb3]'",
        _build_sb3_envhive,
        threaded=True,
        label="SB3VecEnv",
    ),
    Engine(
        "sb3-dummy",
        "SB3 DummyVecEnv of gymnasium.make",
        "stable_baselines3",
        "pip install 'envhive[sb3]'",
        _build_sb3_reference(False),
        label="DummyVecEnv",
    ),
    Engine(
        "sb3-subproc",
        "SB3 SubprocVecEnv of gymnasium.make, 1 proc/env",
        "stable_baselines3",
        "pip install 'envhive[sb3]'",
        _build_sb3_reference(True),
        label="SubprocVecEnv",
    ),
    Engine(
        "torchrl-envhive",
        "TorchRL EnvBase: envhive.adapters.torchrl",
        "torchrl",
        "pip install 'envhive[torchrl]'",
        _build_torchrl_envhive,
        threaded=True,
        label="TorchRLEnv",
    ),
    Engine(
        "torchrl-serial",
        "TorchRL SerialEnv of GymWrapper(gymnasium.make)",
        "torchrl",
        "pip install 'envhive[torchrl]'",
        _build_torchrl_reference(False),
        label="SerialEnv",
    ),
    Engine(
        "torchrl-parallel",
        "TorchRL ParallelEnv of GymWrapper(gymnasium.make), 1 proc/env",
        "torchrl",
        "pip install 'envhive[torchrl]'",
        _build_torchrl_reference(True),
        label="ParallelEnv",
    ),
    Engine(
        "rllib-envhive",
        "RLlib EnvRunner env: DictInfoToList(envhive.adapters.rllib)",
        "ray",
        "pip install 'envhive[rllib]'",
        _build_rllib_envhive,
        threaded=True,
        label="envhive pool",
    ),
    Engine(
        "rllib-gymnasium",
        "RLlib's default: DictInfoToList(SyncVectorEnv of gymnasium.make)",
        "ray",
        "pip install 'envhive[rllib]'",
        _build_rllib_reference,
        label="SyncVectorEnv",
    ),
    Engine(
        "rl_games-envhive",
        "rl_games vecenv: envhive.adapters.rl_games",
        "rl_games",
        "pip install 'envhive[rl-games]'",
        _build_rl_games_envhive,
        threaded=True,
        label="ENVHIVE",
    ),
    Engine(
        "rl_games-envpool",
        "rl_games' envpool vecenv over EnvPool 1.2.5",
        "envpool",
        "pip install 'envhive[rl-games,bench]'",
        _build_rl_games_envpool,
        threaded=True,
        label="envpool",
    ),
)
ENGINES.update({e.name: e for e in TRAINER_ENGINES})


# ---------------------------------------------------------------------------------------------
# Trainers' PPO (benchmarks/adapters_compare.py --part train): one call is one PPO iteration
# (collect a rollout, update), worth its rollout's env steps; envhive vs the trainer's default.
# Torch runs one thread on both sides (small MLPs; no spinning thread pool beside the envs).

SB3_PPO: dict[str, Any] = {
    "n_steps": 32,
    "batch_size": 256,
    "gae_lambda": 0.8,
    "gamma": 0.98,
    "n_epochs": 20,
    "ent_coef": 0.0,
}


def _build_sb3_ppo(hive: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        import torch
        from stable_baselines3 import PPO

        torch.set_num_threads(1)
        if hive:
            venv = _build_sb3_venv(task, num_envs, num_threads, seed)
        else:
            from stable_baselines3.common.vec_env import DummyVecEnv

            venv = DummyVecEnv([reference_env_fn(task) for _ in range(num_envs)])
        model = PPO("MlpPolicy", venv, seed=seed, device="cpu", **SB3_PPO)
        rollout = int(SB3_PPO["n_steps"]) * num_envs

        def advance(n: int) -> None:
            model.learn(total_timesteps=n * rollout, reset_num_timesteps=False)

        return Runner(advance, venv.close, rollout)

    return build


def _build_sb3_venv(task: str, num_envs: int, num_threads: int | None, seed: int) -> Any:
    from envhive.adapters.sb3 import make_vec_env

    return make_vec_env(task, **_pool_kwargs(num_envs, num_threads, seed))


def rl_games_ppo_params(env_name: str, env_config: dict[str, Any], num_actors: int, seed: int) -> dict[str, Any]:
    """rl_games' own configs/ppo_cartpole.yaml on CPU (torch.compile off, one torch thread)."""
    return {
        "params": {
            "seed": seed,
            "torch_threads": 1,
            "algo": {"name": "a2c_discrete"},
            "model": {"name": "discrete_a2c"},
            "network": {
                "name": "actor_critic",
                "separate": True,
                "space": {"discrete": {}},
                "mlp": {"units": [32, 32], "activation": "relu", "initializer": {"name": "default"}},
            },
            "config": {
                "name": "bench",
                "env_name": env_name,
                "env_config": env_config,
                "reward_shaper": {"scale_value": 0.1},
                "normalize_advantage": True,
                "gamma": 0.99,
                "tau": 0.9,
                "learning_rate": 2e-4,
                "score_to_win": 1e9,
                "grad_norm": 1.0,
                "entropy_coef": 0.01,
                "truncate_grads": True,
                "e_clip": 0.2,
                "clip_value": True,
                "num_actors": num_actors,
                "horizon_length": 32,
                "minibatch_size": 64,
                "mini_epochs": 4,
                "critic_coef": 1,
                "lr_schedule": None,
                "kl_threshold": 0.008,
                "normalize_input": False,
                "device": "cpu",
                "multi_gpu": False,
                "max_epochs": 10**9,
                "train_dir": "rl_games_runs",
                "torch_compile": False,
            },
        }
    }


def _build_rl_games_ppo(hive: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        from rl_games.torch_runner import Runner as RlGamesRunner

        if hive:
            from envhive.adapters import rl_games as hive_rl_games

            env_name = hive_rl_games.register()
            env_config: dict[str, Any] = {"env_name": task}
            if num_threads:
                env_config["num_threads"] = num_threads
        else:
            env_name, env_config = "envpool", {"env_name": task, "env_type": "gymnasium"}
        runner = RlGamesRunner()
        runner.load(rl_games_ppo_params(env_name, env_config, num_envs, seed))
        agent = runner.algo_factory.create(runner.algo_name, base_name="run", params=runner.params)
        agent.init_tensors()
        agent.obs = agent.env_reset()
        agent.curr_frames = agent.batch_size_envs

        def advance(n: int) -> None:
            for _ in range(n):
                agent.update_epoch()
                agent.train_epoch()
                agent.dataset.update_values_dict(None)

        return Runner(advance, lambda: None, agent.horizon_length * num_envs)

    return build


RLLIB_BATCH = 1000


def _build_rllib_ppo(hive: bool) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        import ray
        from ray.rllib.algorithms.ppo import PPOConfig

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        if hive:
            import envhive.adapters.rllib  # noqa: F401  (registers the envhive/ ids for the EnvRunners)

            env, mode = f"envhive/{task}", "vector_entry_point"
        else:
            env, mode = gymnasium_id(task), "sync"  # RLlib's default vectorisation
        config = (
            PPOConfig()
            .environment(env)
            .env_runners(
                num_env_runners=2,
                num_envs_per_env_runner=num_envs // 2,
                gym_env_vectorize_mode=mode,
                num_cpus_per_env_runner=0.5,
            )
            .learners(num_cpus_per_learner=0.5)
            .training(train_batch_size_per_learner=RLLIB_BATCH, minibatch_size=250, num_epochs=5)
            .debugging(seed=seed)
        )
        algo = config.build_algo()
        algo.train()  # the first iteration includes the runners' start-up

        def advance(n: int) -> None:
            for _ in range(n):
                algo.train()

        def close() -> None:
            algo.stop()
            ray.shutdown()

        return Runner(advance, close, RLLIB_BATCH)

    return build


TORCHRL_PPO = {"frames_per_batch": 1024, "epochs": 4, "minibatch": 256}


def _build_torchrl_ppo(hive: bool) -> Builder:
    """A minimal TorchRL PPO (TorchRL has no PPO trainer class): its Collector, GAE and ClipPPOLoss."""

    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        import torch
        from tensordict.nn import TensorDictModule
        from torchrl.collectors import Collector
        from torchrl.envs import GymWrapper, SerialEnv
        from torchrl.modules import MLP, OneHotCategorical, ProbabilisticActor, ValueOperator
        from torchrl.objectives import ClipPPOLoss
        from torchrl.objectives.value import GAE

        torch.set_num_threads(1)
        torch.manual_seed(seed)
        if hive:
            from envhive.adapters.torchrl import make_env

            env = make_env(task, **_pool_kwargs(num_envs, num_threads, seed))
        else:
            make = reference_env_fn(task)
            env = SerialEnv(num_envs, lambda: GymWrapper(make()))  # one-hot actions, as make_env
            env.set_seed(seed)
        n_obs = env.observation_spec["observation"].shape[-1]
        n_act = env.action_spec.shape[-1]
        logits = TensorDictModule(
            MLP(in_features=n_obs, out_features=n_act, num_cells=[64, 64]), ["observation"], ["logits"]
        )
        actor = ProbabilisticActor(
            logits, in_keys=["logits"], distribution_class=OneHotCategorical, spec=env.action_spec, return_log_prob=True
        )
        critic = ValueOperator(MLP(in_features=n_obs, out_features=1, num_cells=[64, 64]), in_keys=["observation"])
        loss = ClipPPOLoss(actor, critic, entropy_coeff=0.0)
        gae = GAE(gamma=0.99, lmbda=0.95, value_network=critic)
        optim = torch.optim.Adam(loss.parameters(), lr=3e-4)
        frames = TORCHRL_PPO["frames_per_batch"]
        collector = Collector(env, actor, frames_per_batch=frames, total_frames=-1)
        batches = iter(collector)

        def advance(n: int) -> None:
            for _ in range(n):
                data = next(batches)
                with torch.no_grad():
                    gae(data)
                flat = data.reshape(-1)
                for _ in range(TORCHRL_PPO["epochs"]):
                    for idx in torch.randperm(flat.numel()).split(TORCHRL_PPO["minibatch"]):
                        losses = loss(flat[idx])
                        total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                        optim.zero_grad()
                        total.backward()
                        optim.step()
                collector.update_policy_weights_()

        return Runner(advance, collector.shutdown, frames)

    return build


PPO_ENGINES = (
    Engine(
        "sb3-ppo-envhive",
        "SB3 PPO on envhive.adapters.sb3",
        "stable_baselines3",
        "pip install 'envhive[sb3]'",
        _build_sb3_ppo(True),
        threaded=True,
        label="PPO, SB3VecEnv",
    ),
    Engine(
        "sb3-ppo-dummy",
        "SB3 PPO on DummyVecEnv (SB3's make_vec_env default)",
        "stable_baselines3",
        "pip install 'envhive[sb3]'",
        _build_sb3_ppo(False),
        label="PPO, DummyVecEnv",
    ),
    Engine(
        "rl_games-ppo-envhive",
        "rl_games PPO on the ENVHIVE vecenv",
        "rl_games",
        "pip install 'envhive[rl-games]'",
        _build_rl_games_ppo(True),
        threaded=True,
        label="PPO, ENVHIVE",
    ),
    Engine(
        "rl_games-ppo-envpool",
        "rl_games PPO on its envpool vecenv (EnvPool 1.2.5)",
        "envpool",
        "pip install 'envhive[rl-games,bench]'",
        _build_rl_games_ppo(False),
        label="PPO, envpool",
    ),
    Engine(
        "rllib-ppo-envhive",
        "RLlib PPO, 2 EnvRunners on envhive ids (vector_entry_point)",
        "ray",
        "pip install 'envhive[rllib]'",
        _build_rllib_ppo(True),
        label="PPO, envhive",
    ),
    Engine(
        "rllib-ppo-gymnasium",
        "RLlib PPO, 2 EnvRunners, RLlib's default sync vectorisation",
        "ray",
        "pip install 'envhive[rllib]'",
        _build_rllib_ppo(False),
        label="PPO, SyncVectorEnv",
    ),
    Engine(
        "torchrl-ppo-envhive",
        "TorchRL Collector + ClipPPOLoss on envhive.adapters.torchrl",
        "torchrl",
        "pip install 'envhive[torchrl]'",
        _build_torchrl_ppo(True),
        threaded=True,
        label="PPO, TorchRLEnv",
    ),
    Engine(
        "torchrl-ppo-serial",
        "TorchRL Collector + ClipPPOLoss on SerialEnv of GymWrapper",
        "torchrl",
        "pip install 'envhive[torchrl]'",
        _build_torchrl_ppo(False),
        label="PPO, SerialEnv",
    ),
)
ENGINES.update({e.name: e for e in PPO_ENGINES})
