"""The process backend's waiting, A/B against another build, on a quiet or a deliberately loaded
machine: Python CartPole-v1 steps/s of ``envhive.make(..., backend="process")`` in this build and
in ``--alt-python``'s (each run in a fresh process, builds interleaved, medians), optionally with
``--burners`` CPU-burning processes beside it, and on a quiet machine the 2-core ceiling (two plain
single-env processes, summed) measured in each repetition.

The old build used for docs/process-backend.md's figures was this repository at 243b480, run with
``python -S`` and ``PYTHONPATH=<its src>:<this venv's site-packages>`` behind a small wrapper
script (its native modules are this build's: the backend is pure Python).

    python benchmarks/process_spin_ab.py --alt-python OLD --sizes 16,64 --repeats 3
    python benchmarks/process_spin_ab.py --alt-python OLD --burners 6 --repeats 3
    python benchmarks/process_spin_ab.py --alt-python OLD --workers 4 --sizes 64
    python benchmarks/process_spin_ab.py --alt-python OLD --torch-threads 2 --sizes 16
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

RATE = r"""
import sys, time, numpy as np, envhive
n, workers, seconds, torch_threads = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
env = envhive.make("CartPole-v1", num_envs=n, num_workers=workers, backend="process")
obs, _ = env.reset(seed=0)
if torch_threads:  # a trainer's policy in the loop: a 64x64 MLP on torch's CPU threads
    import torch
    torch.set_num_threads(torch_threads)
    net = torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.Tanh(), torch.nn.Linear(64, 64), torch.nn.Tanh(),
                              torch.nn.Linear(64, 2))
    def act(obs, calls):
        with torch.no_grad():
            return net(torch.from_numpy(obs)).argmax(1).numpy()
else:
    actions = [np.random.default_rng(i).integers(0, 2, n) for i in range(64)]
    def act(obs, calls):
        return actions[calls % 64]
start = time.perf_counter()
while time.perf_counter() - start < 0.5:
    obs = env.step(act(obs, 0))[0]
calls, start = 0, time.perf_counter()
while time.perf_counter() - start < seconds:
    obs = env.step(act(obs, calls))[0]
    calls += 1
print(calls * n / (time.perf_counter() - start))
env.close()
"""

PLAIN = r"""
import sys, time, gymnasium as gym
env = gym.make("CartPole-v1")
env.reset(seed=0)
steps, start = 0, time.perf_counter()
while time.perf_counter() - start < float(sys.argv[1]):
    _, _, terminated, truncated, _ = env.step(steps & 1)
    steps += 1
    if terminated or truncated:
        env.reset()
print(steps / (time.perf_counter() - start))
"""


def ceiling(seconds: float) -> float:
    cmd = [sys.executable, "-c", PLAIN, str(seconds)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    return sum(float(p.communicate()[0]) for p in procs)


def rate(python: str, num_envs: int, workers: int, seconds: float, torch_threads: int) -> float:
    cmd = [python, "-c", RATE, str(num_envs), str(workers), str(seconds), str(torch_threads)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{python} failed:\n{out.stderr}")
    return float(out.stdout)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--alt-python", required=True, help="the other build's python (the 'old' side)")
    p.add_argument("--sizes", default="16,64", help="num_envs values, comma-separated (default 16,64)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--burners", type=int, default=0, help="CPU-burning processes beside the pool (default 0)")
    p.add_argument(
        "--torch-threads", type=int, default=0, help="torch MLP policy threads (0: random actions)"
    )
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seconds", type=float, default=2.5)
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.burners)]
    rows: dict[str, list[float]] = {}
    try:
        for _ in range(args.repeats):
            base = ceiling(args.seconds) if not burners else None
            if base is not None:
                rows.setdefault("ceiling steps/s", []).append(base)
            for n in sizes:
                old = rate(args.alt_python, n, args.workers, args.seconds, args.torch_threads)
                new = rate(sys.executable, n, args.workers, args.seconds, args.torch_threads)
                rows.setdefault(f"{n} envs: new / old", []).append(new / old)
                if base is not None:
                    rows.setdefault(f"{n} envs: old / ceiling", []).append(old / base)
                    rows.setdefault(f"{n} envs: new / ceiling", []).append(new / base)
                else:
                    rows.setdefault(f"{n} envs: old steps/s", []).append(old)
                    rows.setdefault(f"{n} envs: new steps/s", []).append(new)
    finally:
        for b in burners:
            b.kill()
    print(f"workers={args.workers} burners={args.burners} torch_threads={args.torch_threads} repeats={args.repeats}")
    for name, values in rows.items():
        print(f"  {name}: median {statistics.median(values):.3g}  ({', '.join(f'{v:.3g}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
