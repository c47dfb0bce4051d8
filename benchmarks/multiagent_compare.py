"""Multi-agent speed, side by side in one run: mpe2's simple_spread_v3 (3 agents, max_cycles 25)
stepped with random actions by

- envhive's process backend (``envhive.multiagent.make("mpe2.simple_spread_v3", num_envs=64,
  num_workers=2)``: the batched parallel facade) and its agent-flattened view (``vector_env``);
- SuperSuit 3.11: ``concat_vec_envs_v1(pettingzoo_env_to_vec_env_v1(env), 64, num_cpus=2)``
  (multiprocessing, 2 workers);
- the plain PettingZoo loop (one env, ``step`` with a dict, ``reset`` when every agent is done).

Reported in agent-steps/s (env steps x 3 agents). Writes benchmarks/results/multiagent_compare.md.

    python benchmarks/multiagent_compare.py [--seconds 2] [--rounds 3] [--num-envs 64] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

N_AGENTS = 3


class Engine:
    """One engine under test: ``step()`` advances it once and returns the agent-steps it made."""

    def __init__(self, name: str, step, close) -> None:
        self.name, self.step, self.close = name, step, close
        self.rates: list[float] = []

    def measure(self, seconds: float) -> None:
        done, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            for _ in range(5):
                done += self.step()
        self.rates.append(done / elapsed)


def cycling(items):
    k = [0]

    def take():
        k[0] += 1
        return items[k[0] % len(items)]

    return take


def envhive_batched(num_envs: int, workers: int, **kwargs) -> Engine:
    from envhive import multiagent as ma

    venv = ma.make("mpe2.simple_spread_v3", num_envs=num_envs, num_workers=workers, seed=0, **kwargs)
    venv.reset()
    rng = np.random.default_rng(0)
    actions = cycling([{a: rng.integers(0, 5, num_envs) for a in venv.possible_agents} for _ in range(64)])

    def step() -> int:
        venv.step(actions())
        return num_envs * N_AGENTS

    extra = "".join(f", {k}={v}" for k, v in kwargs.items())
    return Engine(f"envhive process backend, batched facade (make{extra})", step, venv.close)


def envhive_flat(num_envs: int, workers: int) -> Engine:
    from envhive import multiagent as ma

    flat = ma.vector_env("mpe2.simple_spread_v3", num_envs=num_envs, num_workers=workers, seed=0)
    flat.reset()
    rng = np.random.default_rng(0)
    actions = cycling([rng.integers(0, 5, num_envs * N_AGENTS) for _ in range(64)])

    def step() -> int:
        flat.step(actions())
        return num_envs * N_AGENTS

    return Engine("envhive process backend, flattened view (vector_env)", step, flat.close)


def supersuit(num_envs: int, workers: int) -> Engine:
    import supersuit as ss
    from mpe2 import simple_spread_v3

    env = ss.pettingzoo_env_to_vec_env_v1(simple_spread_v3.parallel_env())
    venv = ss.concat_vec_envs_v1(env, num_envs, num_cpus=workers, base_class="gymnasium")
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = cycling([rng.integers(0, 5, num_envs * N_AGENTS) for _ in range(64)])

    def step() -> int:
        venv.step(actions())
        return num_envs * N_AGENTS

    return Engine(f"SuperSuit concat_vec_envs_v1 (num_cpus={workers})", step, venv.close)


def pettingzoo_loop() -> Engine:
    from mpe2 import simple_spread_v3

    env = simple_spread_v3.parallel_env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = cycling(
        [dict(zip(env.possible_agents, rng.integers(0, 5, N_AGENTS).tolist(), strict=True)) for _ in range(64)]
    )

    def step() -> int:
        if not env.agents:
            env.reset()
        acts = actions()
        n = len(env.agents)
        env.step({a: acts[a] for a in env.agents})
        return n

    return Engine("PettingZoo loop (one env)", step, env.close)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per engine and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the engines interleaved in each")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "multiagent_compare.md"))
    args = parser.parse_args()
    engines = [
        envhive_batched(args.num_envs, args.workers),
        envhive_flat(args.num_envs, args.workers),
        supersuit(args.num_envs, args.workers),
        # the backend pins its workers when they cover every core: on a machine shared with other work,
        # unpinned workers move away from busy cores
        envhive_batched(args.num_envs, args.workers, pin_workers=False),
        pettingzoo_loop(),
    ]
    for engine in engines:  # warm-up
        engine.measure(0.3)
        engine.rates.clear()
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for engine in engines:
            engine.measure(args.seconds)
    load_after = os.getloadavg()
    for engine in engines:
        engine.close()
    rate = {e.name: float(np.median(e.rates)) for e in engines}
    base = rate[engines[2].name]
    lines = [
        "# Multi-agent speed: mpe2 simple_spread_v3 (3 agents, max_cycles 25), random actions",
        "",
        f"{args.num_envs} envs, {args.workers} worker processes (SuperSuit: num_cpus={args.workers}); the engines "
        f"interleaved, {args.rounds} rounds of {args.seconds:g} s each after a warm-up, median per engine. "
        f"Machine: {os.cpu_count()} cores ({platform.machine()}), shared with other work: load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after.",
        "",
        "| engine | agent-steps/s (median) | per round | vs SuperSuit |",
        "|---|---:|---|---:|",
    ]
    for e in engines:
        rounds = ", ".join(f"{r:,.0f}" for r in e.rates)
        lines.append(f"| {e.name} | {rate[e.name]:,.0f} | {rounds} | {rate[e.name] / base:.2f}x |")
    lines += [
        "",
        "Made by `python benchmarks/multiagent_compare.py` (agent-steps: env steps x 3 agents; the PettingZoo",
        "loop counts the agents in play). Native MPE (no processes) is the mpe family's own benchmark.",
        "",
    ]
    text = "\n".join(lines)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
