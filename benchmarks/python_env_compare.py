"""A Python-written env on envhive's pool vs the built-in C++ one and vs Gymnasium, side by side.

Cases (num_envs 64, sync, all cores), each measured in fresh processes, interleaved:
  * CartPole-v1: envhive's built-in C++ task, and Gymnasium's own CartPole-v1 (hand-written
    Python) under SyncVectorEnv / AsyncVectorEnv.
  * examples/CartPole-v1 (examples/python_cartpole.py): the PyEnv on envhive's pool, and the
    same env as a plain gymnasium.Env (its functions run by the interpreter, see
    PyEnv.gymnasium_env) under SyncVectorEnv / AsyncVectorEnv.
The C++/Python ratio is also measured from short alternating windows in one process, which
keeps it steadier on a loaded machine. Also times the first and second `envhive.make` of the
Python CartPole in fresh processes: with an empty compile cache, then with the one the first filled.

    python benchmarks/python_env_compare.py                   # about 1 minute on 2 cores
    python benchmarks/python_env_compare.py --seconds 5 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from envhive.bench import Case, Settings, compare, default_threads, format_markdown, parse_engines

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PY_TASK = "examples.python_cartpole:examples/CartPole-v1"
MAKE_CODE = """
import json, time
start = time.perf_counter()
import envhive
env = envhive.make("examples.python_cartpole:examples/CartPole-v1", num_envs=64)
env.reset(seed=0)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def make_times(cache: str) -> list[float]:
    """Seconds from `import envhive` to a reset pool, in two fresh processes sharing `cache`."""
    times = []
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", MAKE_CODE],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "ENVHIVE_CACHE_DIR": cache},
        )
        times.append(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])
    return times


def paired_ratio(num_envs: int, threads: int, rounds: int, window: float) -> tuple[float, list[float]]:
    """Python CartPole / built-in CartPole steps/s, from short alternating windows in one process
    (both pools see the same background load); the median over `rounds` pairs, and all pairs."""
    import time

    import numpy as np

    import envhive

    sys.path.insert(0, str(ROOT))
    from examples.python_cartpole import CartPole

    pools = [envhive.make(t, num_envs=num_envs, num_threads=threads, seed=0) for t in (CartPole, "CartPole-v1")]
    actions = [np.random.default_rng(i).integers(0, 2, num_envs) for i in range(64)]
    for env in pools:
        env.reset()
        for i in range(2000):
            env.step(actions[i % 64])

    def rate(env: envhive.HiveVectorEnv) -> float:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < window:
            for i in range(200):
                env.step(actions[i % 64])
            steps += 200
        return steps * num_envs / (time.perf_counter() - start)

    ratios = []
    for r in range(rounds):  # alternate which goes first
        py, cc = (rate(pools[0]), rate(pools[1])) if r % 2 == 0 else reversed((rate(pools[1]), rate(pools[0])))
        ratios.append(py / cc)
    for env in pools:
        env.close()
    return sorted(ratios)[len(ratios) // 2], ratios


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--threads", type=int, default=0, help="pool threads (default: all cores)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed seconds per run (default 2)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per run (default 1)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--out", type=Path, default=RESULTS / "python_env_compare.json", help="JSON results")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    a = p.parse_args(argv)

    # Workers import the example by module name: put the checkout on their path.
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory(prefix="envhive-cache-") as cache:
        first, second = make_times(cache)
        os.environ["ENVHIVE_CACHE_DIR"] = cache  # the timed workers load the compiled code from here
        threads = a.threads or default_threads()
        n = a.num_envs
        cases = [Case("CartPole-v1", n, n, threads), Case(PY_TASK, n, n, threads)]
        settings = Settings(seconds=a.seconds, warmup=a.warmup, repeats=a.repeats)
        engines = parse_engines("gymnasium-sync,gymnasium-async")
        result = compare(cases, engines, settings, progress=not a.quiet)

    paired, pairs = paired_ratio(n, threads, rounds=2 * a.repeats + 1, window=a.seconds / 4)
    data = result.to_json()
    rate = {(case["task"], row["engine"]): row["steps_per_s"] for case in data["cases"] for row in case["rows"]}
    py = rate[(PY_TASK, "envhive")]
    summary = {
        "make_seconds_first": first,
        "make_seconds_second": second,
        "python_env_steps_per_s": py,
        "vs_builtin_cpp": py / rate[("CartPole-v1", "envhive")],
        "vs_builtin_cpp_paired": paired,
        "vs_builtin_cpp_pairs": pairs,
        "vs_same_env_gymnasium_async": py / rate[(PY_TASK, "gymnasium-async")],
        "vs_same_env_gymnasium_sync": py / rate[(PY_TASK, "gymnasium-sync")],
        "vs_gymnasium_cartpole_async": py / rate[("CartPole-v1", "gymnasium-async")],
        "vs_gymnasium_cartpole_sync": py / rate[("CartPole-v1", "gymnasium-sync")],
    }
    sys.stdout.write(format_markdown(result))
    print(f"\nPython-written CartPole on envhive, num_envs={n}: {py:,.0f} steps/s")
    print(f"  vs built-in C++ CartPole-v1 on envhive:            {summary['vs_builtin_cpp']:.2f}x  (target >= 0.5x)")
    print(f"    same, alternating windows in one process:        {paired:.2f}x  (median of {len(pairs)} pairs)")
    print(f"  vs the same env (gymnasium.Env) in AsyncVectorEnv: {summary['vs_same_env_gymnasium_async']:.1f}x")
    print(f"  vs the same env (gymnasium.Env) in SyncVectorEnv:  {summary['vs_same_env_gymnasium_sync']:.1f}x")
    print(f"  vs Gymnasium's own CartPole-v1 in AsyncVectorEnv:  {summary['vs_gymnasium_cartpole_async']:.1f}x")
    print(f"  vs Gymnasium's own CartPole-v1 in SyncVectorEnv:   {summary['vs_gymnasium_cartpole_sync']:.1f}x")
    print(f"envhive.make in a fresh process (import included): first {first:.2f} s (compiles), second {second:.2f} s")
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({**data, "summary": summary}, indent=2) + "\n")
    print(f"\nwrote {a.out}", file=sys.stderr)
    return 1 if any(r.error for r in result.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
