"""envhive vs EnvPool vs ale-py's AtariVectorEnv vs Gymnasium AsyncVectorEnv on Atari, side by
side, against the physical limit, with the memory each needs.

Every engine runs EnvPool's Atari defaults (the DQN recipe): frame skip 4 with max-pooling,
84x84 gray, 4 stacked frames, up to 30 no-op frames and FIRE at reset, no sticky actions, no
reward clipping, no episodic life. Gymnasium's pipeline is `ALE/<Game>-v5` (frameskip=1,
repeat_action_probability=0) + AtariPreprocessing(noop_max=30) + FrameStackObservation(4), one
process per env (it has no FIRE reset). Cases: each task at num_envs 8 and 32, sync
(batch = num_envs) and async (batch = num_envs / 2, recv/send); AsyncVectorEnv always steps all
envs. Steps/s counts agent steps (one action for one env); frames/s = 4 x that.

Everything runs through the shared harness (`envhive.bench`: each measurement in a fresh
process, repetitions interleaved, medians). Memory: the resident set of the whole process tree
after the warm-up, at num_envs 32, sync. The physical limit of a case is min(cores, num_envs) x
the steps/s of `atari_loop_bench` (the `cpp-loop` engine: one env in a plain single-threaded C++
loop, no pool, no Python; built by this script into build/loop-bench when missing).

    python benchmarks/atari_compare.py                                   # about 15 min on 2 cores
    python benchmarks/atari_compare.py --tasks Pong-v5 --num-envs 8 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from envhive.bench import (
    Case,
    Settings,
    compare,
    format_markdown,
    format_memory,
    format_ratios,
    parse_engines,
    with_alt_build,
)
from loop_bench_build import loop_bench_dir

RESULTS = Path(__file__).resolve().parent / "results"
ENGINES = "envpool,ale-vec,gymnasium-async,cpp-loop"
LABELS = {
    "envhive-alt": "envhive (--alt-python)",
    "envpool": "EnvPool",
    "ale-vec": "ale-py vec",
    "gymnasium-async": "Gym Async",
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default="Pong-v5,Breakout-v5")
    p.add_argument("--num-envs", default="8,32")
    p.add_argument("--compare", default=ENGINES, help=f"engines beside envhive (default {ENGINES})")
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per run")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions")
    p.add_argument("--memory-envs", type=int, default=32, help="num_envs of the memory table")
    p.add_argument("--out", type=Path, default=RESULTS / "atari_compare.json")
    p.add_argument("--alt-python", help="also time another build's envhive (its venv's python) as envhive-alt")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)

    threads = a.threads or os.cpu_count() or 1
    engines = with_alt_build(parse_engines(a.compare), a.alt_python)
    if "cpp-loop" in engines:
        loop_bench_dir("atari_loop_bench")
    cases = []
    for task in [t for t in a.tasks.split(",") if t]:
        for n in [int(n) for n in a.num_envs.split(",")]:
            cases += [Case(task, n, n, threads), Case(task, n, max(1, n // 2), threads)]
    result = compare(cases, engines, Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats), not a.quiet)

    text = "# Atari: envhive vs EnvPool vs ale-py vs Gymnasium\n\n"
    text += format_markdown(result)
    text += "\n## envhive's ratios\n\n" + format_ratios(result, [e for e in LABELS if e in engines], LABELS)
    text += "\nPhysical limit = min(cores, num_envs) x one env in a single-thread C++ loop (`cpp-loop`).\n"
    text += f"\n## Memory at num_envs={a.memory_envs}, sync\n\n" + format_memory(result, a.memory_envs)
    sys.stdout.write(text)
    data = result.to_json()
    data["report"] = text
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(data, indent=2) + "\n")
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for r in result.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
