"""envhive's Craftax-Classic vs craftax's own JAX loop (jitted, vmapped, on the CPU), side by side.

Cases: 8 envs sync and 32 envs async (batch 16), on all cores. Engines: envhive and `cpp-loop` (one
env in the single-thread C++ loop) through the shared harness (`envhive.bench`, each run in a fresh
process), and craftax 1.6.1's auto-resetting step under jax.jit(jax.vmap(...)) over the same number
of envs (jax 0.10.2, XLA's CPU backend, which uses every core itself), timed by this script in its
own fresh processes (`envhive.families.craftax.bench_jax`), interleaved with the harness' repeats.
Random actions over all 17 actions. EnvPool 1.2.7 (its Craftax-Classic-* ids) needs Python >= 3.12 and
has no engine in `envhive bench`: `--envpool-python` names a 3.12 venv with `pip install envpool==1.2.7`,
and this script times it and envhive with the same loop (POOL_SNIPPET: make, reset or async_reset, then
step or recv/send for `--seconds`; steps/s and steps per CPU-second of the process), each in a fresh
process, interleaved with the rest. Target (issue 43): envhive >= 1.3x EnvPool 1.2.7.

    python benchmarks/craftax_compare.py --tasks Craftax-Classic-Symbolic-v1,Craftax-Classic-Pixels-v1 \
        --envpool-python /work/venv-envpool127/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from envhive.bench import Case, Settings, compare, format_markdown, parse_engines

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = "Craftax-Classic-Symbolic-v1,Craftax-Classic-Pixels-v1"
ENGINES = "cpp-loop"
TARGET_ENVPOOL = 1.3

# One pool (envhive or EnvPool) in a fresh interpreter: prints "steps/s steps-per-CPU-second".
POOL_SNIPPET = """
import resource, sys, time, numpy as np
engine, task, n, batch, threads, seconds = sys.argv[1:3] + [int(a) for a in sys.argv[3:6]] + [float(sys.argv[6])]
if engine == "envpool":
    import envpool
    env = envpool.make_gymnasium(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
else:
    import envhive
    env = envhive.make(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
acts = np.random.default_rng(0).integers(0, 17, size=(4096, n)).astype(np.int32)
def run(secs):
    steps, k = 0, 0
    if batch == n:
        env.reset()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < secs:
            env.step(acts[k % 4096]); k += 1; steps += n
        return steps, time.perf_counter() - t0
    env.async_reset()
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < secs:
        info = env.recv()[-1]; env.send(acts[k % 4096, :batch], info["env_id"]); k += 1; steps += batch
    wall = time.perf_counter() - t0
    for _ in range(n // batch):  # every env back before the next async_reset (EnvPool hangs otherwise)
        env.recv()
    return steps, wall
run(1.0)
r0 = resource.getrusage(resource.RUSAGE_SELF)
steps, wall = run(seconds)
r1 = resource.getrusage(resource.RUSAGE_SELF)
print(steps / wall, steps / ((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)))
"""


def pool_rate(engine: str, python: str, c: Case, a: argparse.Namespace) -> tuple[float, float] | None:
    argv = [python, "-c", POOL_SNIPPET, engine, c.task, str(c.num_envs), str(c.batch), str(c.num_threads),
            str(a.seconds)]  # fmt: skip
    out = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=600)
    if out.returncode != 0 or not out.stdout.strip():
        print(f"{engine} {c.title()} failed: {out.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    wall, cpu = out.stdout.split()[-2:]
    return float(wall), float(cpu)


def jax_worker(task: str, num_envs: int, seconds: float, warmup: float, seed: int) -> None:
    """Print craftax's steps per second (env steps: calls x num_envs) for ``seconds``."""
    from envhive.families.craftax import bench_jax

    advance, close = bench_jax(task, num_envs, seed)
    end = time.perf_counter() + warmup
    while time.perf_counter() < end:
        advance(4)
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        advance(4)
        calls += 4
    print(json.dumps({"steps_per_s": calls * num_envs / (time.perf_counter() - start)}))
    close()


def jax_rate(task: str, num_envs: int, a: argparse.Namespace) -> float | None:
    argv = [sys.executable, __file__, "--jax-worker", task, str(num_envs), str(a.seconds), str(a.warmup)]
    out = subprocess.run(argv, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f"craftax-jax {task} N={num_envs} failed: {out.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    return float(json.loads(out.stdout.strip().splitlines()[-1])["steps_per_s"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=TASKS, help=f"comma-separated task ids (default {TASKS})")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--compare", default=ENGINES, help=f"harness engines beside envhive (default {ENGINES})")
    p.add_argument("--out", type=Path, default=RESULTS / "craftax_compare.json", help="JSON results")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--envpool-python", default="/work/venv-envpool127/bin/python", help="python with envpool 1.2.7")
    p.add_argument("--jax-worker", nargs=4, metavar=("TASK", "N", "SECONDS", "WARMUP"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.jax_worker:
        task, n, seconds, warmup = a.jax_worker
        jax_worker(task, int(n), float(seconds), float(warmup), 0)
        return 0

    threads = a.threads or os.cpu_count() or 1
    engines = parse_engines(a.compare)
    tasks = [t.strip() for t in a.tasks.split(",") if t.strip()]
    cases = [c for task in tasks for c in (Case(task, 8, 8, threads), Case(task, 32, 16, threads))]
    settings = Settings(seconds=a.seconds, warmup=a.warmup, repeats=1)
    jax_samples: dict[tuple[str, int], list[float]] = {(c.task, c.num_envs): [] for c in cases}
    pool_samples: dict[tuple[str, Case], list[tuple[float, float]]] = {}
    pythons = {"envhive": sys.executable, "envpool": a.envpool_python}
    load_before = os.getloadavg()
    runs = []
    for r in range(a.repeats):  # interleaved: the harness' round, then the two pools', then craftax's
        runs.append(compare(cases, engines, settings, not a.quiet))
        for c in cases:
            for engine in ("envhive", "envpool") if r % 2 == 0 else ("envpool", "envhive"):
                got = pool_rate(engine, pythons[engine], c, a)
                if got:
                    pool_samples.setdefault((engine, c), []).append(got)
        for key, samples in jax_samples.items():
            rate = jax_rate(*key, a)
            if rate is not None:
                samples.append(rate)
    load_after = os.getloadavg()
    result = runs[-1]
    text = "# Craftax-Classic: envhive vs craftax (JAX)\n\n" + format_markdown(result)
    text += "\n## envhive vs craftax (jit + vmap, CPU), medians of interleaved runs\n\n"
    text += "| task | envs | envhive steps/s | craftax steps/s | ratio |\n|---|---|---|---|---|\n"
    for c in cases:
        ours = [
            r.steps_per_s
            for run in runs
            for m, r in run.results.items()
            if m.engine == "envhive" and m.task == c.task and m.num_envs == c.num_envs and r.steps_per_s
        ]
        theirs = jax_samples[(c.task, c.num_envs)]
        if ours and theirs:
            o, t = statistics.median(ours), statistics.median(theirs)
            text += f"| {c.task} | {c.num_envs} | {o:,.0f} | {t:,.0f} | {o / t:.1f}x |\n"
    text += (
        "\n## envhive vs EnvPool 1.2.7 (same loop, each in a fresh process, "
        f"medians of {a.repeats} interleaved runs)\n\n"
        "| task | case | envhive steps/s | EnvPool steps/s | ratio | envhive / EnvPool per CPU-s | target met |\n"
        "|---|---|---:|---:|---:|---:|---|\n"
    )
    for c in cases:
        h, e = pool_samples.get(("envhive", c)), pool_samples.get(("envpool", c))
        if not h or not e:
            text += f"| {c.task} | {c.title()} | - | - | - | - | - |\n"
            continue
        hw, ew = statistics.median(x for x, _ in h), statistics.median(x for x, _ in e)
        hc, ec = statistics.median(x for _, x in h), statistics.median(x for _, x in e)
        shape = "sync" if c.batch == c.num_envs else f"async {c.batch}/{c.num_envs}"
        text += (f"| {c.task} | {c.num_envs} envs {shape} | {hw:,.0f} | {ew:,.0f} | {hw / ew:.2f}x | {hc / ec:.2f}x | "
                 f"{'yes' if hw / ew >= TARGET_ENVPOOL else 'no'} |\n")  # fmt: skip
    text += (
        f"\nLoad average (1, 5, 15 min) before: {', '.join(f'{v:.1f}' for v in load_before)}; "
        f"after: {', '.join(f'{v:.1f}' for v in load_after)} ({os.cpu_count()} cores, shared machine).\n"
    )
    sys.stdout.write(text)
    data = result.to_json()
    data["pools"] = {f"{e}|{c.task}|{c.num_envs}|{c.batch}": v for (e, c), v in pool_samples.items()}
    data["craftax_jax"] = {f"{t} N={n}": s for (t, n), s in jax_samples.items()}
    data["report"] = text
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for run in runs for r in run.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
