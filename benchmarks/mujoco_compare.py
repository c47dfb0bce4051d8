"""envhive vs EnvPool vs Gymnasium on MuJoCo tasks, side by side, against the physical limit.

Tasks: Ant-v5, HalfCheetah-v5, Humanoid-v5 (default). Cases per task: num_envs 1 (sync),
num_envs 8 and 32, each sync and async (batch num_envs / 2), on all cores. Engines: envhive, EnvPool
(float64 actions), Gymnasium AsyncVectorEnv (one process per env) and one plain
`gymnasium.make` env in a Python loop, all through the shared harness (`envhive.bench`: fresh
process per run, repetitions interleaved, medians).

The physical limit of a case is min(cores, num_envs) x the steps/s of `mujoco_loop_bench` (the
harness's `cpp-loop` engine, interleaved with the others): one env of the task stepped by a plain
single-threaded C++ loop, no pool and no Python (CMake target behind -DENVHIVE_BUILD_BENCH=ON; this
script builds it into build/loop-bench when it is missing).

    python benchmarks/mujoco_compare.py                       # about 12 min on 2 cores
    python benchmarks/mujoco_compare.py --tasks HalfCheetah-v5 --seconds 3 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from envhive.bench import Case, Settings, compare, format_markdown, format_ratios, parse_engines, with_alt_build
from loop_bench_build import loop_bench_dir

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = "Ant-v5,HalfCheetah-v5,Humanoid-v5"
ENGINES = "envpool,gymnasium-async,gymnasium-single,cpp-loop"
LABELS = {
    "envhive-alt": "envhive (--alt-python)",
    "envpool": "EnvPool",
    "gymnasium-async": "Gym Async",
    "gymnasium-single": "Gym single",
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=TASKS, help=f"comma-separated task ids (default {TASKS})")
    p.add_argument("--num-envs", default="8,32", help="N of the multi-env cases (default 8,32)")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--compare", default=ENGINES, help=f"engines beside envhive (default {ENGINES})")
    p.add_argument("--out", type=Path, default=RESULTS / "mujoco_compare.json", help="JSON results")
    p.add_argument("--alt-python", help="also time another build's envhive (its venv's python) as envhive-alt")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)

    threads = a.threads or os.cpu_count() or 1
    tasks = [t.strip() for t in a.tasks.split(",") if t.strip()]
    sizes = [int(n) for n in a.num_envs.split(",")]
    engines = with_alt_build(parse_engines(a.compare), a.alt_python)
    if "cpp-loop" in engines:
        loop_bench_dir("mujoco_loop_bench")
    cases = []
    for task in tasks:
        cases.append(Case(task, 1, 1, None))  # one env: each engine's default threads (envhive: 1)
        for n in sizes:
            cases += [Case(task, n, n, threads), Case(task, n, max(1, n // 2), threads)]
    result = compare(cases, engines, Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats), not a.quiet)

    text = format_markdown(result)
    text += "\n" + format_ratios(result, [e for e in LABELS if e in engines], LABELS)
    text += "\nPhysical limit = min(cores, num_envs) x one env in a single-thread C++ loop (`cpp-loop`).\n"
    sys.stdout.write(text)
    data = result.to_json()
    data["report"] = text
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for r in result.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
