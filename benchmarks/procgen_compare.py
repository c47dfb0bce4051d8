"""envhive's Procgen vs EnvPool 1.2.5's, Gymnasium's vectorisers over upstream's gym env (the official
engine through ctypes: envhive.bench.procgen_env), and the engine's own single-thread loop, side by side
in one run of the envhive.bench harness; memory per env from the same runs.

Tasks (EnvPool's ids, hard levels): CoinrunHard-v0, StarpilotHard-v0, BigfishHard-v0, MazeHard-v0
(`--tasks all`: every game). Cases on 2 threads: 8 envs sync, and 32 envs async with batch 16. Each
measurement runs in a fresh process; repetitions are interleaved across engines; medians.

Limits: `engine loop` is the official engine alone (procgen_loop_bench --engine: one libenv instance,
num_threads=0, libenv_act in a C++ loop, nothing of envhive's), `cpp-loop` envhive's task in the same
loop (core/loop_bench.h: the engine plus what the task adds per step); each x min(threads, num_envs).

EnvPool 1.2.5's Procgen links a system Qt5 (libQt5Core/Gui.so.5), which a stock machine lacks: the
script puts a Qt5 from the PyQt5-Qt5 wheel on LD_LIBRARY_PATH for its workers (`--qt5-lib DIR`, else
$ENVHIVE_QT5_LIB, else an installed PyQt5-Qt5), e.g.
    pip download --no-deps PyQt5-Qt5==5.15.19 -d /tmp/qt5 && unzip -q /tmp/qt5/*.whl -d /tmp/qt5
    python benchmarks/procgen_compare.py --qt5-lib /tmp/qt5/PyQt5/Qt5/lib

Targets (issue 41): envhive >= 1.5x EnvPool 1.2.5, >= 0.9x the engine's own loop x threads.

    python benchmarks/procgen_compare.py                   # ~15 minutes on 2 cores
    python benchmarks/procgen_compare.py --tasks CoinrunHard-v0 --seconds 2 --repeats 3
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from envhive.bench import Case, Settings, compare, format_markdown, format_ratios, parse_engines
from envhive.families import procgen
from loop_bench_build import BUILD, loop_bench_dir

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = "CoinrunHard-v0,StarpilotHard-v0,BigfishHard-v0,MazeHard-v0"
ENGINES = "envpool,gymnasium-sync,gymnasium-async,cpp-loop"
LABELS = {"envpool": "EnvPool 1.2.5", "gymnasium-sync": "Gym Sync", "gymnasium-async": "Gym Async"}
TARGET_ENVPOOL = 1.5


def qt5_lib(given: str | None) -> str | None:
    """A folder with libQt5Core.so.5 for EnvPool's workers."""
    for folder in (given, os.environ.get("ENVHIVE_QT5_LIB")):
        if folder:
            return folder
    spec = importlib.util.find_spec("PyQt5")
    if spec and spec.submodule_search_locations:
        lib = Path(next(iter(spec.submodule_search_locations))) / "Qt5" / "lib"
        if (lib / "libQt5Core.so.5").exists():
            return str(lib)
    return None


def engine_loop(game: str, seconds: float) -> tuple[float, float]:
    """The official engine alone on one core (procgen_loop_bench --engine): (steps/s, steps per
    CPU-second of its timed run)."""
    out = subprocess.run(
        [str(BUILD / "procgen_loop_bench"), "--engine", str(procgen.engine_dir()), game, str(seconds)],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    m = re.search(r"steps=([0-9]+) seconds=([0-9.]+) steps_per_s=([0-9.]+) cpu_seconds=([0-9.]+)", out)
    assert m, out
    return float(m.group(3)), int(m.group(1)) / float(m.group(4))


# One pool's steps per CPU-second of its process (every thread), in a fresh interpreter: a measure a
# loaded machine bends far less than steps/s (a pool that gets half a core does half the steps).
CPU_SNIPPET = """
import resource, sys, time, numpy as np
engine, task, n, batch, threads, seconds = sys.argv[1:3] + [int(a) for a in sys.argv[3:6]] + [float(sys.argv[6])]
if engine == "envpool":
    import envpool
    env = envpool.make_gymnasium(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
else:
    import envhive
    env = envhive.make(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
acts = np.random.default_rng(0).integers(0, 15, size=(4096, batch)).astype(np.int32)
def run(secs):
    steps, k = 0, 0
    if batch == n:
        env.reset()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < secs:
            env.step(acts[k % 4096]); k += 1; steps += n
    else:
        env.async_reset()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < secs:
            obs, r, te, tr, info = env.recv(); env.send(acts[k % 4096], info["env_id"]); k += 1; steps += batch
        for _ in range(n // batch):  # every env back before the next async_reset (EnvPool hangs otherwise)
            env.recv()
    return steps
run(0.5)
r0 = resource.getrusage(resource.RUSAGE_SELF)
steps = run(seconds)
r1 = resource.getrusage(resource.RUSAGE_SELF)
print(steps / ((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)))
"""


def cpu_rate(engine: str, case: Case, seconds: float) -> float | None:
    try:
        done = subprocess.run(
            [sys.executable, "-c", CPU_SNIPPET, engine, case.task, str(case.num_envs), str(case.batch),
             str(case.num_threads), str(seconds)],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        print(f"{engine} {case.title()}: no result in 300 s", file=sys.stderr)
        return None
    return float(done.stdout.split()[-1]) if done.returncode == 0 and done.stdout.strip() else None


def memory_per_env(result, task: str, engine: str) -> float | None:
    """(RSS with 32 envs - RSS with 8) / 24, MB: what one more env costs (the engine's images, the
    pool and the interpreter are in both)."""
    rss = {}
    for case in result.cases:
        if case.task == task:
            rss[case.num_envs] = result.results[case.measurement(engine)].rss_mb
    return (rss[32] - rss[8]) / 24 if rss.get(8) and rss.get(32) else None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=TASKS, help=f"comma-separated ids, or 'all' (default {TASKS})")
    p.add_argument("--threads", type=int, default=2, help="pool threads (default 2)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--compare", default=ENGINES, help=f"engines beside envhive (default {ENGINES})")
    p.add_argument("--qt5-lib", default=None, help="a folder with Qt5's libraries for EnvPool 1.2.5")
    p.add_argument("--out", type=Path, default=RESULTS / "procgen_compare.json", help="JSON results")
    p.add_argument("--markdown", type=Path, default=None, help="also write the report here")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--cpu-only", action="store_true", help="only the steps per CPU-second and the engine loop")
    a = p.parse_args(argv)

    tasks = [procgen.envpool_id(g, "hard") for g in procgen.GAMES] if a.tasks == "all" else a.tasks.split(",")
    engines = parse_engines(a.compare)
    if "envpool" in engines:
        qt = qt5_lib(a.qt5_lib)
        if qt is None:
            print("no Qt5 for EnvPool 1.2.5's Procgen (--qt5-lib): its rows will fail", file=sys.stderr)
        else:
            os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [qt, os.environ.get("LD_LIBRARY_PATH")]))
    loop_bench_dir("procgen_loop_bench")
    cases = []
    for task in tasks:
        cases += [Case(task, 8, 8, a.threads), Case(task, 32, 16, a.threads)]
    load_before = os.getloadavg()
    settings = Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats)
    result = compare(cases, [] if a.cpu_only else engines, settings, not a.quiet)
    loops = {task: engine_loop(procgen.ENVPOOL_IDS[task][0], a.seconds) for task in tasks}
    cpu_engines = [e for e in ("envhive", "envpool") if e in engines or e == "envhive"]
    samples: dict[tuple[str, str, int], list[float]] = {}
    for _ in range(a.repeats):  # interleaved, as the harness's repetitions
        for case in cases:
            for engine in cpu_engines:
                rate = cpu_rate(engine, case, a.seconds)
                if rate is not None:
                    samples.setdefault((engine, case.task, case.num_envs), []).append(rate)
    cpu = {key: statistics.median(v) for key, v in samples.items()}
    load_after = os.getloadavg()

    data = result.to_json()
    text = "" if a.cpu_only else format_markdown(result)
    text += "" if a.cpu_only else "\n" + format_ratios(result, [e for e in LABELS if e in engines], LABELS)
    header = "\n| task | case | envhive steps/s | engine loop x threads | envhive / engine loop |\n"
    header += "|---|---|---:|---:|---:|\n"
    text += "" if a.cpu_only else header
    for case in cases if not a.cpu_only else []:
        hive = result.results[case.measurement("envhive")].steps_per_s
        limit = loops[case.task][0] * min(a.threads, case.num_envs)
        ratio = f"{hive / limit:.2f}x" if hive else "-"
        shape = f"{case.num_envs} envs, batch {case.batch}"
        text += f"| {case.task} | {shape} | {hive or 0:,.0f} | {limit:,.0f} | {ratio} |\n"
    text += (
        "\nSteps per CPU-second (every thread of the process; medians of the interleaved repeats):\n\n"
        "| task | case | envhive | EnvPool 1.2.5 | envhive / EnvPool | engine loop | envhive / engine loop |\n"
        "|---|---|---:|---:|---:|---:|---:|\n"
    )
    for case in cases:
        hive, pool = cpu.get(("envhive", case.task, case.num_envs)), cpu.get(("envpool", case.task, case.num_envs))
        loop = loops[case.task][1]
        cells = [f"{v:,.0f}" if v else "-" for v in (hive, pool)]
        vs_pool = f"{hive / pool:.2f}x" if hive and pool else "-"
        vs_loop = f"{hive / loop:.2f}x" if hive else "-"
        shape = f"{case.num_envs} envs, batch {case.batch}"
        text += f"| {case.task} | {shape} | {cells[0]} | {cells[1]} | {vs_pool} | {loop:,.0f} | {vs_loop} |\n"
    text += "" if a.cpu_only else "\n| task | envhive MB/env | EnvPool MB/env |\n|---|---:|---:|\n"
    for task in tasks if not a.cpu_only else []:
        mem = [memory_per_env(result, task, e) if e in engines else None for e in ("envhive", "envpool")]
        text += f"| {task} | " + " | ".join(f"{m:.2f}" if m is not None else "-" for m in mem) + " |\n"
    text += (
        f"\nEngine loop: the official engine alone, one core (procgen_loop_bench --engine); cpp-loop: envhive's task "
        f"in the same loop. MB/env: (RSS at 32 envs - RSS at 8 envs) / 24, after the warm-up.\n"
        f"Targets: envhive >= {TARGET_ENVPOOL}x EnvPool 1.2.5, >= 0.9x the engine loop x threads.\n"
        f"Load average (1, 5, 15 min) before: {', '.join(f'{v:.1f}' for v in load_before)}; "
        f"after: {', '.join(f'{v:.1f}' for v in load_after)} ({os.cpu_count()} cores, shared machine).\n"
    )
    sys.stdout.write(text)
    data["engine_loop"] = {t: {"steps_per_s": v[0], "steps_per_cpu_s": v[1]} for t, v in loops.items()}
    data["steps_per_cpu_s"] = [{"engine": e, "task": t, "num_envs": n, "median": v, "samples": samples[(e, t, n)]}
                               for (e, t, n), v in cpu.items()]  # fmt: skip
    data["report"] = text
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    if a.markdown:
        a.markdown.write_text(text)
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for r in result.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
