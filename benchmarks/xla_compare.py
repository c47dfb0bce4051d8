"""env.xla() inside a jitted lax.scan vs envhive's numpy step loop vs EnvPool 1.2.5's xla(), side by side.

For each task (CartPole-v1 N=64, HalfCheetah-v5 N=16, Pong-v5 N=16 by default) and each repetition,
one worker process per engine builds a sync pool, compiles, and times every variant on the same
number of steps with random actions (3 interleaved timed runs each, median):

* ``numpy loop``: ``env.step(a)`` from Python, actions drawn beforehand with numpy;
* ``numpy loop, numpy.random``: the same, drawing each step's actions with numpy in the loop (the
  numpy counterpart of drawing them with ``jax.random`` inside the scan);
* ``jit scan, jax.random``: ``lax.scan`` of ``step`` with the actions drawn by ``jax.random`` inside;
* ``jit scan, precomputed``: ``lax.scan`` of ``step`` over the same pre-drawn actions (``xs``).

Then the vmap case: 4 pools of 16 envs stepped by ONE ``jax.vmap``-ed scan (pools of 2 threads, which
step concurrently, and of 1 thread, which the calling thread steps in turn), vs one pool of 64 envs
(``--threads`` threads), vs the 4 pools one after another (``lax.map``); each vmap case also runs
with ``ENVHIVE_XLA_LANE_ASSIST=0`` (whole lanes, no guests) and ``ENVHIVE_XLA_LANE_THREADS=1`` (no
lane helpers). EnvPool's
``xla()`` is tried under vmap too (it refuses). Engines alternate (interleaved repetitions); the
table gives medians of steps/s (env steps: rows x calls) and ratios.

    python benchmarks/xla_compare.py                 # about 3-4 min on 2 cores
    python benchmarks/xla_compare.py --repeats 5 --tasks CartPole-v1

Needs the ``jax`` and ``bench`` extras (``pip install "envhive[jax,bench]"``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
# task -> (num_envs, steps per timed run)
# Pong: 150 steps (0.5 s per timed run here); at 40, one slow phase of a shared VM moved a whole repetition.
CASES: dict[str, tuple[int, int]] = {"CartPole-v1": (64, 2000), "HalfCheetah-v5": (16, 200), "Pong-v5": (16, 150)}
VMAP_TASKS = {"CartPole-v1": 2000, "HalfCheetah-v5": 100}  # 4 x 16 vs 64 envs; steps per timed run


# ------------------------------------------------------------------------------------------ workers


def _sampler(space: Any, n: int) -> tuple[Any, Any]:
    """(numpy draw of [steps, n, ...] actions, jax draw of one [n, ...] batch from a key)."""
    import gymnasium
    import jax
    import numpy as np

    rng = np.random.default_rng(0)
    if isinstance(space, gymnasium.spaces.Discrete):
        k = int(space.n)
        return (lambda steps: rng.integers(0, k, (steps, n)).astype(np.int32)), (
            lambda key: jax.random.randint(key, (n,), 0, k)
        )
    lo, hi = float(space.low.min()), float(space.high.max())
    shape, dtype = space.shape, space.dtype  # the space's own dtype (EnvPool reads it blind)
    return (lambda steps: rng.uniform(lo, hi, (steps, n, *shape)).astype(dtype)), (
        lambda key: jax.random.uniform(key, (n, *shape), dtype, minval=lo, maxval=hi)
    )


def _scan_fns(step: Any, draw: Any, steps: int) -> tuple[Any, Any]:
    import jax
    import jax.numpy as jnp

    @jax.jit
    def random_scan(h: Any, key: Any) -> Any:
        def body(h: Any, k: Any) -> Any:
            h, (_obs, rew, *_r) = step(h, draw(k))
            return h, jnp.sum(rew)

        return jax.lax.scan(body, h, jax.random.split(key, steps))

    @jax.jit
    def pre_scan(h: Any, acts: Any) -> Any:
        def body(h: Any, a: Any) -> Any:
            h, (_obs, rew, *_r) = step(h, a)
            return h, jnp.sum(rew)

        return jax.lax.scan(body, h, acts)

    return random_scan, pre_scan


def _time_variants(env: Any, step: Any, handle: Any, n: int, steps: int) -> dict[str, float]:
    """steps/s (env steps) of the numpy loop and the two jit scans on one pool."""
    import jax
    import jax.numpy as jnp

    draw_np, draw = _sampler(env.single_action_space if hasattr(env, "single_action_space") else env.action_space, n)
    acts_np = draw_np(steps)
    acts = jnp.asarray(acts_np)
    random_scan, pre_scan = _scan_fns(step, draw, steps)
    state = {"h": handle, "key": jax.random.key(0)}

    def run_random() -> None:
        state["key"], sub = jax.random.split(state["key"])
        state["h"], r = random_scan(state["h"], sub)
        jax.block_until_ready(r)

    def run_pre() -> None:
        state["h"], r = pre_scan(state["h"], acts)
        jax.block_until_ready(r)

    def run_numpy() -> None:
        for t in range(steps):
            env.step(acts_np[t])

    def run_numpy_random() -> None:  # random actions drawn in the loop, as the jax.random scan draws them
        for _ in range(steps):
            env.step(draw_np(1)[0])

    variants = {
        "numpy loop": run_numpy,
        "numpy loop, numpy.random": run_numpy_random,
        "jit scan, jax.random": run_random,
        "jit scan, precomputed": run_pre,
    }
    return _interleaved(variants, steps * n)


def _interleaved(variants: dict[str, Any], env_steps: int, rounds: int = 3) -> dict[str, Any]:
    """Median steps/s of each variant over `rounds` interleaved timed runs, after one warm-up
    (compilation) run each."""
    for fn in variants.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, fn in variants.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: env_steps / statistics.median(t) for name, t in times.items()}


def worker_envhive(task: str, n: int, steps: int, threads: int) -> dict[str, Any]:
    import envhive

    env = envhive.make(task, num_envs=n, num_threads=threads, seed=0)
    env.reset()
    handle, _, _, step = env.xla()
    # The numpy loop and the scans step the same pool: the scans carry the handle the last call returned.
    res = _time_variants(env, step, handle, n, steps)
    env.close()
    return res


def worker_envpool(task: str, n: int, steps: int, threads: int) -> dict[str, Any]:
    import envpool
    import jax
    import jax.numpy as jnp
    import numpy as np

    env = envpool.make(task, env_type="gymnasium", num_envs=n, batch_size=n, num_threads=threads, seed=0)
    if env.action_space.dtype == np.float64:
        # EnvPool's xla() reads actions as the space's dtype without checking what it is given:
        # float32 actions for its float64 MuJoCo action space corrupt the heap (free(): invalid
        # next size). Its float64 actions need jax_enable_x64.
        jax.config.update("jax_enable_x64", True)
    handle, _, _, step = env.xla()
    env.reset()
    res: dict[str, Any] = _time_variants(env, step, handle, n, steps)
    # EnvPool's xla() under vmap over a batch of handles
    try:
        a = jnp.zeros((2, n, *env.action_space.shape), env.action_space.dtype)
        jax.jit(jax.vmap(lambda h, a: step(h, a)[0])).trace(jnp.stack([jnp.asarray(handle)] * 2), a)
        res["vmap"] = "traced"
    except Exception as e:  # what it raises is the measurement
        res["vmap"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    env.close()
    return res


def worker_vmap(task: str, steps: int, threads: int) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp

    import envhive

    big = envhive.make(task, num_envs=64, num_threads=threads, seed=0)
    big.reset()
    # 1 thread: a sync pool has no worker, the calling (XLA) thread steps its envs, so the vmapped
    # call steps the 4 pools one after another on that thread. 2 threads: one worker per pool as
    # well, so the pools step concurrently (4 workers + the caller on the machine's cores).
    groups = {t: [envhive.make(task, num_envs=16, num_threads=t, seed=16 * i) for i in range(4)] for t in (1, 2)}
    for e in (e for g in groups.values() for e in g):
        e.reset()
    _, draw64 = _sampler(big.single_action_space, 64)
    _, draw16 = _sampler(big.single_action_space, 16)
    h64, _, _, step64 = big.xla()
    fns = {t: [e.xla() for e in g] for t, g in groups.items()}
    step16 = fns[1][0].step
    scan64, _ = _scan_fns(step64, draw64, steps)
    scan16, _ = _scan_fns(step16, draw16, steps)
    vmapped = jax.jit(jax.vmap(scan16))
    one_by_one = jax.jit(lambda hs, ks: jax.lax.map(lambda x: scan16(*x), (hs, ks)))
    state: dict[Any, Any] = {"h64": h64, "key": jax.random.key(0)}
    state.update({t: jnp.stack([f.handle for f in fs]) for t, fs in fns.items()})

    def keys(k: int) -> Any:
        state["key"], sub = jax.random.split(state["key"])
        return jax.random.split(sub, k) if k > 1 else sub

    def run_one() -> None:
        state["h64"], r = scan64(state["h64"], keys(1))
        jax.block_until_ready(r)

    def run_batched(fn: Any, t: int) -> Any:
        def run() -> None:
            state[t], r = fn(state[t], keys(4))
            jax.block_until_ready(r)

        return run

    variants = {
        f"1 pool x 64 envs, {threads} threads": run_one,
        "vmap: 4 pools x 16, 2 threads each": run_batched(vmapped, 2),
        "vmap: 4 pools x 16, 1 thread each": run_batched(vmapped, 1),
        "lax.map: 4 pools x 16 (2 threads each), one after another": run_batched(one_by_one, 2),
    }
    out = _interleaved(variants, steps * 64)
    out["custom calls in the vmapped scan"] = vmapped.lower(state[1], keys(4)).as_text().count("envhive_step")
    for e in (big, *groups[1], *groups[2]):
        e.close()
    return out


# ------------------------------------------------------------------------------------------ driver


def run_worker(args: list[str], extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    env = dict(os.environ, JAX_PLATFORMS="cpu", **(extra_env or {}))
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", *args], capture_output=True, text=True, env=env, timeout=900
    )
    if proc.returncode != 0:
        raise RuntimeError(f"worker {args} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median_table(runs: list[dict[str, Any]]) -> dict[str, float]:
    keys = [k for k, v in runs[0].items() if isinstance(v, float)]
    return {k: statistics.median(r[k] for r in runs) for k in keys}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=",".join(CASES), help=f"comma-separated (default {','.join(CASES)})")
    p.add_argument("--threads", type=int, default=2, help="pool threads (default 2)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--no-vmap", action="store_true", help="skip the vmap case")
    p.add_argument("--vmap-only", action="store_true", help="only the vmap case (no EnvPool needed)")
    p.add_argument("--out", type=Path, default=RESULTS / "xla_compare.json", help="JSON results")
    p.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args(argv)

    if a.worker:
        kind, *rest = a.worker
        if kind == "vmap":
            res = worker_vmap(rest[0], int(rest[1]), int(rest[2]))
        else:
            fn = worker_envhive if kind == "envhive" else worker_envpool
            res = fn(rest[0], int(rest[1]), int(rest[2]), int(rest[3]))
        print(json.dumps(res))
        return 0

    tasks = [t for t in a.tasks.split(",") if t]
    raw: dict[str, list[dict[str, Any]]] = defaultdict(list)
    load = [os.getloadavg()[0]]
    for rep in range(a.repeats):
        for task in tasks:
            n, steps = CASES[task]
            engines = ("envhive", "envpool") if rep % 2 == 0 else ("envpool", "envhive")
            for engine in () if a.vmap_only else engines:
                raw[f"{engine} {task}"].append(run_worker([engine, task, str(n), str(steps), str(a.threads)]))
            if not a.no_vmap and task in VMAP_TASKS:
                vmap_args = ["vmap", task, str(VMAP_TASKS[task]), str(a.threads)]
                raw[f"vmap {task}"].append(run_worker(vmap_args))
                # the same with whole lanes only (no thread helps a lane it did not take: as before
                # guests), and with every lane waited for on the XLA thread alone (as before lane helpers)
                raw[f"vmap {task} whole-lanes"].append(run_worker(vmap_args, {"ENVHIVE_XLA_LANE_ASSIST": "0"}))
                raw[f"vmap {task} lanes-1"].append(run_worker(vmap_args, {"ENVHIVE_XLA_LANE_THREADS": "1"}))
        load.append(os.getloadavg()[0])
        print(f"repetition {rep + 1}/{a.repeats} done (load {load[-1]:.1f})", file=sys.stderr, flush=True)

    lines = [f"load average (1 min) during the run: {' -> '.join(f'{x:.1f}' for x in load)}", ""]
    lines += [
        "| task, N | envhive numpy loop (precomputed / numpy.random) | envhive jit scan (jax.random / precomputed) "
        "| EnvPool numpy loop (precomputed / numpy.random) | EnvPool xla() scan (jax.random / precomputed) "
        "| scan / own numpy loop: random actions, precomputed | scan / EnvPool xla() scan: random, precomputed |",
        "|---" * 7 + "|",
    ]
    engine_tasks = [] if a.vmap_only else tasks
    for task in engine_tasks:
        hv, ep = median_table(raw[f"envhive {task}"]), median_table(raw[f"envpool {task}"])
        loop, loop_rng = "numpy loop", "numpy loop, numpy.random"
        scan_rng, scan_pre = "jit scan, jax.random", "jit scan, precomputed"
        cells = [
            f"{hv[loop]:,.0f} / {hv[loop_rng]:,.0f}",
            f"{hv[scan_rng]:,.0f} / {hv[scan_pre]:,.0f}",
            f"{ep[loop]:,.0f} / {ep[loop_rng]:,.0f}",
            f"{ep[scan_rng]:,.0f} / {ep[scan_pre]:,.0f}",
            f"{hv[scan_rng] / hv[loop_rng]:.2f}, {hv[scan_pre] / hv[loop]:.2f}",
            f"{hv[scan_rng] / ep[scan_rng]:.2f}, {hv[scan_pre] / ep[scan_pre]:.2f}",
        ]
        lines.append(f"| {task}, {CASES[task][0]} | " + " | ".join(cells) + " |")
    lines += ["", "steps/s = env steps per second (rows x calls), medians of the repetitions.", ""]
    for task in tasks:
        for key, how in (
            (f"vmap {task}", "lane helpers and guests"),
            (f"vmap {task} whole-lanes", "ENVHIVE_XLA_LANE_ASSIST=0 (helpers, whole lanes)"),
            (f"vmap {task} lanes-1", "ENVHIVE_XLA_LANE_THREADS=1"),
        ):
            if key not in raw:
                continue
            vm = median_table(raw[key])
            base = next(iter(vm.values()))
            one_thread = "vmap: 4 pools x 16, 1 thread each"
            own_ratio = statistics.median(r[one_thread] / next(iter(r.values())) for r in raw[key])
            lines.append(
                f"vmap, {task}, {how} (jit scan, jax.random actions; custom calls in the vmapped scan: "
                f"{raw[key][0]['custom calls in the vmapped scan']}; 1 thread each / 1 pool, median of the runs' "
                f"own ratios: {own_ratio:.2f}):"
            )
            lines += [f"  {k}: {v:,.0f} steps/s (x{v / base:.2f})" for k, v in vm.items()]
    if not a.vmap_only:
        vmap_ep = {r.get("vmap") for t in tasks for r in raw[f"envpool {t}"]}
        lines.append(f"EnvPool 1.2.5 xla() under jax.vmap over 2 handles: {sorted(vmap_ep)}")
    text = "\n".join(lines)
    print(text)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({"raw": raw, "load": load, "threads": a.threads, "summary": text}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
