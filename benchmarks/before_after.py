"""Before/after speed of two envhive builds, interleaved in one run: each case is timed in a fresh
process of each build's interpreter, builds alternating (and their order swapping) every repeat,
and the report gives the median steps/s of each and the ratio after / before.

    python benchmarks/before_after.py --before /path/to/base/.venv/bin/python \
        --after .venv/bin/python --seconds 3 --repeats 5 [--cases cartpole-1,pong-8,...]

Cases (env steps per second; sync pools stepped with random actions drawn up front):
  cartpole-1     CartPole-v1, 1 env, the native pool
  cartpole-64    CartPole-v1, 64 envs, the native pool (threads: every core)
  pong-8         Pong-v5, 8 envs, the native pool (needs the Atari family built)
  process-16     Gymnasium's CartPole-v1, 16 envs, the process backend (a worker per core)
  ray-64         CartPole-v1, 64 envs, RayVectorEnv over 2 shards on a local Ray of 2 CPUs
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

CASES = ("cartpole-1", "cartpole-64", "pong-8", "process-16", "ray-64")


def make(case: str) -> tuple[Any, Any]:
    """The pool of a case, and what closes it afterwards."""
    import envhive

    if case == "cartpole-1":
        return envhive.make("CartPole-v1", num_envs=1, seed=0), None
    if case == "cartpole-64":
        return envhive.make("CartPole-v1", num_envs=64, seed=0), None
    if case == "pong-8":
        return envhive.make("Pong-v5", num_envs=8, seed=0), None
    if case == "process-16":
        return envhive.make("CartPole-v1", backend="process", num_envs=16, seed=0), None
    if case == "ray-64":
        import ray

        from envhive.ray import RayVectorEnv

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        return RayVectorEnv("CartPole-v1", 64, 2, seed=0, num_cpus_per_shard=1), ray.shutdown
    raise ValueError(f"unknown case {case!r}; valid: {', '.join(CASES)}")


def measure(case: str, seconds: float, warmup: float) -> float:
    """Env steps per second of ``case`` over ``seconds`` (after ``warmup`` untimed seconds)."""
    import numpy as np

    env, shutdown = make(case)
    try:
        env.reset()
        n = env.num_envs
        space = env.action_space
        space.seed(0)
        actions = [np.asarray(space.sample()) for _ in range(64)]
        step = env.step
        end = time.perf_counter() + warmup
        k = 0
        while time.perf_counter() < end:
            step(actions[k % 64])
            k += 1
        steps = 0
        start = time.perf_counter()
        end = start + seconds
        while True:
            for _ in range(8):
                step(actions[steps % 64])
                steps += 1
            now = time.perf_counter()
            if now >= end:
                break
        return steps * n / (now - start)
    finally:
        env.close()
        if shutdown is not None:
            shutdown()


def run_worker(python: str, case: str, seconds: float, warmup: float) -> float | None:
    cmd = [python, __file__, "--worker", case, "--seconds", str(seconds), "--warmup", str(warmup)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=dict(os.environ))
    if out.returncode != 0:
        print(f"  {case} with {python}: failed\n{out.stderr[-2000:]}", file=sys.stderr)
        return None
    return float(json.loads(out.stdout.strip().splitlines()[-1])["steps_per_s"])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worker", choices=CASES, help=argparse.SUPPRESS)
    p.add_argument("--before", help="the interpreter of the build before (its venv's python)")
    p.add_argument("--after", default=sys.executable, help="the interpreter of the build after (default: this one)")
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", action="store_true", help="print the raw samples as JSON too")
    args = p.parse_args()
    if args.worker:
        print(json.dumps({"steps_per_s": measure(args.worker, args.seconds, args.warmup)}))
        return 0
    if not args.before:
        p.error("--before is required")
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    builds = {"before": args.before, "after": args.after}
    samples: dict[str, dict[str, list[float]]] = {c: {"before": [], "after": []} for c in cases}
    loads = []
    for r in range(args.repeats):
        order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
        for case in cases:
            for name in order:
                loads.append(os.getloadavg()[0])
                rate = run_worker(builds[name], case, args.seconds, args.warmup)
                if rate is not None:
                    samples[case][name].append(rate)
                print(f"repeat {r + 1}/{args.repeats} {case:12s} {name:6s} {rate or 0:14,.0f} steps/s", file=sys.stderr)
    print("| case | before (steps/s) | after (steps/s) | after / before (medians) | paired ratio | runs |")
    print("|---|---:|---:|---:|---:|---:|")
    for case in cases:
        b, a = samples[case]["before"], samples[case]["after"]
        if not a or not b:
            shown = [f"{statistics.median(x):,.0f}" if x else "failed" for x in (b, a)]
            print(f"| {case} | {shown[0]} | {shown[1]} | - | - | - |")
            continue
        mb, ma = statistics.median(b), statistics.median(a)
        # Each repeat's two runs are next to each other in time: their ratio sees the same load.
        pairs = sorted(x / y for x, y in zip(a, b, strict=False))
        low, high = pairs[len(pairs) // 4], pairs[(3 * len(pairs)) // 4]
        paired = f"{statistics.median(pairs):.3f} (IQR {low:.2f}..{high:.2f})"
        print(f"| {case} | {mb:,.0f} | {ma:,.0f} | {ma / mb:.3f} | {paired} | {len(b)}+{len(a)} |")
    print(
        f"\nload average (1 min) during the run: min {min(loads):.1f}, median {statistics.median(loads):.1f}, "
        f"max {max(loads):.1f}; {os.cpu_count()} cores"
    )
    if args.json:
        print(json.dumps(samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
