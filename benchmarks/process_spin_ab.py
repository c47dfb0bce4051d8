"""The process backend's waiting, A/B against another build, on a quiet or a deliberately loaded
machine: Python CartPole-v1 steps/s of ``envhive.make(..., backend="process")`` in this build and
in ``--alt-python``'s, builds interleaved, each run in a fresh process, medians; optionally with
``--burners`` CPU-burning processes beside it, and on a quiet machine the multi-process ceiling
(the harness's ``gymnasium-procs``: one plain single-env process per worker, summed) in each
repetition. Random actions go through the envhive.bench harness (its ``envhive-process`` and
``envhive-alt`` engines); ``--torch-threads N`` instead puts a torch MLP policy on N threads in
the loop, which the harness has no engine for.

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
import os
import statistics
import subprocess
import sys

from envhive.bench import Measurement, Settings
from envhive.bench.engines import ALT_ENGINE_ENV, ALT_PYTHON_ENV
from envhive.bench.harness import run_worker

TASK = "CartPole-v1"

TORCH_RATE = r"""
import sys, time, torch, envhive
n, workers, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[5])
seconds, warmup = float(sys.argv[3]), float(sys.argv[4])
torch.set_num_threads(threads)
net = torch.nn.Sequential(
    torch.nn.Linear(4, 64), torch.nn.Tanh(), torch.nn.Linear(64, 64), torch.nn.Tanh(), torch.nn.Linear(64, 2)
)
env = envhive.make("CartPole-v1", num_envs=n, num_workers=workers, backend="process")
obs, _ = env.reset(seed=0)
def run(seconds):
    global obs
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        with torch.no_grad():
            obs = env.step(net(torch.from_numpy(obs)).argmax(1).numpy())[0]
        calls += 1
    return calls * n / (time.perf_counter() - start)
run(warmup)
print(run(seconds))
env.close()
"""


def steps_per_s(engine: str, num_envs: int, workers: int, settings: Settings, torch_threads: int) -> float:
    """One measurement in a fresh process: the harness's worker, or the torch-policy loop."""
    if torch_threads:
        python = os.environ[ALT_PYTHON_ENV] if engine == "envhive-alt" else sys.executable
        args = [str(a) for a in (num_envs, workers, settings.seconds, settings.warmup, torch_threads)]
        out = subprocess.run([python, "-c", TORCH_RATE, *args], capture_output=True, text=True, check=False)
        if out.returncode:
            raise SystemExit(f"{engine} failed:\n{out.stderr}")
        return float(out.stdout)
    result = run_worker(Measurement.of(engine, TASK, num_envs, num_threads=workers), settings)
    if "steps_per_s" not in result:
        raise SystemExit(f"{engine} failed: {result}")
    return float(result["steps_per_s"])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--alt-python", required=True, help="the other build's python (the 'old' side)")
    p.add_argument("--sizes", default="16,64", help="num_envs values, comma-separated (default 16,64)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--burners", type=int, default=0, help="CPU-burning processes beside the pool (default 0)")
    p.add_argument("--torch-threads", type=int, default=0, help="torch MLP policy threads (0: random actions)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seconds", type=float, default=2.5)
    args = p.parse_args()
    os.environ[ALT_PYTHON_ENV] = args.alt_python
    os.environ[ALT_ENGINE_ENV] = "envhive-process"
    settings = Settings(seconds=args.seconds, warmup=0.5, repeats=1)
    sizes = [int(s) for s in args.sizes.split(",")]
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.burners)]
    rows: dict[str, list[float]] = {}
    try:
        for _ in range(args.repeats):
            base = None
            if not burners:
                base = steps_per_s("gymnasium-procs", 1, args.workers, settings, 0)
                rows.setdefault("ceiling steps/s", []).append(base)
            for n in sizes:
                old = steps_per_s("envhive-alt", n, args.workers, settings, args.torch_threads)
                new = steps_per_s("envhive-process", n, args.workers, settings, args.torch_threads)
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
