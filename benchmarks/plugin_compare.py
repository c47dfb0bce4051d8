"""The template plug-in's C++ CartPole (mypkg/CartPole-v1, built with the SDK) against the built-in
CartPole-v1, on the same pool: the harness's `envhive` engine on both tasks (each measurement in a
fresh process, repetitions interleaved), medians and their pairwise ratio per num_envs.

    pip install --no-build-isolation templates/cpp-family      # or put its install folder on PYTHONPATH
    python benchmarks/plugin_compare.py [--num-envs 1 64] [--repeats 5] [--seconds 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from envhive.bench import Case, Result, Settings, compare

BUILTIN = "CartPole-v1"
PLUGIN = "mypkg/CartPole-v1"


def samples(result: Result) -> list[float]:
    if not result.ok:
        raise SystemExit(f"{result.measurement.task}: {result.skipped or result.error}")
    return [float(s["steps_per_s"]) for s in result.samples]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar on stderr")
    args = parser.parse_args()
    settings = Settings(seconds=args.seconds, warmup=0.5, repeats=args.repeats)
    cases = {n: (Case(BUILTIN, n), Case(PLUGIN, n)) for n in args.num_envs}
    load = os.getloadavg()[0]
    result = compare([c for pair in cases.values() for c in pair], ["envhive"], settings, progress=not args.quiet)
    print(f"load average {load:.1f}; {args.repeats} interleaved repetitions of {args.seconds} s")
    print("| num_envs | CartPole-v1 (built-in) steps/s | mypkg/CartPole-v1 (plug-in) steps/s | plug-in / built-in |")
    print("|---:|---:|---:|---:|")
    for n, (builtin, plugin) in cases.items():
        b = samples(result.results[builtin.measurement("envhive")])
        p = samples(result.results[plugin.measurement("envhive")])
        ratios = [pi / bi for pi, bi in zip(p, b, strict=True)]  # pairwise: the same repetition
        spread = f"pairs {min(ratios):.2f}-{max(ratios):.2f}"
        print(
            f"| {n} | {statistics.median(b):,.0f} | {statistics.median(p):,.0f} | "
            f"{statistics.median(ratios):.3f} ({spread}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
