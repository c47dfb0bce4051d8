"""envhive's Procgen vs EnvPool 1.2.5's, the official procgen 0.10.7's own vectorised gym3 loop, and the
engine's own single-thread loop x threads, side by side in one run.

Engines (each run in a fresh process; repetitions interleaved across engines; medians):
- envhive: envhive.make(<EnvPool id>, num_envs, batch_size, num_threads) (the official engine, dlopen'ed,
  one libenv instance per env on envhive's pool).
- envpool: envpool.make_gymnasium(...) of EnvPool 1.2.5 (its own C++ port of Procgen).
- gym3: procgen 0.10.7's ProcgenGym3Env(num=N, num_threads=threads) stepped with act()/observe() in its
  own interpreter (the official wheel has no CPython 3.11 build: `--gym3-python`, a 3.10 venv with
  `pip install procgen==0.10.7 gym3`). It has no async mode: the 32/16 rows run it with 32 envs, sync.
- engine loop: procgen_loop_bench --engine (one libenv instance, num_threads=0, libenv_act in a C++ loop,
  nothing of envhive's) x min(threads, num_envs); cpp-loop: envhive's task in the same single-thread loop
  (core/loop_bench.h), x the same.
Reported per engine: steps/s (wall) and steps per CPU-second of the process (every thread), which a
loaded machine bends far less. Memory: (RSS with 64 envs - RSS with 8 envs) / 56 after 100 steps, MB.

EnvPool 1.2.5's Procgen links a system Qt5 (libQt5Core/Gui.so.5), which this machine lacks: the script
puts a Qt5 from the PyQt5-Qt5 wheel on LD_LIBRARY_PATH of EnvPool's workers only (`--qt5-lib DIR`, else
$ENVHIVE_QT5_LIB), e.g.
    pip download --no-deps PyQt5-Qt5==5.15.2 -d /tmp/qt5 && unzip -q /tmp/qt5/*.whl -d /tmp/qt5
    python benchmarks/procgen_compare.py --qt5-lib /tmp/qt5/PyQt5/Qt5/lib --gym3-python /work/venv-procgen310/bin/python

Targets (issue 41): envhive >= 1.5x EnvPool 1.2.5, >= 0.9x the engine's own loop x threads.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from envhive.families import procgen

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = "CoinrunHard-v0,StarpilotHard-v0,BigfishHard-v0,MazeHard-v0"
LOOP_BENCH = os.environ.get("ENVHIVE_LOOP_BENCH_DIR", str(Path(__file__).resolve().parent.parent / "build/loop-bench"))
TARGET_ENVPOOL, TARGET_LOOP = 1.5, 0.9

# One engine on one case in a fresh interpreter: prints "steps/s steps-per-CPU-second".
SNIPPET = """
import resource, sys, time, numpy as np
engine, task, n, batch, threads, seconds = sys.argv[1:3] + [int(a) for a in sys.argv[3:6]] + [float(sys.argv[6])]
acts = np.random.default_rng(0).integers(0, 15, size=(4096, max(n, batch))).astype(np.int32)
if engine == "gym3":
    from procgen import ProcgenGym3Env
    game, mode = sys.argv[7], sys.argv[8]
    env = ProcgenGym3Env(num=n, env_name=game, distribution_mode=mode, num_threads=threads, rand_seed=0)
    def run(secs):
        steps, k, t0 = 0, 0, time.perf_counter()
        while time.perf_counter() - t0 < secs:
            env.act(acts[k % 4096, :n]); env.observe(); k += 1; steps += n
        return steps, time.perf_counter() - t0
else:
    if engine == "envpool":
        import envpool
        env = envpool.make_gymnasium(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
    else:
        import envhive
        env = envhive.make(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
    def run(secs):
        steps, k = 0, 0
        if batch == n:
            env.reset()
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < secs:
                env.step(acts[k % 4096, :n]); k += 1; steps += n
        else:
            env.async_reset()
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < secs:
                info = env.recv()[-1]; env.send(acts[k % 4096, :batch], info["env_id"]); k += 1; steps += batch
            wall = time.perf_counter() - t0
            for _ in range(n // batch):  # every env back before the next async_reset (EnvPool hangs otherwise)
                env.recv()
            return steps, wall
        return steps, time.perf_counter() - t0
run(0.5)
r0 = resource.getrusage(resource.RUSAGE_SELF)
steps, wall = run(seconds)
r1 = resource.getrusage(resource.RUSAGE_SELF)
print(steps / wall, steps / ((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)))
"""

# RSS (MB) of a pool of n envs after 100 steps.
MEM_SNIPPET = """
import sys, numpy as np
engine, task, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if engine == "envpool":
    import envpool
    env = envpool.make_gymnasium(task, num_envs=n, num_threads=2, seed=0)
else:
    import envhive
    env = envhive.make(task, num_envs=n, num_threads=2, seed=0)
env.reset()
for k in range(100):
    env.step(np.full(n, k % 15, dtype=np.int32))
print(int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20)
"""


def engine_env(engine: str, qt5: str | None) -> dict[str, str]:
    """Qt5 on the library path of EnvPool's processes only."""
    env = dict(os.environ)
    if engine == "envpool" and qt5:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [qt5, env.get("LD_LIBRARY_PATH")]))
    return env


def measure(engine: str, case: tuple[str, int, int], a: argparse.Namespace) -> tuple[float, float] | None:
    task, n, batch = case
    game, mode = procgen.ENVPOOL_IDS[task]
    python = a.gym3_python if engine == "gym3" else sys.executable
    if engine == "gym3":
        batch = n  # no async mode
    argv = [python, "-c", SNIPPET, engine, task, str(n), str(batch), str(a.threads), str(a.seconds), game, mode]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=engine_env(engine, a.qt5_lib))
    except subprocess.TimeoutExpired:
        print(f"{engine} {case}: no result in 300 s", file=sys.stderr)
        return None
    if done.returncode != 0 or not done.stdout.strip():
        print(f"{engine} {case}: failed: {done.stderr.strip()[-600:]}", file=sys.stderr)
        return None
    wall, cpu = done.stdout.split()[-2:]
    return float(wall), float(cpu)


def loop_bench(task: str, seconds: float, engine_only: bool) -> tuple[float, float | None]:
    """procgen_loop_bench: (steps/s, steps per CPU-second or None) of one env on one core."""
    exe = str(Path(LOOP_BENCH) / "procgen_loop_bench")
    if engine_only:
        argv = [exe, "--engine", str(procgen.engine_dir()), procgen.ENVPOOL_IDS[task][0], str(seconds)]
    else:
        argv = [exe, task, str(seconds), "0", f"engine_dir={procgen.engine_dir()}"]
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    m = re.search(r"steps=([0-9]+) seconds=([0-9.]+) steps_per_s=([0-9.]+)(?: cpu_seconds=([0-9.]+))?", out)
    assert m, out
    return float(m.group(3)), (int(m.group(1)) / float(m.group(4)) if m.group(4) else None)


def rss(engine: str, task: str, n: int, qt5: str | None) -> float | None:
    done = subprocess.run([sys.executable, "-c", MEM_SNIPPET, engine, task, str(n)], capture_output=True,
                          text=True, timeout=300, env=engine_env(engine, qt5))  # fmt: skip
    return float(done.stdout.split()[-1]) if done.returncode == 0 and done.stdout.strip() else None


def med(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def fmt(v: float | None, spec: str = ",.0f") -> str:
    return "-" if v is None else format(v, spec)


def ratio(x: float | None, y: float | None) -> str:
    return f"{x / y:.2f}x" if x and y else "-"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=TASKS, help=f"comma-separated EnvPool ids (default {TASKS})")
    p.add_argument("--threads", type=int, default=2, help="pool threads (default 2)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--engines", default="envhive,envpool,gym3", help="pool engines (default envhive,envpool,gym3)")
    p.add_argument("--qt5-lib", default=os.environ.get("ENVHIVE_QT5_LIB"), help="Qt5's libraries for EnvPool 1.2.5")
    p.add_argument("--gym3-python", default="/work/venv-procgen310/bin/python", help="python with procgen 0.10.7")
    p.add_argument("--no-memory", action="store_true", help="skip the RSS per env rows")
    p.add_argument("--out", type=Path, default=RESULTS / "procgen_compare.json", help="JSON results")
    a = p.parse_args(argv)
    tasks, engines = a.tasks.split(","), a.engines.split(",")
    cases = [c for t in tasks for c in ((t, 8, 8), (t, 32, 16))]
    load_before = os.getloadavg()
    samples: dict[tuple[str, tuple[str, int, int]], list[tuple[float, float]]] = {}
    loops: dict[tuple[str, str], list[tuple[float, float | None]]] = {}
    for r in range(a.repeats):
        for case in cases:
            for engine in engines if r % 2 == 0 else engines[::-1]:
                got = measure(engine, case, a)
                if got:
                    samples.setdefault((engine, case), []).append(got)
        for task in tasks:
            for kind, engine_only in (("engine", True), ("cpp-loop", False)):
                loops.setdefault((kind, task), []).append(loop_bench(task, a.seconds, engine_only))
    mem: dict[tuple[str, str], float | None] = {}
    for task in [] if a.no_memory else tasks:
        for engine in [e for e in engines if e != "gym3"]:
            lo, hi = rss(engine, task, 8, a.qt5_lib), rss(engine, task, 64, a.qt5_lib)
            mem[(engine, task)] = (hi - lo) / 56 if lo is not None and hi is not None else None
    load_after = os.getloadavg()

    wall = {k: med([w for w, _ in v]) for k, v in samples.items()}
    cpu = {k: med([c for _, c in v]) for k, v in samples.items()}
    loop_wall = {k: med([w for w, _ in v]) for k, v in loops.items()}
    loop_cpu = {k: med([c for _, c in v if c]) for k, v in loops.items()}
    text = (
        f"{a.threads} threads; medians of {a.repeats} interleaved runs x {a.seconds} s, each in a fresh process.\n\n"
        "| task | case | envhive steps/s | EnvPool 1.2.5 | gym3 (official) | engine loop x threads | "
        "/ EnvPool | / gym3 | / engine loop | cpp-loop / engine loop |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    for case in cases:
        task, n, batch = case
        hive, pool, g3 = (wall.get((e, case)) for e in ("envhive", "envpool", "gym3"))
        limit = loop_wall[("engine", task)] * min(a.threads, n) if loop_wall.get(("engine", task)) else None
        shape = f"{n} envs sync" if n == batch else f"{n} envs, batch {batch}"
        text += (f"| {task} | {shape} | {fmt(hive)} | {fmt(pool)} | {fmt(g3)} | {fmt(limit)} | {ratio(hive, pool)} | "
                 f"{ratio(hive, g3)} | {ratio(hive, limit)} | "
                 f"{ratio(loop_wall.get(('cpp-loop', task)), loop_wall.get(('engine', task)))} |\n")  # fmt: skip
    text += (
        "\nSteps per CPU-second (all threads of the process; the same runs):\n\n"
        "| task | case | envhive | EnvPool 1.2.5 | gym3 | engine loop (1 core) | / EnvPool | / gym3 | / engine loop |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    for case in cases:
        task, n, batch = case
        hive, pool, g3 = (cpu.get((e, case)) for e in ("envhive", "envpool", "gym3"))
        loop = loop_cpu.get(("engine", task))
        shape = f"{n} envs sync" if n == batch else f"{n} envs, batch {batch}"
        text += (f"| {task} | {shape} | {fmt(hive)} | {fmt(pool)} | {fmt(g3)} | {fmt(loop)} | {ratio(hive, pool)} | "
                 f"{ratio(hive, g3)} | {ratio(hive, loop)} |\n")  # fmt: skip
    if mem:
        text += "\n| task | envhive MB/env | EnvPool MB/env |\n|---|---:|---:|\n"
        for task in tasks:
            cells = [fmt(mem.get((e, task)), ".2f") for e in ("envhive", "envpool")]
            text += f"| {task} | {cells[0]} | {cells[1]} |\n"
    text += (
        f"\nTargets: envhive >= {TARGET_ENVPOOL}x EnvPool 1.2.5, >= {TARGET_LOOP}x the engine loop x threads.\n"
        f"Load average (1, 5, 15 min) before: {', '.join(f'{v:.1f}' for v in load_before)}; "
        f"after: {', '.join(f'{v:.1f}' for v in load_after)} ({os.cpu_count()} cores, shared machine).\n"
    )
    sys.stdout.write(text)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    data = {"samples": {f"{e}|{c[0]}|{c[1]}|{c[2]}": v for (e, c), v in samples.items()},
            "loops": {f"{k}|{t}": v for (k, t), v in loops.items()},
            "mb_per_env": {f"{e}|{t}": v for (e, t), v in mem.items()}, "report": text}  # fmt: skip
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
