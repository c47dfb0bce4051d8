"""The template plug-in's C++ CartPole (mypkg/CartPole-v1, built with the SDK) against the built-in
CartPole-v1, on the same pool: interleaved `envhive bench` measurements (each in a fresh process),
medians and their ratio per num_envs.

    pip install --no-build-isolation templates/cpp-family      # or put its install folder on PYTHONPATH
    python benchmarks/plugin_compare.py [--num-envs 1 64] [--repeats 5] [--seconds 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

BUILTIN = "CartPole-v1"
PLUGIN = "mypkg/CartPole-v1"


def measure(task: str, num_envs: int, seconds: float) -> float:
    cmd = [sys.executable, "-m", "envhive", "bench", task, "--num-envs", str(num_envs), "--seconds", str(seconds),
           "--warmup", "0.5", "--repeats", "1", "--compare", "none", "--json", "--quiet"]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=600)
    (case,) = json.loads(out.stdout)["cases"]
    (row,) = case["rows"]
    if row["error"]:
        raise RuntimeError(f"{task}: {row['error']}")
    return float(row["steps_per_s"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.repeats} interleaved repetitions of {args.seconds} s")
    print("| num_envs | CartPole-v1 (built-in) steps/s | mypkg/CartPole-v1 (plug-in) steps/s | plug-in / built-in |")
    print("|---:|---:|---:|---:|")
    for n in args.num_envs:
        runs: dict[str, list[float]] = {BUILTIN: [], PLUGIN: []}
        for rep in range(args.repeats):
            order = (BUILTIN, PLUGIN) if rep % 2 == 0 else (PLUGIN, BUILTIN)  # alternate who goes first
            for task in order:
                runs[task].append(measure(task, n, args.seconds))
        ratios = [p / b for p, b in zip(runs[PLUGIN], runs[BUILTIN], strict=True)]  # pairwise, same moment
        b, p = statistics.median(runs[BUILTIN]), statistics.median(runs[PLUGIN])
        spread = f"pairs {min(ratios):.2f}-{max(ratios):.2f}"
        print(f"| {n} | {b:,.0f} | {p:,.0f} | {statistics.median(ratios):.3f} ({spread}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
