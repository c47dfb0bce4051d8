"""envhive's Gymnasium-Robotics tasks against EnvPool 1.2.5's, Gymnasium's AsyncVectorEnv over the
reference (where EnvPool lacks the task) and the single-thread C++ loop, side by side on the shared
harness (`envhive.bench`: a fresh process per run, repetitions interleaved, medians); and HER's
relabelling throughput through compute_reward against the reference's.

Parts (--parts, default all):
  step  FetchPickAndPlace-v4, HandManipulateBlock-v1, AdroitHandDoor-v1 (engines: envhive, EnvPool,
        cpp-loop) and AntMaze_UMaze-v5 (envhive,
        Gymnasium's AsyncVectorEnv of gymnasium-robotics' AntMaze, cpp-loop: EnvPool has no AntMaze),
        8 envs sync and 32 envs async (batch 16), every core. `cpp-loop` is one env in a
        single-thread C++ loop (robotics_loop_bench); the physical limit is min(cores, num_envs)
        times it.
  her   transitions/s through compute_reward of relabelled batches (HER's 'future' goals), envhive's
        pool.compute_reward against gymnasium-robotics' env.compute_reward, same arrays, for
        FetchPickAndPlace-v4, HandManipulateBlockDense-v1 and AntMaze_UMaze-v5 (all numpy over the whole
        batch; envhive's
        results are bit for bit the reference's: tests/families/robotics/test_robotics_goals.py).

    python benchmarks/robotics_compare.py                  # about 10 min on 2 cores
    python benchmarks/robotics_compare.py --parts her
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from envhive.bench import Case, Settings, compare, format_markdown, format_ratios, parse_engines
from loop_bench_build import loop_bench_dir

RESULTS = Path(__file__).resolve().parent / "results"
LABELS = {"envpool": "EnvPool", "gymnasium-async": "Gym AsyncVectorEnv"}
SHIM = Path(__file__).resolve().parent.parent / "tests" / "families" / "robotics"


def _write(name: str, data: dict[str, Any], text: str) -> None:
    data["report"] = text
    out = RESULTS / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2) + "\n")
    sys.stdout.write(text + "\n")
    print(f"wrote {out}", file=sys.stderr)


def _her(task: str, n: int, repeats: int) -> dict[str, float]:
    """Transitions/s of compute_reward over `n` relabelled transitions: envhive's and the reference's."""
    import envhive

    sys.path.insert(0, str(SHIM))  # gymnasium-robotics' Fetch needs the tests' MuJoCo 4 shim
    from robotics_helpers import reference  # type: ignore[import-not-found]

    pool = envhive.make(task, num_envs=1)
    ref = reference(task).unwrapped
    rng = np.random.default_rng(0)
    size = pool.single_observation_space["achieved_goal"].shape[0]
    achieved = rng.normal(0, 1, (n, size))
    if size == 7:  # a hand goal: position and unit quaternion
        achieved[:, 3:] /= np.linalg.norm(achieved[:, 3:], axis=-1, keepdims=True)
    desired = achieved[rng.permutation(n)]
    infos = np.array([{}] * n)
    assert (
        pool.compute_reward(achieved, desired, infos).tobytes()
        == ref.compute_reward(achieved, desired, infos).tobytes()
    )
    out = {}
    for name, fn in (("envhive", pool.compute_reward), ("reference", ref.compute_reward)):
        best = float("inf")
        for _ in range(repeats):
            t = time.perf_counter()
            fn(achieved, desired, infos)
            best = min(best, time.perf_counter() - t)
        out[name] = n / best
    pool.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parts", default="step,her", help="step, her (default both)")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)
    parts = {s.strip() for s in a.parts.split(",")}
    threads = a.threads or os.cpu_count() or 1
    failed = False
    load = os.getloadavg()
    if "step" in parts:
        if not os.environ.get("ENVHIVE_LOOP_BENCH_DIR"):
            loop_bench_dir("robotics_loop_bench")
        settings = Settings(seconds=a.seconds, warmup=1.0, repeats=a.repeats)
        for name, task, refs in [
            ("robotics_compare_fetch.json", "FetchPickAndPlace-v4", "envpool,cpp-loop"),
            ("robotics_compare_hand.json", "HandManipulateBlock-v1", "envpool,cpp-loop"),
            ("robotics_compare_adroit.json", "AdroitHandDoor-v1", "envpool,cpp-loop"),
            ("robotics_compare_antmaze.json", "AntMaze_UMaze-v5", "gymnasium-async,cpp-loop"),
        ]:
            engines = parse_engines(refs)
            cases = [Case(task, 8, 8, threads), Case(task, 32, 16, threads)]
            result = compare(cases, engines, settings, not a.quiet)
            text = format_markdown(result)
            text += "\n" + format_ratios(result, [e for e in LABELS if e in engines], LABELS)
            text += "\nPhysical limit = min(cores, num_envs) x one env in a single-thread C++ loop (`cpp-loop`).\n"
            text += f"\nLoad average (1, 5, 15 min) before the runs: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}\n"
            _write(name, result.to_json(), text)
            failed |= any(r.error for r in result.results.values() if r.measurement.engine == "envhive")
    if "her" in parts:
        rows = [
            "| task | transitions | envhive transitions/s | reference transitions/s | ratio |",
            "|---|---:|---:|---:|---:|",
        ]
        data: dict[str, Any] = {"results": {}}
        for task in ("FetchPickAndPlace-v4", "HandManipulateBlockDense-v1", "AntMaze_UMaze-v5"):
            r = _her(task, 1_000_000, a.repeats)
            data["results"][task] = r
            ratio = r["envhive"] / r["reference"]
            rows.append(f"| {task} | 1,000,000 | {r['envhive']:,.0f} | {r['reference']:,.0f} | {ratio:.2f} |")
        text = "HER relabelling: compute_reward over one batch of relabelled transitions (best of repeats)\n\n"
        text += "\n".join(rows) + "\n"
        text += f"\nLoad average (1, 5, 15 min) before the runs: {load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}\n"
        _write("robotics_compare_her.json", data, text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
