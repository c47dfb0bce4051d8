"""envhive vs EnvPool vs ale-py's AtariVectorEnv vs Gymnasium AsyncVectorEnv on Atari, side by
side, against the physical limit, with the memory each needs.

Every engine runs EnvPool's Atari defaults (the DQN recipe): frame skip 4 with max-pooling,
84x84 gray, 4 stacked frames, up to 30 no-op frames and FIRE at reset, no sticky actions, no
reward clipping, no episodic life. Gymnasium's pipeline is `ALE/<Game>-v5` (frameskip=1,
repeat_action_probability=0) + AtariPreprocessing(noop_max=30) + FrameStackObservation(4), one
process per env (it has no FIRE reset). Cases: each task at num_envs 8 and 32, sync
(batch = num_envs) and async (batch = num_envs / 2, recv/send); AsyncVectorEnv always steps all
envs. Steps/s counts agent steps (one action for one env); frames/s = 4 x that.

Each measurement runs in a fresh process (construct, reset, warm up, then time), repetitions
interleaved (A B C ... A B C ...) so that load on the machine hits all engines alike; medians are
reported with the spread. Memory: the resident set of the whole process tree (the process and
all its children) after the warm-up, at num_envs 32, sync.

The physical limit of a case is min(cores, num_envs) x the steps/s of `atari_loop_bench`: one
env of the task stepped by a plain single-threaded C++ loop, no pool and no Python (the same
AtariEnv class and defaults; CMake target behind -DENVHIVE_BUILD_BENCH=ON, built by this script
into build/atari-bench when missing). It runs inside the same interleaved rotation. With
--no-loop-bench the limit comes from envhive itself (num_envs=1, num_threads=1).

    python benchmarks/atari_compare.py                                   # about 15 min on 2 cores
    python benchmarks/atari_compare.py --tasks Pong-v5 --num-envs 8 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from loop_bench_build import loop_bench_binary as build_loop_bench

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
BENCH_BUILD = ROOT / "build" / "atari-bench"
ENGINES = ("envhive", "envpool", "ale-vec", "gym-async")
LABELS = {
    "envhive": "envhive",
    "envpool": "EnvPool",
    "ale-vec": "ale-py AtariVectorEnv",
    "gym-async": "Gymnasium AsyncVectorEnv",
    "cpp-loop": "C++ loop, 1 thread",
    "envhive-alt": "envhive (--alt-python)",
}
ACTION_BATCHES = 64


# ---------------------------------------------------------------- the worker (a fresh process)


def rom_id(task: str) -> str:
    """Pong-v5 -> pong, MontezumaRevenge-v5 -> montezuma_revenge (ale-py's ROM ids)."""
    import ale_py.roms

    name = task.rsplit("-", 1)[0].lower()
    for rom in ale_py.roms.get_all_rom_ids():
        if rom.replace("_", "") == name:
            return rom
    raise ValueError(f"no ALE ROM for {task}")


def tree_rss_mb(pid: int | None = None) -> float:
    """Resident memory of a process and all its descendants, in MB (from /proc)."""
    pid = os.getpid() if pid is None else pid
    total, todo = 0, [pid]
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        p = todo.pop()
        try:
            total += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * page
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total / 1e6


def build_engine(engine: str, task: str, num_envs: int, batch: int, threads: int, seed: int):
    """-> (step_fn(actions), close_fn, action count)."""
    if engine in ("envhive", "envhive-alt"):
        import envhive

        env = envhive.make(task, num_envs=num_envs, batch_size=batch, num_threads=threads, seed=seed)
        n = env.single_action_space.n
    elif engine == "envpool":
        import envpool

        env = envpool.make_gymnasium(task, num_envs=num_envs, batch_size=batch, num_threads=threads, seed=seed)
        n = env.action_space.n
    elif engine == "ale-vec":
        from ale_py.vector_env import AtariVectorEnv

        env = AtariVectorEnv(
            rom_id(task), num_envs, batch_size=batch, num_threads=threads, repeat_action_probability=0.0,
            noop_max=30, use_fire_reset=True, reward_clipping=False, episodic_life=False,
        )  # fmt: skip
        n = env.single_action_space.n
        if batch < num_envs:  # ale-py's send() addresses the envs of the last batch received
            env.reset(seed=seed)

            def step_ale(actions: Any) -> None:
                env.send(actions)
                env.recv()

            return step_ale, env.close, n
    elif engine == "gym-async":
        import ale_py
        import gymnasium
        from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

        gymnasium.register_envs(ale_py)

        def make_one() -> gymnasium.Env:
            e = gymnasium.make(f"ALE/{task}", frameskip=1, repeat_action_probability=0.0)
            e = AtariPreprocessing(e, noop_max=30, frame_skip=4, screen_size=84, grayscale_obs=True)
            return FrameStackObservation(e, 4)

        env = gymnasium.vector.AsyncVectorEnv([make_one] * num_envs)
        env.reset(seed=seed)
        return (lambda actions: env.step(actions)), env.close, env.single_action_space.n
    else:
        raise ValueError(engine)

    if batch == num_envs:
        env.reset()

        def step_sync(actions: Any) -> None:
            env.step(actions)

        return step_sync, env.close, n
    env.async_reset()

    def step_async(actions: Any) -> None:
        env.send(actions, env.recv()[4]["env_id"])

    return step_async, env.close, n


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    engine, task, n_envs, batch = spec["engine"], spec["task"], spec["num_envs"], spec["batch_size"]
    t0 = time.perf_counter()
    step, close, n = build_engine(engine, task, n_envs, batch, spec["threads"], spec["seed"])
    construct_s = time.perf_counter() - t0
    rows = n_envs if engine == "gym-async" else batch
    rng = np.random.default_rng(spec["seed"])
    actions = [rng.integers(0, n, rows).astype(np.int64) for _ in range(ACTION_BATCHES)]

    def run_for(seconds: float) -> tuple[int, float]:
        calls, start = 0, time.perf_counter()
        while True:
            for k in range(16):
                step(actions[(calls + k) % ACTION_BATCHES])
            calls += 16
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return calls, elapsed

    run_for(spec["warmup"])
    rss = tree_rss_mb()
    cpu0 = os.times()
    calls, elapsed = run_for(spec["seconds"])
    cpu1 = os.times()
    close()
    return {
        "steps_per_s": calls * rows / elapsed,
        "construct_s": construct_s,
        "rss_mb": rss,
        "cpu_cores_main": (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / elapsed,
    }


# ---------------------------------------------------------------- the C++ single-thread loop


def loop_bench_binary(path: Path | None) -> Path | None:
    """atari_loop_bench: the given one, or build/atari-bench's (built if needed)."""
    return build_loop_bench("atari_loop_bench", BENCH_BUILD, path, ("-DENVHIVE_BUILD_MUJOCO=OFF",))


def rom_dir() -> str:
    import importlib.util

    spec = importlib.util.find_spec("ale_py")
    return os.environ.get("ALE_ROMS_DIR") or str(Path(spec.submodule_search_locations[0]) / "roms")


# ---------------------------------------------------------------- the parent: schedule and report


def measure(spec: dict[str, Any], binary: Path | None, timeout: float, scratch: str) -> dict[str, Any]:
    if spec["engine"] == "cpp-loop":
        if binary is None:  # fallback: envhive's pool with one env on one thread
            return measure(dict(spec, engine="envhive", threads=1), None, timeout, scratch)
        out = subprocess.run(
            [str(binary), rom_dir(), spec["task"], str(spec["seconds"]), str(spec["seed"])],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        m = re.search(r"steps_per_s=([0-9.]+)", out.stdout)
        return {"steps_per_s": float(m.group(1))} if m else {"error": out.stderr[-500:] or "no output"}
    spec = dict(spec)
    python = spec.pop("python", None) or sys.executable
    try:
        proc = subprocess.run(
            [python, __file__, "--worker", json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=scratch,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f}s"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
    return {"error": tail}


def available(engine: str) -> bool:
    import importlib.util

    module = {"envhive": "envhive", "envpool": "envpool", "ale-vec": "ale_py", "gym-async": "cv2"}.get(engine)
    return module is None or importlib.util.find_spec(module) is not None


def fmt(v: float | None, spec: str = ",.0f") -> str:
    return "—" if v is None else format(v, spec)


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "—"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default="Pong-v5,Breakout-v5")
    p.add_argument("--num-envs", default="8,32")
    p.add_argument("--engines", default=",".join(ENGINES), help=f"beside the C++ loop (default {','.join(ENGINES)})")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per run")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--memory-envs", type=int, default=32, help="num_envs of the memory column")
    p.add_argument("--loop-bench", type=Path, default=None, help="path of a built atari_loop_bench")
    p.add_argument("--no-loop-bench", action="store_true", help="limit from envhive num_envs=1 instead")
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--alt-python", help="also time envhive with this interpreter (another build), as envhive-alt")
    p.add_argument("--out", type=Path, default=RESULTS / "atari_compare.json")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(json.loads(a.worker))), flush=True)
        return 0

    cores = os.cpu_count() or 1
    threads = a.threads or cores
    tasks = [t for t in a.tasks.split(",") if t]
    sizes = [int(n) for n in a.num_envs.split(",")]
    engines = [e for e in a.engines.split(",") if e]
    skipped = [e for e in engines if not available(e)]
    engines = [e for e in engines if e not in skipped]
    binary = None if a.no_loop_bench else loop_bench_binary(a.loop_bench)
    base = {"threads": threads, "seconds": a.seconds, "warmup": a.warmup, "seed": a.seed}
    specs = []
    for task in tasks:
        specs.append(dict(base, engine="cpp-loop", task=task, num_envs=1, batch_size=1))
        for n in sizes:
            for e in engines + (["envhive-alt"] if a.alt_python else []):
                for batch in (n, n // 2) if e != "gym-async" else (n,):
                    spec = dict(base, engine=e, task=task, num_envs=n, batch_size=max(1, batch))
                    if e == "envhive-alt":
                        spec["python"] = a.alt_python
                    specs.append(spec)
    results: dict[int, list[dict[str, Any]]] = {i: [] for i in range(len(specs))}
    t_start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="envhive-atari-bench-") as scratch:
        for rep in range(a.repeats):
            for i, spec in enumerate(specs):
                if any("error" in r for r in results[i]):
                    continue
                label = f"{spec['engine']} {spec['task']} N={spec['num_envs']} B={spec['batch_size']}"
                print(f"[{time.monotonic() - t_start:5.0f}s] rep {rep + 1}/{a.repeats} {label}", file=sys.stderr)
                r = measure(spec, binary, a.timeout, scratch)
                if "error" in r:
                    print(f"  failed: {r['error']}", file=sys.stderr)
                results[i].append(r)

    def median(i: int, key: str) -> float | None:
        vals = [r[key] for r in results[i] if r.get(key) is not None]
        return statistics.median(vals) if vals else None

    def spread(i: int) -> float | None:
        vals = [r["steps_per_s"] for r in results[i] if "steps_per_s" in r]
        return (max(vals) - min(vals)) / statistics.median(vals) if len(vals) > 1 else None

    index = {(s["engine"], s["task"], s["num_envs"], s["batch_size"]): i for i, s in enumerate(specs)}

    def sps(engine: str, task: str, n: int, batch: int) -> float | None:
        i = index.get((engine, task, n, batch))
        return None if i is None else median(i, "steps_per_s")

    how = "atari_loop_bench (C++ loop, no pool, no Python)" if binary else "envhive num_envs=1 num_threads=1"
    out = [f"# Atari: envhive vs EnvPool vs ale-py vs Gymnasium ({cores} cores, {threads} threads)\n"]
    out.append(f"Engines skipped (not installed): {', '.join(skipped)}\n" if skipped else "")
    out.append("\n## Steps/s (median of repeats; spread = (max - min) / median)\n\n")
    out.append("| task | N | mode | engine | steps/s | frames/s | spread |\n|---|---:|---|---|---:|---:|---:|\n")
    for i, s in enumerate(specs):
        mode = (
            "1 thread"
            if s["engine"] == "cpp-loop"
            else ("sync" if s["batch_size"] == s["num_envs"] else f"async {s['batch_size']}/{s['num_envs']}")
        )
        v = median(i, "steps_per_s")
        err = next((r["error"] for r in results[i] if "error" in r), None)
        out.append(
            f"| {s['task']} | {s['num_envs']} | {mode} | {LABELS[s['engine']]} | "
            f"{fmt(v) if not err else 'error'} | {fmt(v and 4 * v)} | {fmt(spread(i), '.0%')} |\n"
        )
    out.append(f"\nPhysical limit = min({cores} cores, N) x the single-thread loop ({how}).\n")
    out.append(
        "\n## envhive's ratios\n\n| task | N | mode | engine | steps/s | / EnvPool | / ale-py vec | "
        "/ Gym Async | / physical limit |\n|---|---:|---|---|---:|---:|---:|---:|---:|\n"
    )
    for task in tasks:
        loop = sps("cpp-loop", task, 1, 1)
        for n in sizes:
            for batch in (n, n // 2):
                for hive_engine in ["envhive"] + (["envhive-alt"] if a.alt_python else []):
                    hive = sps(hive_engine, task, n, batch)
                    mode = "sync" if batch == n else f"async {batch}/{n}"
                    limit = loop * min(cores, n) if loop else None
                    out.append(
                        f"| {task} | {n} | {mode} | {LABELS[hive_engine]} | {fmt(hive)} | "
                        f"{ratio(hive, sps('envpool', task, n, batch))} | "
                        f"{ratio(hive, sps('ale-vec', task, n, batch))} | "
                        f"{ratio(hive, sps('gym-async', task, n, n))} | {ratio(hive, limit)} |\n"
                    )
    m = a.memory_envs
    if m in sizes:
        out.append(
            f"\n## Memory at N={m}, sync (RSS of the process tree after warm-up, MB)\n\n"
            "| task | engine | RSS MB | construct s |\n|---|---|---:|---:|\n"
        )
        for task in tasks:
            for e in engines + (["envhive-alt"] if a.alt_python else []):
                i = index.get((e, task, m, m))
                if i is not None:
                    out.append(
                        f"| {task} | {LABELS[e]} | {fmt(median(i, 'rss_mb'))} | "
                        f"{fmt(median(i, 'construct_s'), '.1f')} |\n"
                    )
    text = "".join(out)
    sys.stdout.write(text)

    from envhive.bench import machine_info

    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({
        "machine": machine_info(),
        "physical_limit": {"method": how, "cores": cores},
        "measurements": [dict(s, samples=results[i]) for i, s in enumerate(specs)],
        "report": text,
    }, indent=2) + "\n")  # fmt: skip
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any("error" in r for rs in results.values() for r in rs) else 0


if __name__ == "__main__":
    sys.exit(main())
