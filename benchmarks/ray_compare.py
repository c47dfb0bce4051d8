"""envhive on Ray, side by side with the same pools stepped locally (ratios, medians of repeats).

1. Per-call overhead: RayVectorEnv (one shard, the pool in an actor) vs a local pool of the same
   size and threads: steps/s of each and the extra time per call.
2. Rollout workers: env steps/s the learner receives from W workers (policy next to the pool,
   1 CPU each) vs the same pool + policy loop in one local process, per core used -- by wall clock,
   per busy core of the whole machine (/proc/stat: the driver, raylet and GCS count) and per CPU
   second of the worker processes -- for CartPole and HalfCheetah (``--rollout-tasks``), with one
   unroll per Ray call and, for CartPole, with 64 (``RolloutWorkers(unrolls_per_call=64)``: a call
   then carries ~50 ms of work, as one HalfCheetah unroll does).
3. Scaling across 1, 2, 3 simulated nodes (ray.cluster_utils.Cluster, one 1-CPU worker per
   node, ``--scaling-unrolls-per-call``): throughput and efficiency T_k / (k T_1). On a machine
   with fewer cores than nodes the nodes share cores, so efficiency there measures the cores.

    .venv-rllib/bin/python benchmarks/ray_compare.py            # about 5 min on 2 cores
    .venv-rllib/bin/python benchmarks/ray_compare.py --part overhead --seconds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import ray
from ray.cluster_utils import Cluster

import envhive
from envhive.ray import RayVectorEnv, RolloutWorkers
from envhive.ray.rollout import RolloutWorker

RESULTS = Path(__file__).resolve().parent / "results"


def linear_policy(weights, obs, rng):
    """A numpy policy as a learner would ship it: one matrix product and a sample per step
    (two discrete actions, CartPole's)."""
    logits = obs.astype(np.float32) @ weights
    return (logits[:, 1] - logits[:, 0] + rng.standard_normal(len(obs)) > 0).astype(np.int64)


def gaussian_policy(weights, obs, rng):
    """The continuous-action counterpart: a linear mean plus unit noise, clipped to [-1, 1]."""
    mean = obs.astype(np.float32) @ weights
    return np.clip(mean + rng.standard_normal(mean.shape, np.float32), -1.0, 1.0)


def policy_for(task: str) -> tuple:
    """The policy and its (zero) weights for ``task``'s spaces."""
    spec = envhive.make_spec(task)
    obs_dim = spec.observation_space.shape[0]
    if isinstance(spec.action_space, gym.spaces.Discrete):
        return linear_policy, np.zeros((obs_dim, 2), np.float32)
    return gaussian_policy, np.zeros((obs_dim, spec.action_space.shape[0]), np.float32)


def timed(fn, seconds: float) -> float:
    """Calls per second of fn over about ``seconds``."""
    fn()
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        fn()
        calls += 1
    return calls / elapsed


def overhead(task: str, num_envs: int, seconds: float, repeats: int) -> dict:
    local = envhive.make(task, num_envs=num_envs, num_threads=1, seed=0)
    remote = RayVectorEnv(task, num_envs, 1, num_cpus_per_shard=1, seed=0)
    actions = np.stack([local.single_action_space.sample() for _ in range(num_envs)])
    local.reset()
    remote.reset()
    rows = []
    for _ in range(repeats):  # interleaved A/B
        rows.append((timed(lambda: local.step(actions), seconds), timed(lambda: remote.step(actions), seconds)))
    local.close()
    remote.close()
    lc, rc = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
    return {
        "task": task,
        "num_envs": num_envs,
        "local_calls_per_s": lc,
        "ray_calls_per_s": rc,
        "ratio": rc / lc,
        "extra_us_per_call": (1 / rc - 1 / lc) * 1e6,
        "reps": rows,
    }


class CpuMeter:
    """CPU seconds spent over a window, read from /proc (Linux): the whole machine's busy time (every
    process: the trainer, the workers, Ray's raylet and GCS, anything else running) and given pids'.

    ``cores_busy`` is busy CPU seconds per wall second, so ``steps_per_s / cores_busy`` is the
    throughput per core actually used, which does not depend on how many cores the machine has or
    on who else shares them."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, pids: list[int] | None = None) -> None:
        self.pids = pids or []
        self.wall = time.perf_counter()
        self.busy = self.machine_busy_s()
        self.procs = self.pids_cpu_s()

    @classmethod
    def machine_busy_s(cls) -> float:
        with open("/proc/stat") as f:
            user, nice, system, _idle, _iowait, irq, softirq = map(int, f.readline().split()[1:8])
        return (user + nice + system + irq + softirq) / cls.TICK

    def pids_cpu_s(self) -> float:
        total = 0
        for pid in self.pids:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (all the process's threads)
        return total / self.TICK

    def read(self) -> dict[str, float]:
        wall = time.perf_counter() - self.wall
        return {
            "wall_s": wall,
            "cores_busy": (self.machine_busy_s() - self.busy) / wall,
            "cores_pids": (self.pids_cpu_s() - self.procs) / wall,
        }


def timed_steps(fn, seconds: float, pids: list[int] | None = None) -> dict[str, float]:
    """Calls ``fn`` (returning the env steps it made) for about ``seconds`` after one warm-up call:
    steps/s and the CPU the window used (CpuMeter; ``pids``: this process when not given)."""
    fn()
    meter = CpuMeter(pids or [os.getpid()])
    steps = 0
    while time.perf_counter() - meter.wall < seconds:
        steps += fn()
    cpu = meter.read()
    return {"steps_per_s": steps / cpu["wall_s"], **cpu}


def local_rollout_rate(task: str, num_envs: int, unroll: int, seconds: float) -> dict[str, float]:
    """Env steps/s of one pool + the policy in this process (1 thread), storing what a trajectory
    holds (obs, actions, rewards, both flags): the per-core reference. Same env seeds and policy
    noise as rollout worker 0 (``seed=0``), so every case steps the same trajectories."""
    pool = envhive.make(task, num_envs=num_envs, num_threads=1, seed=0)
    obs, _ = pool.reset()
    policy, weights = policy_for(task)
    rng = np.random.default_rng([0, 0])  # RolloutWorker's policy entropy: [policy_seed, worker]

    def one_unroll() -> int:
        nonlocal obs
        obs_buf = np.empty((unroll, *obs.shape), obs.dtype)
        actions_buf = np.empty((unroll, *pool.action_space.shape), pool.action_space.dtype)
        rewards = np.empty((unroll, num_envs))
        terminated = np.empty((unroll, num_envs), bool)
        truncated = np.empty((unroll, num_envs), bool)
        for t in range(unroll):
            actions = policy(weights, obs, rng)
            actions_buf[t] = actions
            obs_buf[t] = obs
            obs, rewards[t], terminated[t], truncated[t], _ = pool.step(actions)
        return unroll * num_envs

    rate = timed_steps(one_unroll, seconds)
    pool.close()
    return rate


def in_process_worker_rate(task: str, num_envs: int, unroll: int, per_call: int, seconds: float) -> dict[str, float]:
    """Env steps/s of ``RolloutWorker.rollouts`` (what one Ray call runs) called in this process,
    split into trajectories as the learner does: what the actor does, without Ray's transport."""
    policy, weights = policy_for(task)
    worker = RolloutWorker(task, num_envs, unroll, policy, weights, list(range(num_envs)), policy_seed=0, num_threads=1)
    rate = timed_steps(lambda: sum(t.num_steps for t in worker.rollouts(per_call).trajectories()), seconds)
    worker.close()
    return rate


def worker_rate(task: str, workers: int, num_envs: int, unroll: int, per_call: int, seconds: float) -> dict[str, float]:
    """Env steps/s the learner receives from ``workers`` RolloutWorkers of 1 CPU each, and the CPU
    used meanwhile (``cores_pids``: the worker processes' own)."""
    policy, weights = policy_for(task)
    with RolloutWorkers(
        task, workers, num_envs, policy, weights, unroll_length=unroll, unrolls_per_call=per_call, seed=0
    ) as w:
        for _ in range(2 * workers * per_call):
            w.next(timeout=120)
        return timed_steps(lambda: w.next(timeout=120).num_steps, seconds, [i["pid"] for i in w.worker_info()])


def rollout_part(task: str, num_envs: int, unroll: int, per_call: list[int], seconds: float, repeats: int) -> dict:
    """Interleaved repeats of the cases (each ``unrolls_per_call`` in ``per_call``: in process, 1 and
    2 Ray workers); per-core ratios three ways (medians of the repeats): by wall clock (``workers``
    cores assumed), per busy core of the whole machine (everything Ray runs counted: driver,
    raylet, GCS), and per CPU second of the worker processes themselves."""
    cases = {"local": lambda: local_rollout_rate(task, num_envs, unroll, seconds)}
    for k in per_call:
        cases[f"in_process_x{k}"] = lambda k=k: in_process_worker_rate(task, num_envs, unroll, k, seconds)
        cases[f"ray_1_x{k}"] = lambda k=k: worker_rate(task, 1, num_envs, unroll, k, seconds)
        cases[f"ray_2_x{k}"] = lambda k=k: worker_rate(task, 2, num_envs, unroll, k, seconds)
    rows = [{name: case() for name, case in cases.items()} for _ in range(repeats)]

    def med(name: str, figure: str) -> float:
        return statistics.median(r[name][figure] for r in rows)

    def per_core(name: str, cores: str) -> float:
        return statistics.median(
            (r[name]["steps_per_s"] / r[name][cores]) / (r["local"]["steps_per_s"] / r["local"][cores]) for r in rows
        )

    workers = [name for name in cases if name.startswith("ray_")]
    return {
        "task": task,
        "envs_per_worker": num_envs,
        "unroll": unroll,
        "unrolls_per_call": per_call,
        "median_steps_per_s": {name: med(name, "steps_per_s") for name in cases},
        "median_cores_busy": {name: med(name, "cores_busy") for name in cases},
        "per_core_wall": {
            name: med(name, "steps_per_s") / int(name.split("_")[1]) / med("local", "steps_per_s") for name in workers
        },
        "per_busy_core": {name: per_core(name, "cores_busy") for name in cases if name != "local"},
        "per_worker_cpu": {name: per_core(name, "cores_pids") for name in cases if name != "local"},
        "ray_1_vs_in_process": {
            f"x{k}": med(f"ray_1_x{k}", "steps_per_s") / med(f"in_process_x{k}", "steps_per_s") for k in per_call
        },
        "reps": rows,
    }


def scaling_part(task: str, num_envs: int, unroll: int, per_call: int, seconds: float, repeats: int) -> dict:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(3):
        cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    try:
        rows = []
        for _ in range(repeats):
            rows.append(
                {k: worker_rate(task, k, num_envs, unroll, per_call, seconds)["steps_per_s"] for k in (1, 2, 3)}
            )
    finally:
        ray.shutdown()
        cluster.shutdown()
    med = {k: statistics.median(r[k] for r in rows) for k in (1, 2, 3)}
    return {
        "task": task,
        "unrolls_per_call": per_call,
        "median_steps_per_s": med,
        "efficiency": {k: med[k] / (k * med[1]) for k in (1, 2, 3)},
        "reps": rows,
    }


def fmt(figures: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:,.0f}" if v > 100 else f"{k} {v:.2f}" for k, v in figures.items())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--part", choices=["all", "overhead", "rollout", "scaling"], default="all")
    p.add_argument("--seconds", type=float, default=1.5)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--task", default="CartPole-v1", help="the overhead and scaling parts' task")
    p.add_argument(
        "--rollout-tasks",
        default="CartPole-v1:1/64,HalfCheetah-v5:1",
        help="the rollout part's tasks, comma-separated, each with the unrolls_per_call values to run "
        "(TASK:K1/K2/...): the cheapest env step there is, and a MuJoCo one",
    )
    p.add_argument("--envs-per-worker", type=int, default=16)
    p.add_argument("--unroll", type=int, default=128)
    p.add_argument("--scaling-unrolls-per-call", type=int, default=64)
    args = p.parse_args()
    rollout_cases = []  # (task, its unrolls_per_call values): "TASK:K1/K2" or "TASK" (1)
    for item in args.rollout_tasks.split(","):
        task, _, per_call = item.partition(":")
        rollout_cases.append((task, [int(k) for k in (per_call or "1").split("/")]))
    out: dict = {"load_average_at_start": os.getloadavg(), "cores": os.cpu_count()}
    if args.part in ("all", "overhead", "rollout"):
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        if args.part in ("all", "overhead"):
            out["overhead"] = [overhead(args.task, n, args.seconds, args.repeats) for n in (1, 64)] + [
                overhead("HalfCheetah-v5", 16, args.seconds, args.repeats)
            ]
        if args.part in ("all", "rollout"):
            out["rollout"] = [
                rollout_part(task, args.envs_per_worker, args.unroll, per_call, args.seconds, args.repeats)
                for task, per_call in rollout_cases
            ]
        ray.shutdown()
    if args.part in ("all", "scaling"):
        out["scaling"] = scaling_part(
            args.task, args.envs_per_worker, args.unroll, args.scaling_unrolls_per_call, args.seconds, args.repeats
        )
    out["load_average_at_end"] = os.getloadavg()
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"ray_compare_{args.part}.json"
    path.write_text(json.dumps(out, indent=2, default=str))
    for row in out.get("overhead", []):
        print(
            f"overhead {row['task']} N={row['num_envs']}: local {row['local_calls_per_s']:.0f} calls/s, "
            f"RayVectorEnv {row['ray_calls_per_s']:.0f} calls/s, ratio {row['ratio']:.3f}, "
            f"+{row['extra_us_per_call']:.0f} us/call"
        )
    for r in out.get("rollout", []):
        print(f"rollout {r['task']}: steps/s {fmt(r['median_steps_per_s'])}; busy cores {fmt(r['median_cores_busy'])}")
        print(f"  vs the local loop, per core by wall clock: {fmt(r['per_core_wall'])}")
        print(f"  per busy core of the machine (driver, raylet, GCS counted): {fmt(r['per_busy_core'])}")
        print(f"  per CPU second of the worker processes: {fmt(r['per_worker_cpu'])}")
        print(f"  1 Ray worker vs the same calls in this process: {fmt(r['ray_1_vs_in_process'])}")
    if "scaling" in out:
        s = out["scaling"]
        print(
            f"scaling (unrolls_per_call {s['unrolls_per_call']}) steps/s {s['median_steps_per_s']}; "
            f"efficiency {s['efficiency']}"
        )
    print(f"load average {out['load_average_at_start']} -> {out['load_average_at_end']}; results in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
