"""The process backend (any Gymnasium env in worker processes) vs Gymnasium's vector envs,
the multi-process ceiling and PufferLib 3, side by side in one run of the envhive.bench harness.

Cases (sync, 2 workers / processes on 2 cores; each measurement in a fresh process, repetitions
interleaved across engines, medians):
  * Gymnasium's Python CartPole-v1 at 16 and 64 envs: envhive-process (envhive.make(...,
    backend="process")) vs AsyncVectorEnv, SyncVectorEnv, the ceiling (`gymnasium-procs`: one
    plain single-env process per core, summed) and PufferLib 3's Multiprocessing.
  * LunarLander-v3 (Box2D) at 16 envs: envhive-process (Gymnasium's Python env on the process
    backend; envhive's native task is in benchmarks/box2d_compare.py) vs AsyncVectorEnv and PufferLib.
  * Memory: RSS and PSS of the process tree at 64 envs (from the CartPole-64 measurements).
PufferLib runs in its own interpreter (numpy < 2, gymnasium 0.29, pygame for Box2D): set
ENVHIVE_BENCH_PUFFER_PYTHON (default: .venv-puffer/bin/python of this checkout, which `make bench-puffer`
builds from benchmarks/pufferlib-requirements.txt).
`--alt-python PATH` adds `envhive-alt`: the process backend of another build (its venv's python),
for before/after comparisons in the same interleaved run.

    python benchmarks/process_compare.py                 # ~4 minutes on 2 cores
    python benchmarks/process_compare.py --seconds 3 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from envhive.bench import Case, Settings, compare, format_markdown, machine_info

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PUFFER_DEFAULT = ROOT / ".venv-puffer" / "bin" / "python"  # make bench-puffer
CARTPOLE = ("envhive-process", "gymnasium-async", "gymnasium-sync", "gymnasium-procs", "pufferlib")
LANDER = ("envhive-process", "gymnasium-async", "gymnasium-sync", "gymnasium-procs", "pufferlib")
TARGETS = {
    "vs_async": 5.0,  # CartPole
    "vs_ceiling": 0.8,
    "vs_sync": 1.0,
    "lander_vs_async": 1.5,
    "vs_pufferlib": 1.0,
}


def rates(data: dict) -> dict[tuple[str, int, str], dict]:
    return {(c["task"], c["num_envs"], r["engine"]): r for c in data["cases"] for r in c["rows"]}


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a and b else None


def fmt(x: float | None, unit: str = "x") -> str:
    return "—" if x is None else f"{x:.2f}{unit}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--workers", type=int, default=2, help="worker processes / plain processes (default 2)")
    p.add_argument("--out", type=Path, default=RESULTS / "process_compare.json", help="JSON results")
    p.add_argument("--markdown", type=Path, default=None, help="also write the tables here (e.g. results/...md)")
    p.add_argument("--alt-python", default=None, help="another build's python: adds envhive-alt (its process backend)")
    p.add_argument("--skip-lander", action="store_true", help="CartPole only")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)
    cart_engines, lander_engines = list(CARTPOLE), list(LANDER)
    if a.alt_python:
        os.environ["ENVHIVE_BENCH_ALT_PYTHON"] = a.alt_python
        os.environ["ENVHIVE_BENCH_ALT_ENGINE"] = "envhive-process"
        cart_engines.insert(1, "envhive-alt")
        lander_engines.insert(1, "envhive-alt")

    if "ENVHIVE_BENCH_PUFFER_PYTHON" not in os.environ and PUFFER_DEFAULT.exists():
        os.environ["ENVHIVE_BENCH_PUFFER_PYTHON"] = str(PUFFER_DEFAULT)
    settings = Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats)
    load_before = os.getloadavg()[0]
    w = a.workers
    cart = compare(
        [Case("CartPole-v1", 16, 16, w), Case("CartPole-v1", 64, 64, w)], cart_engines, settings, not a.quiet
    )
    load_mid = os.getloadavg()[0]
    lander_case = [Case("LunarLander-v3", 16, 16, w)]
    lander = None if a.skip_lander else compare(lander_case, lander_engines, settings, not a.quiet)
    c, lr = rates(cart.to_json()), (rates(lander.to_json()) if lander else {})

    def sps(table: dict, task: str, n: int, engine: str) -> float | None:
        row = table.get((task, n, engine))
        return row["steps_per_s"] if row else None

    summary: dict[str, dict[str, float | None]] = {}
    for n in (16, 64):
        ours = sps(c, "CartPole-v1", n, "envhive-process")
        summary[f"CartPole-v1/{n}"] = {
            "steps_per_s": ours,
            "vs_async": ratio(ours, sps(c, "CartPole-v1", n, "gymnasium-async")),
            "vs_sync": ratio(ours, sps(c, "CartPole-v1", n, "gymnasium-sync")),
            "vs_ceiling": ratio(ours, sps(c, "CartPole-v1", n, "gymnasium-procs")),
            "vs_pufferlib": ratio(ours, sps(c, "CartPole-v1", n, "pufferlib")),
            "vs_first_version": ratio(ours, sps(c, "CartPole-v1", n, "envhive-alt")),
        }
    ours = sps(lr, "LunarLander-v3", 16, "envhive-process")
    summary["LunarLander-v3/16"] = {
        "steps_per_s": ours,
        "vs_async": ratio(ours, sps(lr, "LunarLander-v3", 16, "gymnasium-async")),
        "vs_sync": ratio(ours, sps(lr, "LunarLander-v3", 16, "gymnasium-sync")),
        "vs_ceiling": ratio(ours, sps(lr, "LunarLander-v3", 16, "gymnasium-procs")),
        "vs_pufferlib": ratio(ours, sps(lr, "LunarLander-v3", 16, "pufferlib")),
        "vs_first_version": ratio(ours, sps(lr, "LunarLander-v3", 16, "envhive-alt")),
    }
    memory = {
        engine: {k: c[("CartPole-v1", 64, engine)].get(k) for k in ("rss_mb", "pss_mb", "processes")}
        for engine in ("envhive-process", "envhive-alt", "gymnasium-async", "gymnasium-sync", "pufferlib")
        if ("CartPole-v1", 64, engine) in c
    }

    tables = [format_markdown(cart)] + ([format_markdown(lander)] if lander else [])
    out = [*tables, "Ratios (envhive process backend / engine):", ""]
    for case, r in summary.items():
        parts = [f"{k} {fmt(v)}" for k, v in r.items() if k != "steps_per_s"]
        out.append(f"- {case}: {fmt(r['steps_per_s'], ' steps/s') if r['steps_per_s'] else '—'}; " + ", ".join(parts))
    out += ["", "Memory of the process tree at 64 envs (CartPole-v1):", ""]
    for engine, m in memory.items():
        out.append(
            f"- {engine}: RSS {fmt(m['rss_mb'], ' MB')}, PSS {fmt(m['pss_mb'], ' MB')}, {m['processes']} processes"
        )
    load_after = os.getloadavg()[0]
    out += [
        "",
        f"1-minute load average: {load_before:.2f} before, {load_mid:.2f} after CartPole, {load_after:.2f} after "
        "the run (2 cores).",
    ]
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "machine": machine_info(),
        "cartpole": cart.to_json(),
        "lunarlander": lander.to_json() if lander else None,
        "summary": summary,
        "memory_64": memory,
        "targets": TARGETS,
        "load_average": [load_before, load_mid, load_after],
    }
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    if a.markdown:
        a.markdown.write_text(text)
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for res in (cart, lander) if res for r in res.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
