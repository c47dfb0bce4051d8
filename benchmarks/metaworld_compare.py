"""envhive's Meta-World against EnvPool 1.2.5's port, Meta-World's own Python loop and the
single-thread C++ loop, side by side on the shared harness (`envhive.bench`: a fresh process per
run, repetitions interleaved, medians), and the memory of an MT50 pool against Meta-World's own MT50
vector env.

Parts (--parts, default all):
  speed      MetaWorld/Reach-v3, PickPlace-v3, DoorOpen-v3 (EnvPool's ids, which envhive makes too);
             8 envs sync and 32 envs async (batch 16) on every core; engines: envhive, EnvPool and
             `cpp-loop` (one env in a single-thread C++ loop, `metaworld_loop_bench`: the physical limit
             is min(cores, num_envs) times it).
  reference  Meta-World's own env of each task (the class seeded, a new goal each reset, its one
             MuJoCo 4 line shimmed as in the tests) stepped in a Python loop: steps/s of one core.
  memory     resident memory of one process holding an MT50 pool (50 envs) against one holding
             Meta-World's MT50 SyncVectorEnv (gymnasium.make_vec("Meta-World/MT50")).

    python benchmarks/metaworld_compare.py            # about 10 min on 2 cores
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from envhive.bench import Case, Settings, compare, format_markdown, format_ratios, parse_engines
from loop_bench_build import loop_bench_dir

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = {"MetaWorld/Reach-v3": "reach-v3", "MetaWorld/PickPlace-v3": "pick-place-v3",
         "MetaWorld/DoorOpen-v3": "door-open-v3"}  # fmt: skip
SHIM = textwrap.dedent("""
    import mujoco, numpy as np
    from metaworld.sawyer_xyz_env import SawyerMocapBase
    def _welds(self):
        for i in range(self.model.eq_data.shape[0]):
            if self.model.eq_type[i] == mujoco.mjtEq.mjEQ_WELD:
                self.model.eq_data[i, :11] = [0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 5]
    SawyerMocapBase.reset_mocap_welds = _welds
""")


def _python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", SHIM + textwrap.dedent(code)], check=True, capture_output=True,
                         text=True)  # fmt: skip
    return out.stdout.strip().splitlines()[-1]


def reference_rate(task: str, seconds: float) -> float:
    """Steps/s of Meta-World's own env in a Python loop (resets included every 500 steps)."""
    return float(
        _python(f"""
        import time
        from metaworld.env_dict import ALL_V3_ENVIRONMENTS
        env = ALL_V3_ENVIRONMENTS[{task!r}]()
        env.seed(0); env._freeze_rand_vec = False; env.seeded_rand_vec = True; env._set_task_called = True
        env.reset()
        acts = np.random.default_rng(0).uniform(-1, 1, (1000, 4)).astype(np.float32)
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < {seconds}:
            for k in range(100):
                *_, truncated, _ = env.step(acts[(n + k) % 1000])
                if truncated:
                    env.reset()
            n += 100
        print(n / (time.perf_counter() - t0))
    """)
    )


def rss_mb(code: str) -> float:
    return float(_python(code + "\nprint(int(open('/proc/self/statm').read().split()[1]) * 4096 / 1e6)"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parts", default="speed,reference,memory")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("-q", "--quiet", action="store_true")
    a = p.parse_args(argv)
    parts = {s.strip() for s in a.parts.split(",")}
    threads = os.cpu_count() or 1
    load = os.getloadavg()[0]
    text = f"Machine: {threads} cores, load average {load:.1f} at the start.\n\n"
    data: dict = {"loadavg_start": load}
    if "speed" in parts:
        loop_bench_dir("metaworld_loop_bench")
        cases = [c for t in TASKS for c in (Case(t, 8, 8, threads), Case(t, 32, 16, threads))]
        result = compare(cases, parse_engines("envpool,cpp-loop"), Settings(seconds=a.seconds, warmup=1.0,
                         repeats=a.repeats), not a.quiet)  # fmt: skip
        text += format_markdown(result) + "\n" + format_ratios(result, ["envpool"], {"envpool": "EnvPool"})
        text += "\nPhysical limit = min(cores, num_envs) x one env in a single-thread C++ loop (`cpp-loop`).\n"
        data["speed"] = result.to_json()
    if "reference" in parts:
        rows = ["| task | Meta-World's Python loop, steps/s (1 core) |", "|---|---:|"]
        data["reference"] = {}
        for envpool_id, task in TASKS.items():
            rate = reference_rate(task, a.seconds * 2)
            data["reference"][task] = rate
            rows.append(f"| {envpool_id} | {rate:,.0f} |")
        text += "\nMeta-World's own env in a Python loop:\n\n" + "\n".join(rows) + "\n"
    if "memory" in parts:
        t0 = time.perf_counter()
        ours = rss_mb("import envhive\nenv = envhive.make('Meta-World/MT50', num_envs=50, seed=0)\nenv.reset()")
        t1 = time.perf_counter()
        ref = rss_mb("import gymnasium as gym, metaworld\nv = gym.make_vec('Meta-World/MT50', seed=0)\nv.reset()")
        t2 = time.perf_counter()
        data["memory"] = {"envhive_mt50_rss_mb": ours, "metaworld_mt50_rss_mb": ref,
                          "envhive_construct_s": t1 - t0, "metaworld_construct_s": t2 - t1}  # fmt: skip
        text += (
            "\nMT50, one process: envhive pool of 50 envs (`Meta-World/MT50`) vs Meta-World's "
            "`gymnasium.make_vec('Meta-World/MT50')` (SyncVectorEnv of 50 envs), after construction and reset:\n\n"
            "| | RSS MB | construct + reset s |\n|---|---:|---:|\n"
            f"| envhive | {ours:,.0f} | {t1 - t0:.1f} |\n| Meta-World | {ref:,.0f} | {t2 - t1:.1f} |\n"
        )
    data["loadavg_end"] = os.getloadavg()[0]
    text += f"\nLoad average at the end: {data['loadavg_end']:.1f}.\n"
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "metaworld_compare.json").write_text(json.dumps(data, indent=1) + "\n")
    (RESULTS / "metaworld_compare.md").write_text("# Meta-World: envhive vs EnvPool 1.2.5 and Meta-World\n\n" + text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
