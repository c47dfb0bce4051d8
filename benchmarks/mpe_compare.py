"""envhive's native MPE vs mpe2 under SuperSuit and under PettingZoo's own loop, side by side in one
run, against the single-thread C++ limit.

Task: simple_spread_v3 (3 agents, mpe2's defaults: 25-step episodes, Discrete actions), random
actions drawn up front. Throughput is in agent-steps/s (one agent's transition; an env step of
simple_spread is 3). Engines, each timed in a fresh process, repetitions interleaved, medians:

- envhive: ``envhive.make("simple_spread_v3", num_envs=64)``, sync, on 1 and on 2 pool threads;
- SuperSuit: ``concat_vec_envs_v1(pettingzoo_env_to_vec_env_v1(mpe2 parallel_env), 64, num_cpus=2,
  base_class="gymnasium")`` (SuperSuit 3.11.0: multiprocessing, 2 workers), the usual way to batch
  PettingZoo envs for a trainer;
- PettingZoo: one mpe2 ``parallel_env`` stepped in a plain Python loop (one core);
- cpp-loop: ``mpe_loop_bench`` (csrc/core/loop_bench.h): one env stepped by a single-threaded C++
  loop, observations and infos written every step, no pool and no Python; x threads is the limit
  of a pool on that many cores (built by this script into build/loop-bench-mpe when missing).

Needs mpe2==1.1.1, pettingzoo==1.27.0 and supersuit==3.11.0.

    python benchmarks/mpe_compare.py                 # about 2 min on 2 cores
    python benchmarks/mpe_compare.py --seconds 5 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
BUILD = ROOT / "build" / "loop-bench-mpe"
TASK = "simple_spread_v3"
N_AGENTS = 3


def _envhive(num_envs: int, threads: int, seconds: float, warmup: float) -> float:
    import numpy as np

    import envhive

    pool = envhive.make(TASK, num_envs=num_envs, seed=0, num_threads=threads)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 5, size=(64, num_envs, N_AGENTS)).astype(np.int64)
    pool.reset()

    def run(secs: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while True:
            for k in range(16):
                pool.step(actions[(steps + k) % 64])
            steps += 16
            took = time.perf_counter() - start
            if took >= secs:
                return steps, took

    run(warmup)
    steps, took = run(seconds)
    pool.close()
    return steps * num_envs * N_AGENTS / took


def _supersuit(num_envs: int, workers: int, seconds: float, warmup: float) -> float:
    import numpy as np
    import supersuit as ss
    from mpe2 import simple_spread_v3

    venv = ss.pettingzoo_env_to_vec_env_v1(simple_spread_v3.parallel_env())
    venv = ss.concat_vec_envs_v1(venv, num_envs, num_cpus=workers, base_class="gymnasium")
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 5, size=(64, num_envs * N_AGENTS))
    venv.reset(seed=0)

    def run(secs: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while True:
            venv.step(actions[steps % 64])
            steps += 1
            took = time.perf_counter() - start
            if took >= secs:
                return steps, took

    run(warmup)
    steps, took = run(seconds)
    venv.close()
    return steps * num_envs * N_AGENTS / took


def _pettingzoo(seconds: float, warmup: float) -> float:
    import numpy as np
    from mpe2 import simple_spread_v3

    env = simple_spread_v3.parallel_env()
    env.reset(seed=0)
    agents = list(env.possible_agents)
    rng = np.random.default_rng(0)
    table = [dict(zip(agents, row, strict=True)) for row in rng.integers(0, 5, size=(64, N_AGENTS)).tolist()]

    def run(secs: float) -> tuple[int, float]:
        agent_steps, steps, start = 0, 0, time.perf_counter()
        while True:
            env.step(table[steps % 64])
            steps += 1
            agent_steps += N_AGENTS
            if not env.agents:
                env.reset()
            took = time.perf_counter() - start
            if took >= secs:
                return agent_steps, took

    run(warmup)
    agent_steps, took = run(seconds)
    env.close()
    return agent_steps / took


def _loop_bench(seconds: float) -> float:
    exe = BUILD / "mpe_loop_bench"
    if not exe.exists():
        bindir = Path(sys.executable).parent
        cmake = shutil.which("cmake") or str(bindir / "cmake")
        env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
        configure = [
            cmake, "-S", str(ROOT), "-B", str(BUILD), "-DCMAKE_BUILD_TYPE=Release", "-DENVHIVE_BUILD_BENCH=ON",
            "-DENVHIVE_FAMILIES=mpe", "-DENVHIVE_BUILD_XLA=OFF", f"-DPython_EXECUTABLE={sys.executable}",
        ]  # fmt: skip
        if shutil.which("ninja") or (bindir / "ninja").exists():
            configure += ["-G", "Ninja"]
        print(f"building mpe_loop_bench in {BUILD} ...", file=sys.stderr)
        subprocess.run(configure, check=True, capture_output=True, text=True, env=env)
        subprocess.run([cmake, "--build", str(BUILD), "--target", "mpe_loop_bench"], check=True, capture_output=True,
                       text=True, env=env)  # fmt: skip
    out = subprocess.run([str(exe), TASK, str(seconds), "0"], check=True, capture_output=True, text=True).stdout
    fields = dict(part.split("=", 1) for part in out.split())
    return float(fields["steps_per_s"]) * N_AGENTS


def _worker(spec: str, seconds: float, warmup: float) -> float:
    kind, _, arg = spec.partition(":")
    if kind == "envhive":
        return _envhive(64, int(arg), seconds, warmup)
    if kind == "supersuit":
        return _supersuit(64, int(arg), seconds, warmup)
    if kind == "pettingzoo":
        return _pettingzoo(seconds, warmup)
    if kind == "cpp-loop":
        return _loop_bench(seconds)
    raise ValueError(spec)


ENGINES = {
    "envhive:1": "envhive, 64 envs, 1 thread",
    "envhive:2": "envhive, 64 envs, 2 threads",
    "supersuit:2": "SuperSuit concat_vec_envs_v1 over mpe2, 64 envs, 2 workers",
    "pettingzoo:1": "mpe2 parallel_env, plain PettingZoo loop (1 env, 1 core)",
    "cpp-loop:1": "mpe_loop_bench (1 env, single-thread C++)",
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per run (default 3)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--out", type=Path, default=RESULTS / "mpe_compare.md", help="markdown results")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        print(json.dumps(_worker(a.worker, a.seconds, a.warmup)))
        return 0

    load_before = os.getloadavg()
    samples: dict[str, list[float]] = {k: [] for k in ENGINES}
    for r in range(a.repeats):
        for spec in ENGINES:
            cmd = [sys.executable, __file__, "--worker", spec, "--seconds", str(a.seconds), "--warmup", str(a.warmup)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
            samples[spec].append(float(out))
            print(f"[{r + 1}/{a.repeats}] {spec}: {samples[spec][-1]:,.0f} agent-steps/s", file=sys.stderr)
    load_after = os.getloadavg()
    med = {k: statistics.median(v) for k, v in samples.items()}
    cores = os.cpu_count() or 1

    lines = [
        "# MPE: envhive vs SuperSuit / PettingZoo over mpe2 (simple_spread_v3)",
        "",
        f"`python benchmarks/mpe_compare.py --seconds {a.seconds:g} --repeats {a.repeats}`: {cores} cores, "
        f"load average {load_before[0]:.2f} before and {load_after[0]:.2f} after (shared machine); "
        "each engine in a fresh process, repetitions interleaved, medians. Random Discrete actions, "
        "mpe2's defaults (3 agents, 25-step episodes, resets included). Agent-steps/s: one agent's "
        "transition (an env step is 3).",
        "",
        "| engine | agent-steps/s (median) | runs |",
        "|---|---:|---|",
    ]
    for spec, label in ENGINES.items():
        runs = ", ".join(f"{v:,.0f}" for v in samples[spec])
        lines.append(f"| {label} | {med[spec]:,.0f} | {runs} |")
    best = max(med["envhive:1"], med["envhive:2"])
    loop = med["cpp-loop:1"]
    lines += [
        "",
        "| ratio | value |",
        "|---|---:|",
        f"| envhive (best of 1, 2 threads) / SuperSuit (2 workers) | {best / med['supersuit:2']:.1f}x |",
        f"| envhive 1 thread / PettingZoo loop (per core) | {med['envhive:1'] / med['pettingzoo:1']:.1f}x |",
        f"| envhive 1 thread / C++ loop x 1 | {med['envhive:1'] / loop:.2f} |",
        f"| envhive 2 threads / C++ loop x 2 | {med['envhive:2'] / (2 * loop):.2f} |",
        "",
    ]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
