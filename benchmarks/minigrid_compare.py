"""envhive vs EnvPool vs minigrid's own Python env on MiniGrid and BabyAI tasks, side by side,
against the physical limit.

Tasks: MiniGrid-DoorKey-8x8-v0, MiniGrid-KeyCorridorS3R3-v0, MiniGrid-MultiRoom-N6-v0 and
BabyAI-GoToLocal-v0 (default). Cases per task: 8 envs sync and 32 envs async (batch 16), on all
cores. Engines: envhive (its default observation: minigrid's Dict, the mission as text bytes),
EnvPool 1.2.5 (its own Dict of direction, image and mission bytes), and minigrid's env through
`gymnasium.make` in a Python loop (one env, one core), all through the shared harness
(`envhive.bench`: each run in a fresh process, repetitions interleaved, medians). Random actions
over all 7 actions, so episodes end (and reset) at minigrid's time limits mostly.

The physical limit of a case is min(cores, num_envs) x the steps/s of `minigrid_loop_bench` (the
harness's `cpp-loop` engine): one env stepped by a plain single-threaded C++ loop, its observation
written every step, no pool and no Python (built by this script into build/loop-bench when missing).

    python benchmarks/minigrid_compare.py                   # about 6 min on 2 cores
    python benchmarks/minigrid_compare.py --tasks BabyAI-BossLevel-v0 --repeats 5
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
TASKS = "MiniGrid-DoorKey-8x8-v0,MiniGrid-KeyCorridorS3R3-v0,MiniGrid-MultiRoom-N6-v0,BabyAI-GoToLocal-v0"
ENGINES = "envpool,gymnasium-single,cpp-loop"
LABELS = {"envhive-alt": "envhive (--alt-python)", "envpool": "EnvPool", "gymnasium-single": "minigrid (1 env, Python)"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=TASKS, help=f"comma-separated task ids (default {TASKS})")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--compare", default=ENGINES, help=f"engines beside envhive (default {ENGINES})")
    p.add_argument("--out", type=Path, default=RESULTS / "minigrid_compare.json", help="JSON results")
    p.add_argument("--alt-python", help="also time another build's envhive (its venv's python) as envhive-alt")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)

    threads = a.threads or os.cpu_count() or 1
    engines = with_alt_build(parse_engines(a.compare), a.alt_python)
    if "cpp-loop" in engines:
        loop_bench_dir("minigrid_loop_bench")
    cases = []
    for task in [t.strip() for t in a.tasks.split(",") if t.strip()]:
        cases += [Case(task, 8, 8, threads), Case(task, 32, 16, threads)]
    result = compare(cases, engines, Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats), not a.quiet)

    text = "# MiniGrid and BabyAI: envhive vs EnvPool vs minigrid\n\n" + format_markdown(result)
    text += "\n## envhive's ratios\n\n" + format_ratios(result, [e for e in LABELS if e in engines], LABELS)
    text += (
        f"\nminigrid's column compares the whole pool ({threads} threads) with one Python env on one core;"
        f" per core, divide it by {threads}.\n"
        "Physical limit = min(cores, num_envs) x one env in a single-thread C++ loop (`cpp-loop`).\n"
    )
    sys.stdout.write(text)
    data = result.to_json()
    data["report"] = text
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for r in result.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
