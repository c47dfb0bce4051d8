"""envhive vs EnvPool vs Gymnasium on a classic-control task, side by side.

Cases: num_envs 1 (sync), num_envs 64 (sync), and num_envs 64 with batch 32 (async).
Engines: envhive, EnvPool, Gymnasium SyncVectorEnv / AsyncVectorEnv, and one plain
`gymnasium.make` env in a Python loop. Prints a markdown table with ratios envhive / engine
and writes the full results (every repetition, machine, versions) as JSON.

    python benchmarks/compare_classic.py                          # about 2-3 min on 2 cores
    python benchmarks/compare_classic.py --seconds 5 --repeats 5  # steadier numbers
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from envhive.bench import (
    Case,
    Settings,
    compare,
    default_threads,
    format_markdown,
    format_ratios,
    parse_engines,
    with_alt_build,
)

RESULTS = Path(__file__).resolve().parent / "results"
ENGINES = "envpool,gymnasium-sync,gymnasium-async,gymnasium-single"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="CartPole-v1")
    p.add_argument("--num-envs", type=int, default=64, help="N of the large cases (default 64)")
    p.add_argument("--batch-size", type=int, default=0, help="async batch (default N/2)")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--compare", default=ENGINES, help=f"engines beside envhive (default {ENGINES})")
    p.add_argument("--out", type=Path, default=RESULTS / "compare_classic.json", help="JSON results")
    p.add_argument("--alt-python", help="also time another build's envhive (its venv's python) as envhive-alt")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)

    threads = a.threads or default_threads()
    n = a.num_envs
    cases = [
        Case(a.task, 1, 1, 1),  # more threads than envs could only idle
        Case(a.task, n, n, threads),
        Case(a.task, n, a.batch_size or max(1, n // 2), threads),
    ]
    settings = Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats)
    engines = with_alt_build(parse_engines(a.compare), a.alt_python)
    result = compare(cases, engines, settings, progress=not a.quiet)

    sys.stdout.write(format_markdown(result))
    sys.stdout.write("\n" + format_ratios(result, [e for e in engines if e != "envhive"]))
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result.to_json(), indent=2) + "\n")
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for r in result.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
