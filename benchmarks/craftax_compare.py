"""envhive's Craftax-Classic vs craftax's own JAX loop (jitted, vmapped, on the CPU) and EnvPool
1.2.7's C++ port (Python >= 3.12 only: run in its own interpreter), side by side.

Cases: 8 envs sync and 32 envs async (batch 16), on all cores. Engines: envhive, `craftax-jax`
(craftax 1.6.1's auto-resetting step under jax.jit(jax.vmap(...)) over the same number of envs;
jax 0.10.2, XLA's CPU backend, which uses every core itself) and `envpool-py312` (EnvPool 1.2.7's
Craftax-Classic-Symbolic-v1, whose worker runs in $ENVHIVE_BENCH_ENVPOOL_PYTHON). Random actions
over all 17 actions.

    ENVHIVE_BENCH_ENVPOOL_PYTHON=/work/venv312/bin/python python benchmarks/craftax_compare.py
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from envhive.bench import Case, Settings, compare, format_markdown, format_ratios, parse_engines

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = "Craftax-Classic-Symbolic-v1"
ENGINES = "craftax-jax,envpool-py312"
LABELS = {"craftax-jax": "craftax (jit + vmap, CPU)", "envpool-py312": "EnvPool 1.2.7"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=TASKS, help=f"comma-separated task ids (default {TASKS})")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--compare", default=ENGINES, help=f"engines beside envhive (default {ENGINES})")
    p.add_argument("--out", type=Path, default=RESULTS / "craftax_compare.json", help="JSON results")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)

    threads = a.threads or os.cpu_count() or 1
    engines = parse_engines(a.compare)
    cases = []
    for task in [t.strip() for t in a.tasks.split(",") if t.strip()]:
        cases += [Case(task, 8, 8, threads), Case(task, 32, 16, threads)]
    result = compare(cases, engines, Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats), not a.quiet)
    text = "# Craftax-Classic: envhive vs craftax (JAX) vs EnvPool\n\n" + format_markdown(result)
    text += "\n## envhive's ratios\n\n" + format_ratios(result, [e for e in LABELS if e in engines], LABELS)
    sys.stdout.write(text)
    data = result.to_json()
    data["report"] = text
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for r in result.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
