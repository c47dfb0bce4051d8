"""envhive on Ray, side by side with the same pools stepped locally (ratios, medians of repeats).

1. Per-call overhead: RayVectorEnv (one shard, the pool in an actor) vs a local pool of the same
   size and threads: steps/s of each and the extra time per call.
2. Rollout workers: env steps/s the learner receives from W workers (policy next to the pool,
   1 CPU each) vs the same pool + policy loop in one local process, per core used.
3. Scaling across 1, 2, 3 simulated nodes (ray.cluster_utils.Cluster, one 1-CPU worker per
   node): throughput and efficiency T_k / (k T_1). On a machine with fewer cores than nodes the
   nodes share cores, so efficiency there measures the cores, not Ray.

    .venv-rllib/bin/python benchmarks/ray_compare.py            # about 3-4 min on 2 cores
    .venv-rllib/bin/python benchmarks/ray_compare.py --part overhead --seconds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np
import ray
from ray.cluster_utils import Cluster

import envhive
from envhive.ray import RayVectorEnv, RolloutWorkers
from envhive.ray.rollout import RolloutWorker

RESULTS = Path(__file__).resolve().parent / "results"


def linear_policy(weights, obs, rng):
    """A numpy policy as a learner would ship it: one matrix product and a sample per step."""
    logits = obs.astype(np.float32) @ weights
    return (logits[:, 1] - logits[:, 0] + rng.standard_normal(len(obs)) > 0).astype(np.int64)


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


def local_rollout_rate(task: str, num_envs: int, unroll: int, seconds: float) -> float:
    """Env steps/s of one pool + the policy in this process (1 thread), storing what a trajectory
    holds (obs, actions, rewards, both flags): the per-core reference."""
    pool = envhive.make(task, num_envs=num_envs, num_threads=1, seed=0)
    obs, _ = pool.reset()
    weights = np.zeros((pool.single_observation_space.shape[0], 2), np.float32)
    rng = np.random.default_rng(0)

    def one_unroll() -> None:
        nonlocal obs
        obs_buf = np.empty((unroll, *obs.shape), obs.dtype)
        actions_buf = np.empty((unroll, num_envs), np.int64)
        rewards = np.empty((unroll, num_envs))
        terminated = np.empty((unroll, num_envs), bool)
        truncated = np.empty((unroll, num_envs), bool)
        for t in range(unroll):
            actions = linear_policy(weights, obs, rng)
            actions_buf[t] = actions
            obs_buf[t] = obs
            obs, rewards[t], terminated[t], truncated[t], _ = pool.step(actions)

    rate = timed(one_unroll, seconds) * unroll * num_envs
    pool.close()
    return rate


def in_process_worker_rate(task: str, num_envs: int, unroll: int, seconds: float) -> float:
    """Env steps/s of ``RolloutWorker.rollout`` called in this process (no Ray): what the actor
    does, without Ray's transport and scheduling."""
    obs_dim = envhive.make_spec(task).observation_space.shape[0]
    weights = np.zeros((obs_dim, 2), np.float32)
    worker = RolloutWorker(task, num_envs, unroll, linear_policy, weights, None, num_threads=1)
    rate = timed(worker.rollout, seconds) * unroll * num_envs
    worker.close()
    return rate


def worker_rate(task: str, workers: int, num_envs: int, unroll: int, seconds: float) -> float:
    """Env steps/s the learner receives from ``workers`` RolloutWorkers of 1 CPU each."""
    obs_dim = envhive.make_spec(task).observation_space.shape[0]
    weights = np.zeros((obs_dim, 2), np.float32)
    with RolloutWorkers(task, workers, num_envs, linear_policy, weights, unroll_length=unroll, seed=0) as w:
        for _ in range(2 * workers):
            w.next(timeout=120)
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            steps += w.next(timeout=120).num_steps
        return steps / (time.perf_counter() - start)


def rollout_part(task: str, num_envs: int, unroll: int, seconds: float, repeats: int) -> dict:
    rows = []
    for _ in range(repeats):
        rows.append(
            {
                "local": local_rollout_rate(task, num_envs, unroll, seconds),
                "in_process": in_process_worker_rate(task, num_envs, unroll, seconds),
                "ray_1": worker_rate(task, 1, num_envs, unroll, seconds),
                "ray_2": worker_rate(task, 2, num_envs, unroll, seconds),
            }
        )
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    return {
        "task": task,
        "envs_per_worker": num_envs,
        "unroll": unroll,
        "median_steps_per_s": med,
        "per_core_ratio_1_worker": med["ray_1"] / med["local"],
        "per_core_ratio_2_workers": med["ray_2"] / 2 / med["local"],
        "in_process_vs_local": med["in_process"] / med["local"],
        "ray_1_vs_in_process": med["ray_1"] / med["in_process"],
        "reps": rows,
    }


def scaling_part(task: str, num_envs: int, unroll: int, seconds: float, repeats: int) -> dict:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(3):
        cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    try:
        rows = []
        for _ in range(repeats):
            rows.append({k: worker_rate(task, k, num_envs, unroll, seconds) for k in (1, 2, 3)})
    finally:
        ray.shutdown()
        cluster.shutdown()
    med = {k: statistics.median(r[k] for r in rows) for k in (1, 2, 3)}
    return {
        "task": task,
        "median_steps_per_s": med,
        "efficiency": {k: med[k] / (k * med[1]) for k in (1, 2, 3)},
        "reps": rows,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--part", choices=["all", "overhead", "rollout", "scaling"], default="all")
    p.add_argument("--seconds", type=float, default=1.5)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--task", default="CartPole-v1")
    p.add_argument("--envs-per-worker", type=int, default=16)
    p.add_argument("--unroll", type=int, default=128)
    args = p.parse_args()
    out: dict = {"load_average_at_start": os.getloadavg(), "cores": os.cpu_count()}
    if args.part in ("all", "overhead", "rollout"):
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        if args.part in ("all", "overhead"):
            out["overhead"] = [overhead(args.task, n, args.seconds, args.repeats) for n in (1, 64)] + [
                overhead("HalfCheetah-v5", 16, args.seconds, args.repeats)
            ]
        if args.part in ("all", "rollout"):
            out["rollout"] = rollout_part(args.task, args.envs_per_worker, args.unroll, args.seconds, args.repeats)
        ray.shutdown()
    if args.part in ("all", "scaling"):
        out["scaling"] = scaling_part(args.task, args.envs_per_worker, args.unroll, args.seconds, args.repeats)
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
    if "rollout" in out:
        r = out["rollout"]
        print(
            f"rollout {r['task']} steps/s {r['median_steps_per_s']}; per core: "
            f"1 worker {r['per_core_ratio_1_worker']:.2f}x, 2 workers {r['per_core_ratio_2_workers']:.2f}x; "
            f"RolloutWorker in this process vs the local loop {r['in_process_vs_local']:.2f}x, "
            f"1 Ray worker vs it in this process {r['ray_1_vs_in_process']:.2f}x"
        )
    if "scaling" in out:
        s = out["scaling"]
        print(f"scaling steps/s {s['median_steps_per_s']}; efficiency {s['efficiency']}")
    print(f"load average {out['load_average_at_start']} -> {out['load_average_at_end']}; results in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
