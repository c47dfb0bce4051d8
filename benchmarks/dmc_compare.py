"""envhive's DeepMind Control Suite tasks against EnvPool 1.2.5's, dm_control's own loop and the
single-thread C++ loop, from state and from pixels, side by side, on the shared harness
(`envhive.bench`: a fresh process per run, repetitions interleaved, medians).

Parts (--parts, default all):
  state   CheetahRun-v1, WalkerWalk-v1, HumanoidRun-v1; 8 envs sync and 32 envs async (batch 16) on
          every core; engines: envhive, EnvPool (`envpool.make`), dm_control's own loop of one env
          (`dm-control`: suite.load + its dm_env loop) and `cpp-loop` (one env in a single-thread
          C++ loop, `dmc_loop_bench`; the physical limit is min(cores, num_envs) times it).
  pixels  CheetahRun-v1 from 84x84 pixels (camera 0), 8 envs sync and 32 envs async (batch 16):
          envhive (`from_pixels=True`), dm_control behind Gymnasium's AsyncVectorEnv drawing the
          same frames (`physics.render` in each process; 8 envs: 32 processes of llvmpipe do not fit
          a 2-core machine's memory next to other work), dm_control's own loop of one env with its
          pixels wrapper, EnvPool's `from_pixels`, and `envhive-render` (render() of every env of a
          pool, no stepping: the render-only limit).
Each part also reports the resident memory of its runs (32 envs: state and pixels) against EnvPool's.

    python benchmarks/dmc_compare.py                        # about 25 min on 2 cores
    python benchmarks/dmc_compare.py --parts state --tasks CheetahRun-v1 --repeats 5

Frames come from Mesa's llvmpipe here (a CPU renderer: a 2048 x 2048 shadow map per frame), so
pixel runs are render-bound; on a GPU's EGL they would not be.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from envhive.bench import Case, Settings, compare, format_markdown, format_ratios, parse_engines
from envhive.bench.harness import task_kwargs_json
from loop_bench_build import loop_bench_dir

RESULTS = Path(__file__).resolve().parent / "results"
STATE_TASKS = "CheetahRun-v1,WalkerWalk-v1,HumanoidRun-v1"
PIXEL_TASK = "CheetahRun-v1"
PIXELS = task_kwargs_json({"from_pixels": True, "height": 84, "width": 84, "camera_id": 0})
LABELS = {
    "envpool": "EnvPool",
    "dm-control": "dm_control loop (1 env)",
    "gymnasium-async": "dm_control + Gym Async",
    "envhive-render": "render-only limit",
}


def _write(name: str, result: object, text: str) -> None:
    data = result.to_json()  # type: ignore[attr-defined]
    data["report"] = text
    out = RESULTS / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2) + "\n")
    sys.stdout.write(text + "\n")
    print(f"wrote {out}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parts", default="state,pixels", help="state, pixels (default both)")
    p.add_argument("--tasks", default=STATE_TASKS, help=f"state tasks (default {STATE_TASKS})")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per state run (default 2)")
    p.add_argument("--pixel-seconds", type=float, default=8.0, help="timed seconds per pixel run (default 8)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)
    parts = {s.strip() for s in a.parts.split(",")}
    threads = a.threads or os.cpu_count() or 1
    failed = False

    if "state" in parts:
        engines = parse_engines("envpool,dm-control,cpp-loop")
        loop_bench_dir("dmc_loop_bench")
        tasks = [t.strip() for t in a.tasks.split(",") if t.strip()]
        cases = [c for t in tasks for c in (Case(t, 8, 8, threads), Case(t, 32, 16, threads))]
        result = compare(cases, engines, Settings(seconds=a.seconds, warmup=1.0, repeats=a.repeats), not a.quiet)
        text = format_markdown(result)
        text += "\n" + format_ratios(result, ["envpool", "dm-control"], LABELS)
        text += "\nPhysical limit = min(cores, num_envs) x one env in a single-thread C++ loop (`cpp-loop`).\n"
        text += "\nMemory, 32 envs (async, batch 16):\n\n" + _memory(result, 32)
        _write("dmc_compare_state.json", result, text)
        failed |= any(r.error for r in result.results.values())

    if "pixels" in parts:
        settings = Settings(seconds=a.pixel_seconds, warmup=2.0, repeats=a.repeats, timeout=900)
        # 8 envs: every reference; 32 envs: not 32 AsyncVectorEnv processes of dm_control and llvmpipe
        for name, case, refs in [
            ("dmc_compare_pixels_8.json", Case(PIXEL_TASK, 8, 8, threads, PIXELS), "gymnasium-async,dm-control"),
            ("dmc_compare_pixels_32.json", Case(PIXEL_TASK, 32, 16, threads, PIXELS), ""),
        ]:
            engines = parse_engines(",".join(filter(None, [refs, "envpool", "envhive-render"])))
            result = compare([case], engines, settings, not a.quiet)
            text = format_markdown(result)
            text += "\n" + format_ratios(result, [e for e in LABELS if e in engines], LABELS)
            text += "\nPixel runs: steps/s are frames/s; `envhive-render` draws frames without stepping.\n"
            text += f"\nMemory, {case.num_envs} envs:\n\n" + _memory(result, case.num_envs)
            _write(name, result, text)
            failed |= any(r.error for r in result.results.values() if r.measurement.engine == "envhive")
    return 1 if failed else 0


def _memory(result: object, num_envs: int) -> str:
    """RSS after the warm-up of every engine at `num_envs` envs (any batch size)."""
    out = ["| task | engine | mode | RSS MB | construct s |", "|---|---|---|---:|---:|"]
    for case in result.cases:  # type: ignore[attr-defined]
        if case.num_envs != num_envs:
            continue
        for engine in result.engines:  # type: ignore[attr-defined]
            r = result.results[case.measurement(engine)]  # type: ignore[attr-defined]
            if r.rss_mb is not None and r.measurement.num_envs == num_envs:
                construct = r._median("construct_s")
                c = "—" if construct is None else f"{construct:.1f}"
                out.append(f"| {case.task} | {engine} | {r.measurement.mode} | {r.rss_mb:,.0f} | {c} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
