"""ViZDoom under EnvPool's names: envhive's native pool (the vizdoom wheel's C++ client on the pool's
threads) against EnvPool 1.2.5's ViZDoom, the vizdoom package's own Python API in a loop (one env),
and envhive's process backend over vizdoom's own Gymnasium env (the route the issue weighs the native
one against), on the same scenarios.

Cases: `--num-envs` envs sync, and the same envs async with batch num_envs / 2 (envhive, EnvPool;
recv/send); vizdoom-python is one DoomGame in a loop (`make_action(a, 4)`, `get_state()`), so its row is
the same in both cases, and envhive-process runs sync only. Each engine runs in a fresh process,
repetitions interleaved, medians. Reported: steps/s and steps
per CPU-second of the whole process tree, the engine processes included (each DoomGame runs its
engine in a process of its own), which a loaded machine bends far less than steps/s. A step is
frame_skip=4 tics in every engine (vizdoom's Gymnasium env: frame_skip=4).

    python benchmarks/vizdoom_compare.py                    # ~10 minutes on 2 cores
    python benchmarks/vizdoom_compare.py --tasks D1Basic-v1 --seconds 3 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = "D1Basic-v1,Basic-v1,D3Battle-v1"
ENGINES = ("envhive", "envpool", "vizdoom-python", "envhive-process")
# vizdoom's own Gymnasium ids for EnvPool's scenarios (envhive-process runs them)
GYM_IDS = {"Basic-v1": "VizdoomBasic-v1", "HealthGathering-v1": "VizdoomHealthGathering-v1",
           "DefendTheCenter-v1": "VizdoomDefendCenter-v1"}  # fmt: skip

WORKER = r'''
import os, sys, time, numpy as np
engine, task, n, threads, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
gym_id, batch = sys.argv[6], int(sys.argv[7])

def tree_cpu():
    """utime + stime (s) of this process and every descendant alive now."""
    tick = os.sysconf("SC_CLK_TCK")
    children = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append((int(pid), int(fields[11]) + int(fields[12])))
    total, todo = 0, [os.getpid()]
    own = open(f"/proc/{os.getpid()}/stat").read().rsplit(")", 1)[1].split()
    total = int(own[11]) + int(own[12])
    while todo:
        for pid, t in children.get(todo.pop(), []):
            total += t
            todo.append(pid)
    return total / tick

rng = np.random.default_rng(0)
if engine == "vizdoom-python":
    import vizdoom as vzd
    from envhive.families import vizdoom as fam
    cfg, wad = fam.scenario_files(fam.ENVPOOL_IDS[task])
    _, eng, iwad = fam.doom_files()
    g = vzd.DoomGame(); g.set_vizdoom_path(eng); g.set_doom_game_path(iwad); g.load_config(cfg)
    g.set_doom_scenario_path(wad); g.set_window_visible(False); g.set_mode(vzd.Mode.PLAYER)
    g.add_game_args(fam.GAME_ARGS.get(fam.ENVPOOL_IDS[task], "")); g.set_episode_timeout(526 * 4); g.init()
    nb = g.get_available_buttons_size()
    acts = [list(map(float, a)) for a in rng.integers(0, 2, size=(512, nb))]
    def step(k):
        g.make_action(acts[k % 512], 4)
        if g.is_episode_finished():
            g.new_episode()
        g.get_state()
        return 1
    close = g.close
elif engine == "envhive-process":
    import envhive, gymnasium, vizdoom.gymnasium_wrapper  # registers vizdoom's own ids
    env = envhive.make(gym_id, backend="process", num_envs=n, num_workers=threads, frame_skip=4)
    env.reset(seed=0)
    acts = [np.array([env.single_action_space.sample() for _ in range(n)]) for _ in range(64)]
    def step(k):
        env.step(acts[k % 64]); return n
    close = env.close
else:
    if engine == "envpool":
        import envpool
        env = envpool.make_gymnasium(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
    else:
        import envhive
        env = envhive.make(task, num_envs=n, batch_size=batch, num_threads=threads, seed=0)
    space = getattr(env, "single_action_space", env.action_space)
    nb = space.shape[0]
    acts = rng.integers(0, 2, size=(512, n, nb)).astype(np.float64)
    if batch == n:
        env.reset()
        def step(k):
            env.step(acts[k % 512]); return n
    else:
        env.async_reset()
        def step(k):
            info = env.recv()[-1]
            env.send(acts[k % 512, :batch], info["env_id"]); return batch
    def close():
        if batch != n:
            for _ in range(n // batch):  # every env back before closing (EnvPool hangs otherwise)
                env.recv()
        env.close()

def run(secs):
    steps, k, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < secs:
        steps += step(k); k += 1
    return steps, time.perf_counter() - t0
run(min(1.0, seconds / 2))
c0 = tree_cpu()
steps, wall = run(seconds)
c1 = tree_cpu()
close()
print(f"{steps / wall:.2f} {steps / max(c1 - c0, 1e-9):.2f}")
'''


def measure(engine: str, task: str, n: int, batch: int, threads: int, seconds: float) -> tuple[float, float] | None:
    gym_id = GYM_IDS.get(task) or ""
    if engine == "envhive-process" and not gym_id:
        return None
    done = subprocess.run(
        [sys.executable, "-c", WORKER, engine, task, str(n), str(threads), str(seconds), gym_id, str(batch)],
        capture_output=True, text=True, timeout=600, env=os.environ,
    )  # fmt: skip
    if done.returncode != 0 or not done.stdout.strip():
        print(f"{engine} {task}: failed: {(done.stdout + done.stderr)[-500:]}", file=sys.stderr)
        return None
    wall, cpu = done.stdout.split()[-2:]
    return float(wall), float(cpu)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=TASKS)
    p.add_argument("--num-envs", type=int, default=8, help="envs per pool (vizdoom-python: 1)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument("--out", type=Path, default=RESULTS / "vizdoom_compare.json")
    p.add_argument("--markdown", type=Path, default=None)
    a = p.parse_args(argv)
    tasks = a.tasks.split(",")
    engines = a.engines.split(",")
    load_before = os.getloadavg()
    modes = {"sync": a.num_envs, "async": a.num_envs // 2}  # batch size
    samples: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for r in range(a.repeats):
        for task in tasks:
            for mode, batch in modes.items():
                for engine in engines if r % 2 == 0 else engines[::-1]:
                    if engine in ("vizdoom-python", "envhive-process") and mode == "async":
                        continue
                    n = 1 if engine == "vizdoom-python" else a.num_envs
                    got = measure(engine, task, n, 1 if n == 1 else batch, a.threads, a.seconds)
                    if got:
                        samples.setdefault((engine, task, mode), []).append(got)
    load_after = os.getloadavg()
    text = (
        f"{a.num_envs} envs ({', '.join(f'{m}: batch {b}' for m, b in modes.items())}), {a.threads} threads "
        f"(process backend: {a.threads} workers), frame_skip 4, "
        f"medians of {a.repeats} interleaved runs x {a.seconds} s\n\n"
        "| task | mode | engine | steps/s | steps per CPU-second | envhive / it (steps/s) "
        "| envhive / it (per CPU-s) |\n"
        "|---|---|---|---:|---:|---:|---:|\n"
    )
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in samples.items()}
    for task in tasks:
        for mode in modes:
            hive = med.get(("envhive", task, mode))
            for engine in engines:
                single = engine in ("vizdoom-python", "envhive-process")
                m = med.get((engine, task, "sync" if single else mode))
                if m is None:
                    text += f"| {task} | {mode} | {engine} | - | - | - | - |\n"
                    continue
                r = (f"{hive[0] / m[0]:.2f}x", f"{hive[1] / m[1]:.2f}x") if hive else ("-", "-")
                text += f"| {task} | {mode} | {engine} | {m[0]:,.0f} | {m[1]:,.0f} | {r[0]} | {r[1]} |\n"
    text += (
        f"\nLoad average (1, 5, 15 min) before: {', '.join(f'{v:.1f}' for v in load_before)}; "
        f"after: {', '.join(f'{v:.1f}' for v in load_after)} ({os.cpu_count()} cores, shared machine).\n"
    )
    sys.stdout.write(text)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({"samples": {"|".join(k): v for k, v in samples.items()}, "report": text}) + "\n")
    if a.markdown:
        a.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
