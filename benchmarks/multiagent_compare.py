"""Multi-agent speed, side by side in one run: mpe2's simple_spread_v3 (3 agents, max_cycles 25)
stepped with random actions by

- envhive's process backend (``envhive.multiagent.make("mpe2.simple_spread_v3", num_envs=64,
  num_workers=2)``: the batched parallel facade) and its agent-flattened view (``vector_env``);
- SuperSuit 3.11: ``concat_vec_envs_v1(pettingzoo_env_to_vec_env_v1(env), 64, num_cpus=2)``
  (multiprocessing, 2 workers);
- the plain PettingZoo loop (one env, ``step`` with a dict, ``reset`` when every agent is done).

Reported in agent-steps/s (env steps x 3 agents). Writes benchmarks/results/multiagent_compare.md.

    python benchmarks/multiagent_compare.py [--seconds 5] [--num-envs 64] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

N_AGENTS = 3


def timed(step, seconds: float, warmup: int = 20) -> tuple[int, float]:
    for _ in range(warmup):
        step()
    n, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(10):
            step()
        n += 10
    return n, elapsed


def envhive_batched(num_envs: int, workers: int, seconds: float) -> float:
    from envhive import multiagent as ma

    venv = ma.make("mpe2.simple_spread_v3", num_envs=num_envs, num_workers=workers, seed=0)
    venv.reset()
    rng = np.random.default_rng(0)
    actions = [{a: rng.integers(0, 5, num_envs) for a in venv.possible_agents} for _ in range(64)]
    k = [0]

    def step() -> None:
        venv.step(actions[k[0] % 64])
        k[0] += 1

    n, elapsed = timed(step, seconds)
    venv.close()
    return n * num_envs * N_AGENTS / elapsed


def envhive_flat(num_envs: int, workers: int, seconds: float) -> float:
    from envhive import multiagent as ma

    flat = ma.vector_env("mpe2.simple_spread_v3", num_envs=num_envs, num_workers=workers, seed=0)
    flat.reset()
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 5, num_envs * N_AGENTS) for _ in range(64)]
    k = [0]

    def step() -> None:
        flat.step(actions[k[0] % 64])
        k[0] += 1

    n, elapsed = timed(step, seconds)
    flat.close()
    return n * num_envs * N_AGENTS / elapsed


def supersuit(num_envs: int, workers: int, seconds: float) -> float:
    import supersuit as ss
    from mpe2 import simple_spread_v3

    env = ss.pettingzoo_env_to_vec_env_v1(simple_spread_v3.parallel_env())
    venv = ss.concat_vec_envs_v1(env, num_envs, num_cpus=workers, base_class="gymnasium")
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 5, num_envs * N_AGENTS) for _ in range(64)]
    k = [0]

    def step() -> None:
        venv.step(actions[k[0] % 64])
        k[0] += 1

    n, elapsed = timed(step, seconds)
    venv.close()
    return n * num_envs * N_AGENTS / elapsed


def pettingzoo_loop(seconds: float) -> float:
    from mpe2 import simple_spread_v3

    env = simple_spread_v3.parallel_env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = [{a: int(x) for a, x in zip(env.possible_agents, rng.integers(0, 5, N_AGENTS), strict=True)} for _ in range(64)]
    k = [0]
    agent_steps = [0]

    def step() -> None:
        if not env.agents:
            env.reset()
        acts = actions[k[0] % 64]
        agent_steps[0] += len(env.agents)
        env.step({a: acts[a] for a in env.agents})
        k[0] += 1

    n, elapsed = timed(step, seconds, warmup=0)
    return agent_steps[0] / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "multiagent_compare.md"))
    args = parser.parse_args()
    load_before = os.getloadavg()
    rows = [
        ("envhive process backend, batched facade (make)", envhive_batched(args.num_envs, args.workers, args.seconds)),
        ("envhive process backend, flattened view (vector_env)", envhive_flat(args.num_envs, args.workers, args.seconds)),
        (f"SuperSuit concat_vec_envs_v1 (num_cpus={args.workers})", supersuit(args.num_envs, args.workers, args.seconds)),
        ("PettingZoo loop (one env)", pettingzoo_loop(args.seconds)),
    ]
    load_after = os.getloadavg()
    base = rows[2][1]
    lines = [
        "# Multi-agent speed: mpe2 simple_spread_v3 (3 agents), random actions",
        "",
        f"{args.num_envs} envs, {args.workers} worker processes (SuperSuit: num_cpus={args.workers}); "
        f"{args.seconds:g} s per engine after a warm-up, one run, engines one after another. "
        f"Machine: {os.cpu_count()} cores ({platform.processor() or platform.machine()}), shared; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after.",
        "",
        "| engine | agent-steps/s | vs SuperSuit |",
        "|---|---:|---:|",
    ]
    for name, rate in rows:
        lines.append(f"| {name} | {rate:,.0f} | {rate / base:.2f}x |")
    lines += [
        "",
        "Made by `python benchmarks/multiagent_compare.py` (agent-steps = env steps x 3 agents; the PettingZoo",
        "loop counts the agents in play). Native MPE (no processes) is the mpe family's own benchmark.",
        "",
    ]
    text = "\n".join(lines)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
