"""envhive's Crafter vs crafter's own Python loop, side by side.

Tasks: CrafterReward-v1 (default). Cases: 8 envs sync and 32 envs async (batch 16), on all cores.
Engines: envhive, crafter 1.8.3's own Env stepped in a Python loop (one env, one core;
`gymnasium-single`) and in Gymnasium's AsyncVectorEnv (`gymnasium-async`), both through the Gymnasium
adapter the family's `reference_id` registers, and the single-thread C++ loop (`cpp-loop`), through
the shared harness (`envhive.bench`: each run in a fresh process,
repetitions interleaved, medians). Random actions over all 17 actions, so episodes end (and reset)
by death every ~150 steps: resets, with their world generation, are part of the rate. EnvPool has
no Crafter.

    python benchmarks/crafter_compare.py                 # about 2 min on 2 cores
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from envhive.bench import Case, Settings, compare, format_markdown, format_ratios, parse_engines

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = "CrafterReward-v1"
ENGINES = "gymnasium-single,gymnasium-async,cpp-loop"
TARGET_PER_CORE = 20.0  # issue 43
LABELS = {"gymnasium-single": "crafter (1 env, Python)", "gymnasium-async": "crafter in AsyncVectorEnv"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=TASKS, help=f"comma-separated task ids (default {TASKS})")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--compare", default=ENGINES, help=f"engines beside envhive (default {ENGINES})")
    p.add_argument("--out", type=Path, default=RESULTS / "crafter_compare.json", help="JSON results")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)

    threads = a.threads or os.cpu_count() or 1
    engines = parse_engines(a.compare)
    cases = []
    for task in [t.strip() for t in a.tasks.split(",") if t.strip()]:
        cases += [Case(task, 8, 8, threads), Case(task, 32, 16, threads)]
    load = [", ".join(f"{v:.1f}" for v in os.getloadavg())]
    result = compare(cases, engines, Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats), not a.quiet)

    text = "# Crafter: envhive vs crafter's own loop\n\n" + format_markdown(result)
    text += "\n## envhive's ratios\n\n" + format_ratios(result, [e for e in LABELS if e in engines], LABELS)
    text += (
        f"\n## Per core (target: envhive >= {TARGET_PER_CORE}x crafter's own loop per core)\n\n"
        "| task | num_envs | mode | envhive steps/s / threads | crafter 1 env | per thread | "
        "envhive / crafter per CPU-second | met |\n|---|---:|---|---:|---:|---:|---:|---|\n"
    )
    for case in cases:
        h = result.results[case.measurement("envhive")]
        c = result.results[case.measurement("gymnasium-single")] if "gymnasium-single" in engines else None
        if h.steps_per_s and c and c.steps_per_s:
            r = h.steps_per_s / threads / c.steps_per_s
            # steps per CPU-second: steps/s over the cores the process used (what load bends least)
            rc = (h.steps_per_s / h.cpu_cores) / (c.steps_per_s / c.cpu_cores) if h.cpu_cores and c.cpu_cores else None
            mode = "sync" if case.batch == case.num_envs else f"async {case.batch}/{case.num_envs}"
            met = "yes" if min(r, rc or r) >= TARGET_PER_CORE else "no"
            per_cpu = f"{rc:.1f}x" if rc else "-"
            text += (f"| {case.task} | {case.num_envs} | {mode} | {h.steps_per_s / threads:,.0f} | "
                     f"{c.steps_per_s:,.0f} | {r:.1f}x | {per_cpu} | {met} |\n")  # fmt: skip
    after = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    text += f"\nLoad average (1, 5, 15 min) before: {load[0]}; after: {after}.\n"
    sys.stdout.write(text)
    data = result.to_json()
    data["report"] = text
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for r in result.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
