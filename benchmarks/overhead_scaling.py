"""Per-call overhead at one env, and throughput as num_envs grows from 1 to 1024.

Engines: envhive, EnvPool and Gymnasium SyncVectorEnv (capped at 256 envs: it is a Python loop
over envs, so more only costs time); one plain `gymnasium.make` env as the per-call reference.
All pools run in sync mode. Prints both tables and saves a two-panel plot (us per step() call
at num_envs=1; steps/s vs num_envs, log-log) and the JSON results.

    python benchmarks/overhead_scaling.py                        # about 3 min on 2 cores
    python benchmarks/overhead_scaling.py --seconds 2 --repeats 5 --max-envs 4096
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from envhive.bench import (
    ENGINES,
    Measurement,
    Result,
    Settings,
    default_threads,
    machine_info,
    parse_engines,
    run_measurements,
)

ROOT = Path(__file__).resolve().parents[1]
POOLS = "envpool,gymnasium-sync"
REFERENCE = "gymnasium-single"  # one plain env: the per-call floor of a Python loop


def sizes(max_envs: int) -> list[int]:
    return [1 << i for i in range(max_envs.bit_length()) if 1 << i <= max_envs]


def overhead_table(results: dict[str, Result]) -> str:
    lines = ["| engine | us per step() at num_envs=1 | steps/s |", "|---|---:|---:|"]
    for engine, r in results.items():
        us = "—" if r.us_per_call is None else f"{r.us_per_call:.1f}"
        sps = "—" if r.steps_per_s is None else f"{r.steps_per_s:,.0f}"
        lines.append(f"| {engine} | {us} | {sps} |")
    return "\n".join(lines) + "\n"


def scaling_table(engines: list[str], ns: list[int], grid: dict[tuple[str, int], Result]) -> str:
    ratio_cols = [e for e in engines[1:] if e != REFERENCE]
    head = ["num_envs", *(f"{e} steps/s" for e in engines), *(f"envhive/{e}" for e in ratio_cols)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    for n in ns:
        sps = {e: grid[(e, n)].steps_per_s if (e, n) in grid else None for e in engines}
        cells = [str(n), *("—" if sps[e] is None else f"{sps[e]:,.0f}" for e in engines)]
        base = sps.get("envhive")
        for e in ratio_cols:
            other = sps[e]
            cells.append(f"{base / other:.2f}x" if base and other else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(
    path: Path,
    engines: list[str],
    ns: list[int],
    grid: dict[tuple[str, int], Result],
    overhead: dict[str, Result],
    title: str,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6), gridspec_kw={"width_ratios": [1, 1.5]})
    bars = [(e, r.us_per_call) for e, r in overhead.items() if r.us_per_call is not None]
    names = [e for e, _ in bars]
    values = [v for _, v in bars]
    colors = [f"C{list(ENGINES).index(e)}" for e in names]
    left.barh(names, values, color=colors)
    left.invert_yaxis()
    left.set_xscale("log")
    left.set_xlabel("us per step() call, num_envs=1 (log)")
    left.set_title("Per-call overhead")
    for y, v in enumerate(values):
        left.text(v, y, f" {v:.1f}", va="center")
    left.set_xlim(1, max(values, default=1) * 4)

    for e in engines:
        points = [(n, grid[(e, n)].steps_per_s) for n in ns if (e, n) in grid]
        points = [(n, v) for n, v in points if v is not None]
        if points:
            xs, ys = zip(*points, strict=True)
            right.plot(xs, ys, marker="o", label=e, color=f"C{list(ENGINES).index(e)}")
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_xticks(ns, [str(n) for n in ns])
    right.set_xlabel("num_envs (sync step)")
    right.set_ylabel("env steps/s")
    right.set_title("Throughput")
    right.grid(True, which="both", alpha=0.3)
    right.legend()
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="CartPole-v1")
    p.add_argument("--max-envs", type=int, default=1024, help="largest num_envs (default 1024)")
    p.add_argument("--gym-cap", type=int, default=256, help="largest num_envs for gymnasium-sync")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=0.5, help="timed seconds per run (default 0.5)")
    p.add_argument("--warmup", type=float, default=0.5, help="warm-up seconds per run (default 0.5)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--compare", default=POOLS, help=f"engines beside envhive (default {POOLS})")
    p.add_argument("--plot", type=Path, default=ROOT / "docs" / "scaling.png", help="PNG to write")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "overhead_scaling.json")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)

    engines = parse_engines(a.compare)
    threads = a.threads or default_threads()
    ns = sizes(a.max_envs)
    grid = {
        (e, n): Measurement.of(e, a.task, n, n, min(threads, n))
        for e in engines
        if e != REFERENCE
        for n in ns
        if not (e.startswith("gymnasium") and n > a.gym_cap)
    }
    per_call = {e: Measurement.of(e, a.task, 1, 1, 1) for e in [*engines, REFERENCE]}
    settings = Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats)
    results = run_measurements([*per_call.values(), *grid.values()], settings, progress=not a.quiet)
    grid_results = {key: results[m] for key, m in grid.items()}
    overhead = {e: results[m] for e, m in per_call.items()}
    curves = [e for e in engines if e != REFERENCE]

    machine = machine_info()
    print(
        f"{a.task}, sync steps, {threads} threads; median of {a.repeats} x {a.seconds:g} s; "
        f"{machine['cpu_count']} x {machine['cpu']}\n"
    )
    print(overhead_table(overhead))
    print(scaling_table(curves, ns, grid_results))
    for r in results.values():
        if r.skipped or r.error:
            print(f"- {r.measurement.label()}: {r.skipped or r.error}")

    data: dict[str, Any] = {
        "machine": machine,
        "settings": asdict(settings),
        "task": a.task,
        "threads": threads,
        "per_call": {e: r.to_dict() for e, r in overhead.items()},
        "scaling": [r.to_dict() for r in grid_results.values()],
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    title = (
        f"{a.task}, {threads} threads, {machine['cpu_count']} x {machine['cpu']}; "
        f"median of {a.repeats} x {a.seconds:g} s; envhive {machine['versions']['envhive']}, "
        f"envpool {machine['versions']['envpool']}, gymnasium {machine['versions']['gymnasium']}"
    )
    plot(a.plot, curves, ns, grid_results, overhead, title)
    print(f"\nwrote {a.out} and {a.plot}", file=sys.stderr)
    return 1 if any(r.error for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
