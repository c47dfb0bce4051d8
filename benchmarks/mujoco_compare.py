"""envhive vs EnvPool vs Gymnasium on MuJoCo tasks, side by side, against the physical limit.

Tasks: Ant-v5, HalfCheetah-v5, Humanoid-v5 (default). Cases per task: num_envs 1 (sync),
num_envs 8 and 32, each sync and async (batch num_envs / 2), on all cores. Engines: envhive, EnvPool
(float64 actions), Gymnasium AsyncVectorEnv (one process per env) and one plain
`gymnasium.make` env in a Python loop, all through the shared harness (`envhive.bench`: fresh
process per run, repetitions interleaved, medians).

The physical limit of a case is min(cores, num_envs) x the steps/s of `mujoco_loop_bench`: one
env of the task stepped by a plain single-threaded C++ loop, no pool and no Python (CMake
target behind -DENVHIVE_BUILD_BENCH=ON; this script builds it into build/mujoco-bench when it is
missing). With --no-loop-bench the limit is measured through envhive itself (num_envs=1,
num_threads=1), which includes envhive's per-call overhead and so flatters the ratio.

    python benchmarks/mujoco_compare.py                       # about 12 min on 2 cores
    python benchmarks/mujoco_compare.py --tasks HalfCheetah-v5 --seconds 3 --repeats 5
"""

from __future__ import annotations

import argparse
import importlib.resources
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from envhive.bench import Case, Comparison, Settings, compare, format_markdown, parse_engines
from loop_bench_build import loop_bench_binary as build_loop_bench

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
BENCH_BUILD = ROOT / "build" / "mujoco-bench"
TASKS = "Ant-v5,HalfCheetah-v5,Humanoid-v5"
ENGINES = "envpool,gymnasium-async,gymnasium-single"


def loop_bench_binary(path: Path | None) -> Path | None:
    """mujoco_loop_bench: the given one, or build/mujoco-bench's (built if needed)."""
    return build_loop_bench("mujoco_loop_bench", BENCH_BUILD, path, ())


def loop_rate(binary: Path, task: str, seconds: float, repeats: int) -> tuple[float, list[float]]:
    """Median steps/s of the single-threaded C++ loop over `repeats` fresh processes."""
    assets = importlib.resources.files("gymnasium") / "envs" / "mujoco" / "assets"
    samples = []
    for rep in range(repeats):
        out = subprocess.run(
            [str(binary), str(assets), task, str(seconds), str(rep)], check=True, capture_output=True, text=True
        ).stdout
        samples.append(float(re.search(r"steps_per_s=([0-9.]+)", out).group(1)))
    return statistics.median(samples), samples


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "—"


def summary_table(result: Comparison, limits: dict[str, float], cores: int) -> str:
    """One row per case: envhive steps/s and its ratios to each reference."""
    lines = [
        "| task | num_envs | mode | envhive steps/s | / EnvPool | / physical limit | / Gym Async | / Gym single |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for case in result.cases:
        rows = {r.engine: r for r in result.rows(case)}
        hive = rows["envhive"].steps_per_s
        limit = limits.get(case.task, 0.0) * min(cores, case.num_envs)

        def sps(engine: str, rows: dict = rows) -> float | None:
            return rows[engine].steps_per_s if engine in rows else None

        lines.append(
            f"| {case.task} | {case.num_envs} | {rows['envhive'].mode} | "
            f"{'—' if hive is None else format(hive, ',.0f')} | {ratio(hive, sps('envpool'))} | "
            f"{ratio(hive, limit)} | {ratio(hive, sps('gymnasium-async'))} | {ratio(hive, sps('gymnasium-single'))} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=TASKS, help=f"comma-separated task ids (default {TASKS})")
    p.add_argument("--num-envs", default="8,32", help="N of the multi-env cases (default 8,32)")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--compare", default=ENGINES, help=f"engines beside envhive (default {ENGINES})")
    p.add_argument("--loop-bench", type=Path, default=None, help="path of a built mujoco_loop_bench")
    p.add_argument("--no-loop-bench", action="store_true", help="limit from envhive num_envs=1 instead")
    p.add_argument("--out", type=Path, default=RESULTS / "mujoco_compare.json", help="JSON results")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)

    cores = os.cpu_count() or 1
    threads = a.threads or cores
    tasks = [t.strip() for t in a.tasks.split(",") if t.strip()]
    sizes = [int(n) for n in a.num_envs.split(",")]
    cases = []
    for task in tasks:
        cases.append(Case(task, 1, 1, None))  # one env: each engine's default threads (envhive: 1)
        for n in sizes:
            cases += [Case(task, n, n, threads), Case(task, n, max(1, n // 2), threads)]
    binary = None if a.no_loop_bench else loop_bench_binary(a.loop_bench)
    settings = Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats)
    result = compare(cases, parse_engines(a.compare), settings, progress=not a.quiet)

    limits: dict[str, float] = {}
    limit_samples: dict[str, list[float]] = {}
    if binary is not None:
        for task in tasks:
            limits[task], limit_samples[task] = loop_rate(binary, task, a.seconds, a.repeats)
    else:  # the fallback: envhive itself with one env on one thread
        single = [Case(task, 1, 1, 1) for task in tasks]
        fallback = compare(single, ["envhive"], settings, progress=not a.quiet)
        for case in single:
            limits[case.task] = fallback.results[case.measurement("envhive")].steps_per_s or 0.0
    how = "mujoco_loop_bench (C++ loop, no pool, no Python)" if binary else "envhive num_envs=1 num_threads=1"

    sys.stdout.write(format_markdown(result))
    sys.stdout.write("\nSingle-thread limit per task (" + how + "), steps/s: ")
    sys.stdout.write(", ".join(f"{t} {v:,.0f}" for t, v in limits.items()))
    sys.stdout.write(f"; physical limit = min({cores} cores, num_envs) x that.\n\n")
    sys.stdout.write(summary_table(result, limits, cores))

    data = result.to_json()
    data["physical_limit"] = {
        "method": how,
        "cores": cores,
        "single_thread_steps_per_s": limits,
        "samples": limit_samples,
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for r in result.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
