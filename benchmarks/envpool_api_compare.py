"""envhive.envpool against EnvPool 1.2.5 (the [bench] extra): the same EnvPool user loop on each
(``step`` in sync mode, ``recv`` -> ``send(actions, info["env_id"])`` in async mode), interleaved
repetitions, medians, and the ratio.

    python benchmarks/envpool_api_compare.py
    python benchmarks/envpool_api_compare.py --seconds 2 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from types import ModuleType

import envpool
import numpy as np

import envhive.envpool as hive

CASES = (("CartPole-v1", 1, 1), ("CartPole-v1", 8, 8), ("HalfCheetah-v5", 8, 8), ("Pong-v5", 8, 4))


def steps_per_second(module: ModuleType, task_id: str, num_envs: int, batch_size: int, seconds: float) -> float:
    env = module.make_gym(task_id, num_envs=num_envs, batch_size=batch_size, seed=0)
    space = env.action_space
    if hasattr(space, "n"):
        action = np.zeros(batch_size, dtype=np.int32)
    else:
        action = np.zeros((batch_size, *space.shape), dtype=np.float32)
    sync = batch_size == num_envs

    def burst() -> None:
        for _ in range(50):
            if sync:
                env.step(action)
            else:
                info = env.recv()[-1]
                env.send(action, info["env_id"])

    if sync:
        env.reset()
    else:
        env.async_reset()
    burst()  # warm-up
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        burst()
        steps += 50 * batch_size
    elapsed = time.perf_counter() - start
    env.close()
    return steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.repeats} interleaved repeats of {args.seconds} s")
    print("| case | EnvPool 1.2.5 steps/s | envhive.envpool steps/s | ratio |")
    print("|---|---:|---:|---:|")
    for task_id, num_envs, batch_size in CASES:
        ref, ours = [], []
        for _ in range(args.repeats):
            ref.append(steps_per_second(envpool, task_id, num_envs, batch_size, args.seconds))
            ours.append(steps_per_second(hive, task_id, num_envs, batch_size, args.seconds))
        r, h = statistics.median(ref), statistics.median(ours)
        print(f"| {task_id} num_envs={num_envs} batch_size={batch_size} | {r:,.0f} | {h:,.0f} | {h / r:.2f}x |")


if __name__ == "__main__":
    main()
