"""envhive's native Box2D tasks vs EnvPool 1.2.5, Gymnasium's own envs on envhive's process backend,
and the single-thread C++ loop, side by side in one run of the envhive.bench harness.

Tasks: LunarLander-v3, BipedalWalker-v3, CarRacing-v3. Cases per task, on 2 threads (2 workers for
the process backend): 8 envs sync, and 32 envs async with batch 16. Each measurement runs in a fresh
process; repetitions are interleaved across engines; medians. The physical limit of a case is
min(threads, num_envs) x the steps/s of `box2d_loop_bench` (the `cpp-loop` engine: one env stepped
by a plain C++ loop, no pool, no Python; built into build/loop-bench when missing).

Targets (issue 32): envhive >= 2x EnvPool, >= 5x the process backend, >= 0.9x the C++ loop x threads.

    python benchmarks/box2d_compare.py                  # ~10 minutes on 2 cores
    python benchmarks/box2d_compare.py --tasks CarRacing-v3 --seconds 3 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from envhive.bench import Case, Settings, compare, format_markdown, format_ratios, parse_engines
from loop_bench_build import loop_bench_dir

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = "LunarLander-v3,BipedalWalker-v3,CarRacing-v3"
ENGINES = "envpool,envhive-process,cpp-loop"
LABELS = {"envpool": "EnvPool 1.2.5", "envhive-process": "process backend"}
TARGETS = {"envpool": 2.0, "envhive-process": 5.0}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=TASKS, help=f"comma-separated task ids (default {TASKS})")
    p.add_argument("--threads", type=int, default=2, help="pool threads / process workers (default 2)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--compare", default=ENGINES, help=f"engines beside envhive (default {ENGINES})")
    p.add_argument("--out", type=Path, default=RESULTS / "box2d_compare.json", help="JSON results")
    p.add_argument("--markdown", type=Path, default=None, help="also write the report here (e.g. results/...md)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)

    tasks = [t.strip() for t in a.tasks.split(",") if t.strip()]
    engines = parse_engines(a.compare)
    if "cpp-loop" in engines:
        loop_bench_dir("box2d_loop_bench")
    cases = []
    for task in tasks:
        cases += [Case(task, 8, 8, a.threads), Case(task, 32, 16, a.threads)]
    load_before = os.getloadavg()
    result = compare(cases, engines, Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats), not a.quiet)
    load_after = os.getloadavg()

    text = format_markdown(result)
    text += "\n" + format_ratios(result, [e for e in LABELS if e in engines], LABELS)
    text += (
        f"\nPhysical limit = min(threads, num_envs) x one env in a single-thread C++ loop (`cpp-loop`).\n"
        f"Targets: envhive >= {TARGETS['envpool']}x EnvPool, >= {TARGETS['envhive-process']}x the process backend, "
        f">= 0.9x the physical limit.\n"
        f"Load average (1, 5, 15 min) before: {', '.join(f'{v:.1f}' for v in load_before)}; "
        f"after: {', '.join(f'{v:.1f}' for v in load_after)} ({os.cpu_count()} cores, shared machine).\n"
    )
    sys.stdout.write(text)
    data = result.to_json()
    data["report"] = text
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    if a.markdown:
        a.markdown.write_text(text)
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for r in result.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
