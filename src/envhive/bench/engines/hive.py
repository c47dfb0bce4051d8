"""envhive's own engines: the native pool, another build's (before/after runs), the process backend,
the dm_env facade, and one env in the family's single-thread C++ loop (the per-core limit)."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from envhive.bench.engines.base import (
    ALT_PYTHON_ENV,
    Engine,
    Runner,
    pool_kwargs,
    pool_runner,
    task_kwargs,
)
from envhive.images import read_render_image

ENVHIVE_HINT = "envhive not importable"
LOOP_BENCH_DIR_ENV = "ENVHIVE_LOOP_BENCH_DIR"


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
    kwargs.update(task_kwargs())
    if num_threads:
        kwargs["num_workers" if backend == "process" else "num_threads"] = num_threads
    env = envhive.make(task, **kwargs)
    runner = pool_runner(env, env.single_action_space, num_envs, batch_size, seed)
    runner.child_pids = list(getattr(env, "worker_pids", []))
    return runner


def _build_envhive_dm(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import envhive

    env = envhive.make_dm(task, batch_size=batch_size, **pool_kwargs(num_envs, num_threads, seed), **task_kwargs())
    return pool_runner(env, env.task_spec.action_space, num_envs, batch_size, seed, dm=True)


def _build_envhive_render(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    """envhive's frames alone: a pool made with render_mode, reset once, then render() of every env
    per call (drawn on the pool's threads, no stepping): the render-only limit of pixel tasks."""
    import envhive

    env = envhive.make(task, render_mode="rgb_array", **pool_kwargs(num_envs, num_threads, seed), **task_kwargs())
    env.reset()
    render = env.render

    def advance(n: int) -> None:
        for _ in range(n):
            render()

    return Runner(advance, env.close, num_envs)


def loop_bench_rate(task: str, seconds: float, seed: int) -> float:
    """Steps/s of one env of `task` in its family's single-thread C++ loop (csrc/core/loop_bench.h):
    the per-core physical limit. The executables `<family>_loop_bench` are looked up in
    $ENVHIVE_LOOP_BENCH_DIR (benchmarks/loop_bench_build.py builds them). They are handed what the
    family's module is handed when it loads: its DATA, and what its descriptor adds for the loop."""
    from envhive import catalog, families  # the measured engine is imported only in its own worker process
    from envhive.catalog.builds import family_data

    info = catalog.get(task)
    family = families.by_task_family().get(info.family)
    name = family.name if family is not None else info.family
    folder = os.environ.get(LOOP_BENCH_DIR_ENV)
    binary = Path(folder or ".") / f"{name}_loop_bench"
    if not folder or not binary.exists():
        raise FileNotFoundError(
            f"no {name}_loop_bench: set ${LOOP_BENCH_DIR_ENV} (benchmarks/loop_bench_build.py builds it)"
        )
    data = family_data(catalog.load(info.module).DATA_DECLARATIONS).get(name, {})
    with tempfile.TemporaryDirectory(prefix="envhive-loop-bench-") as scratch:
        if family is not None and family.loop_bench_data is not None:
            data.update(family.loop_bench_data(info, Path(scratch)))
        if _loop_bench_images(binary, task, data, Path(scratch)):
            data["images_dir"] = scratch
        args = [str(binary), task, str(seconds), str(seed), *(f"{k}={v}" for k, v in data.items())]
        out = subprocess.run(args, check=True, capture_output=True, text=True)
    m = re.search(r"steps_per_s=([0-9.]+)", out.stdout)
    if m is None:
        raise RuntimeError(f"{binary.name} printed no steps_per_s: {out.stdout[-300:]} {out.stderr[-300:]}")
    return float(m.group(1))


def _loop_bench_images(binary: Path, task: str, data: dict[str, str], folder: Path) -> bool:
    """Write the images `task` draws from the start (CarRacing's font, which only pygame makes) into
    `folder`, as `<family>_loop_bench --images TASK` lists them and reads them; True if there are any."""
    data_args = [f"{k}={v}" for k, v in data.items()]
    listing = subprocess.run([str(binary), "--images", task, *data_args], check=True, capture_output=True, text=True)
    lines = listing.stdout.splitlines()
    for line in lines:
        name, source = line.split("\t")
        img = np.ascontiguousarray(read_render_image(source), dtype=np.uint8)
        header = np.array([img.shape[1], img.shape[0]], "<i4").tobytes()
        (folder / (name.replace("/", "__") + ".rgba")).write_bytes(header + img.tobytes())
    return bool(lines)


POOLS = (
    Engine(
        "envhive",
        "envhive.make, C++ thread pool",
        "envhive",
        ENVHIVE_HINT,
        _build_envhive,
        batched=True,
        threaded=True,
        kwargs=True,
    ),
    Engine(
        "envhive-alt",
        f"envhive of another build (${ALT_PYTHON_ENV}), for before/after runs",
        "envhive",
        f"set ${ALT_PYTHON_ENV}",
        _build_envhive,
        batched=True,
        threaded=True,
        kwargs=True,
    ),
    Engine(
        "envhive-process",
        "envhive.make(backend='process'): worker processes over shared memory",
        "envhive",
        ENVHIVE_HINT,
        _build_envhive_process,
        batched=True,
        threaded=True,
    ),
    Engine(
        "envhive-dm",
        "envhive.make_dm, the dm_env facade over the same pool",
        "envhive",
        ENVHIVE_HINT,
        _build_envhive_dm,
        batched=True,
        threaded=True,
        kwargs=True,
    ),
)

RENDER = Engine(
    "envhive-render",
    "envhive.make(render_mode='rgb_array') render() of every env, no stepping (the render-only limit)",
    "envhive",
    ENVHIVE_HINT,
    _build_envhive_render,
    threaded=True,
    label="render() only, {num_envs} envs",
    kwargs=True,
)

CPP_LOOP = Engine(
    "cpp-loop",
    "one env in a single-thread C++ loop, no pool, no Python (the per-core limit)",
    "envhive",
    ENVHIVE_HINT,
    None,
    vectorized=False,
    label="1 env, C++ loop",
    rate=loop_bench_rate,
)
