"""The PPO examples' own training loops, the env engine swapped, side by side in one run.

Each example (examples/train/ppo_*.py) trains through its ``train(args, envs)`` with ``envs`` built by
one of these engines; the agent code is the same in every run:

- ``envhive-sync`` / ``envhive-async``: envhive's pool (async: ``batch_size = num_envs / 2``);
- ``envpool-sync`` / ``envpool-async``: EnvPool 1.2.5 (``pip install "envhive[bench]"``);
- ``gymnasium-sync`` / ``gymnasium-async``: Gymnasium's SyncVectorEnv / AsyncVectorEnv (a process per env);
- ``zero-cost``: the trainer's own limit -- the same loop over an env that returns constant arrays
  (preallocated, no simulation), so its steps/s is what the agent code alone allows.

Reported per example and engine: training steps/s (median of the repetitions, interleaved), the
ratio to envhive's and to the zero-cost limit, and the wall time and steps to a return threshold
(median over the repetitions that reached it). Sync-API examples (ppo_classic, ppo_mujoco) take the
sync engines; ppo_atari's send/recv loop takes the async ones and the pools in sync mode (a
``recv`` of all envs). The learning curves (mean return against wall time, first repetition) go to
a PNG (``--plot``, needs matplotlib).

    python benchmarks/train_ppo.py                                  # short runs, a few minutes
    python benchmarks/train_ppo.py --examples classic --repeats 5 --plot docs/train_ppo.png
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import resource
import statistics
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

import envhive
from envhive.bench.harness import machine_info

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from examples.train import ppo_atari, ppo_classic, ppo_mujoco  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


# ----------------------------------------------------------------------------------- engines
class ZeroCostSync:
    """Gymnasium's sync vector API over nothing: constant, preallocated arrays; every env's episode is
    truncated after ``episode_length`` steps, so the loop's episode bookkeeping runs as usual."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, like: Any, num_envs: int, episode_length: int) -> None:
        self.num_envs = num_envs
        self.single_observation_space = like.single_observation_space
        self.single_action_space = like.single_action_space
        shape = (num_envs, *self.single_observation_space.shape)
        self._obs = np.zeros(shape, dtype=self.single_observation_space.dtype)
        self._reward = np.zeros(num_envs)
        self._term = np.zeros(num_envs, dtype=bool)
        self._trunc = np.zeros(num_envs, dtype=bool)
        self._length, self._t = episode_length, 0

    def reset(self, *, seed: Any = None, options: Any = None) -> tuple[np.ndarray, dict[str, Any]]:
        self._t = 0
        return self._obs, {}

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        self._t += 1
        self._trunc[:] = self._t % self._length == 0
        return self._obs, self._reward, self._term, self._trunc, {}

    def close(self) -> None:
        pass


class ZeroCostAsync:
    """EnvPool's send/recv API over nothing: ``recv`` returns the first ``batch_size`` envs sent to, in
    the order they were sent, with constant arrays."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, like: Any, num_envs: int, batch_size: int, episode_length: int) -> None:
        self.num_envs, self.batch_size = num_envs, batch_size
        self.single_observation_space = like.single_observation_space
        self.single_action_space = like.single_action_space
        shape = (batch_size, *self.single_observation_space.shape)
        self._obs = np.zeros(shape, dtype=self.single_observation_space.dtype)
        self._reward = np.zeros(batch_size)
        self._term = np.zeros(batch_size, dtype=bool)
        self._queue: deque[int] = deque()
        self._steps = np.zeros(num_envs, dtype=np.int64)
        self._length = episode_length

    def async_reset(self) -> None:
        self._queue.extend(range(self.num_envs))
        self._steps[:] = 0

    def send(self, actions: Any, env_id: Any) -> None:
        self._queue.extend(np.asarray(env_id).tolist())

    def recv(self) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        ids = np.array([self._queue.popleft() for _ in range(self.batch_size)], dtype=np.int32)
        self._steps[ids] += 1
        trunc = self._steps[ids] % self._length == 0
        return self._obs, self._reward, self._term, trunc, {"env_id": ids, "elapsed_step": self._steps[ids]}

    def close(self) -> None:
        pass


class EnvPoolSync:
    """EnvPool's gymnasium env with the attributes a Gymnasium vector env has (its own spaces are single-env)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, env: Any) -> None:
        self.env = env
        self.num_envs = env.config["num_envs"]
        self.batch_size = env.config["batch_size"]
        self.single_observation_space = env.observation_space
        self.single_action_space = env.action_space

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        return self.env.reset()  # EnvPool seeds at construction

    def step(self, actions: Any) -> Any:
        return self.env.step(actions)

    def async_reset(self) -> None:
        self.env.async_reset()

    def send(self, actions: Any, env_id: Any) -> None:
        self.env.send(actions, env_id)

    def recv(self) -> Any:
        return self.env.recv()

    def close(self) -> None:
        self.env.close()


def _envpool_kwargs(example: str, args: Any) -> dict[str, Any]:
    if example == "atari":
        return {
            "episodic_life": True,
            "reward_clip": True,
            "max_episode_steps": args.max_episode_steps,
        }
    if example == "mujoco" and args.max_episode_steps:
        return {"max_episode_steps": args.max_episode_steps}
    return {}


def make_engine(engine: str, example: str, args: Any) -> Any:
    """``envs`` for ``example``'s train() on ``engine``."""
    n, seed = args.num_envs, args.seed
    batch = getattr(args, "batch_size", n)
    if engine in ("envhive-sync", "envhive-async"):
        module = {"classic": ppo_classic, "mujoco": ppo_mujoco, "atari": ppo_atari}[example]
        return module.make_envs(args)
    if engine in ("envpool-sync", "envpool-async"):
        import envpool

        kwargs = _envpool_kwargs(example, args)
        return EnvPoolSync(
            envpool.make(args.env_id, env_type="gymnasium", num_envs=n, batch_size=batch, seed=seed, **kwargs)
        )
    if engine in ("gymnasium-sync", "gymnasium-async"):
        mode = engine.split("-")[1]
        kwargs = {"max_episode_steps": args.max_episode_steps} if getattr(args, "max_episode_steps", 0) else {}
        return gymnasium.make_vec(args.env_id, num_envs=n, vectorization_mode=mode, **kwargs)
    if engine == "zero-cost":
        like = envhive.make(args.env_id, num_envs=1)
        length = getattr(args, "max_episode_steps", 0) or 500
        try:
            if example == "atari":
                return ZeroCostAsync(like, n, batch, length)
            return ZeroCostSync(like, n, length)
        finally:
            like.close()
    raise ValueError(f"unknown engine {engine!r}")


# --------------------------------------------------------------------------------- examples
@dataclasses.dataclass
class Example:
    name: str
    module: Any
    args: Any
    threshold: float
    engines: list[str]
    async_engines: dict[str, int]  # engine -> its batch_size (atari)


def examples(opts: argparse.Namespace) -> list[Example]:
    out = []
    for name in opts.examples.split(","):
        if name == "classic":
            args = ppo_classic.Args(total_timesteps=opts.classic_steps, target_return=None, log_every=0, seed=opts.seed)
            engines = ["envhive-sync", "envpool-sync", "gymnasium-sync", "gymnasium-async", "zero-cost"]
            out.append(Example(name, ppo_classic, args, opts.classic_threshold, engines, {}))
        elif name == "mujoco":
            args = ppo_mujoco.Args(
                env_id=opts.mujoco_task, total_timesteps=opts.mujoco_steps, log_every=0, seed=opts.seed
            )
            engines = ["envhive-sync", "envpool-sync", "gymnasium-sync", "gymnasium-async", "zero-cost"]
            out.append(Example(name, ppo_mujoco, args, opts.mujoco_threshold, engines, {}))
        elif name == "atari":
            args = ppo_atari.Args(
                total_timesteps=opts.atari_steps, num_envs=opts.atari_envs, num_steps=16, log_every=0, seed=opts.seed
            )
            n = args.num_envs
            batches = {
                "envhive-async": n // 2,
                "envhive-sync": n,
                "envpool-async": n // 2,
                "envpool-sync": n,
                "zero-cost": n // 2,
            }
            out.append(Example(name, ppo_atari, args, opts.atari_threshold, list(batches), batches))
        else:
            raise SystemExit(f"unknown example {name!r} (classic, mujoco, atari)")
    if opts.engines:
        keep = set(opts.engines.split(","))
        for ex in out:
            ex.engines = [e for e in ex.engines if e in keep or e == "zero-cost"]
    return out


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # every thread of this process
    return usage.ru_utime + usage.ru_stime


def _children_cpu_seconds(envs: Any) -> float:
    """CPU time of an AsyncVectorEnv's worker processes so far (from /proc; 0 for in-process engines)."""
    total, tick = 0.0, os.sysconf("SC_CLK_TCK")
    for proc in getattr(envs, "processes", []):
        try:
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total


def run_one(ex: Example, engine: str) -> dict[str, Any]:
    args = ex.args
    if ex.async_engines:
        args = dataclasses.replace(args, batch_size=ex.async_engines[engine])
    envs = make_engine(engine, ex.name, args)
    try:
        cpu0, child0 = _cpu_seconds(), _children_cpu_seconds(envs)
        result = ex.module.train(args, envs)
        cpu = _cpu_seconds() - cpu0 + _children_cpu_seconds(envs) - child0
    finally:
        envs.close()
    history = result.history if engine != "zero-cost" else []  # its constant rewards are no learning curve
    reach = next(((s, t) for s, t, r in history if r >= ex.threshold), None)
    finite = all(math.isfinite(v) for row in result.losses for v in row.values())
    return {
        "steps": result.global_step,
        "seconds": result.seconds,
        "steps_per_second": result.steps_per_second,
        "cpu_seconds": cpu,
        "steps_per_cpu_second": result.global_step / cpu,
        "episodes": result.episodes,
        "final_mean_return": result.mean_return,
        "steps_to_threshold": None if reach is None else reach[0],
        "seconds_to_threshold": None if reach is None else reach[1],
        "losses_finite": finite,
        "history": result.history,
    }


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _fmt(value: float | None, spec: str = ",.0f") -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def report(ex: Example, runs: dict[str, list[dict[str, Any]]]) -> str:
    sps = {e: _median([r["steps_per_second"] for r in rs]) for e, rs in runs.items()}
    per_cpu = {e: _median([r["steps_per_cpu_second"] for r in rs]) for e, rs in runs.items()}
    cpu_limit = per_cpu.get("zero-cost")
    limit, hive = sps.get("zero-cost"), sps.get("envhive-async" if ex.name == "atari" else "envhive-sync")
    lines = [
        f"### {ex.name}: {ex.args.env_id}, {ex.args.num_envs} envs, {ex.args.total_timesteps:,} steps per run, "
        f"threshold {ex.threshold:g}",
        "",
        "| engine | steps/s (samples) | median | envhive / engine | / zero-cost limit | steps per CPU-s | "
        "/ zero-cost | time to threshold | steps to threshold | final mean return |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for engine, rs in runs.items():
        samples = ", ".join(f"{r['steps_per_second']:,.0f}" for r in rs)
        reached = [r for r in rs if r["seconds_to_threshold"] is not None]
        ttt = _median([r["seconds_to_threshold"] for r in reached])
        stt = _median([r["steps_to_threshold"] for r in reached])
        label = engine + (f" (batch {ex.async_engines[engine]})" if ex.async_engines else "")
        ratio = None if not (hive and sps[engine]) else hive / sps[engine]
        to_limit = None if not (limit and sps[engine]) else sps[engine] / limit
        ttt_text = "-" if ttt is None else f"{ttt:.1f} s ({len(reached)}/{len(rs)})"
        cpu_ratio = None if not (cpu_limit and per_cpu[engine]) else per_cpu[engine] / cpu_limit
        final = _median([r["final_mean_return"] for r in rs])
        lines.append(
            f"| {label} | {samples} | {_fmt(sps[engine])} | {_fmt(ratio, '.2f')}x | {_fmt(to_limit, '.2f')}x | "
            f"{_fmt(per_cpu[engine])} | {_fmt(cpu_ratio, '.2f')}x | {ttt_text} | "
            f"{_fmt(stt)} | {_fmt(final, '.1f')} |"
        )
    return "\n".join(lines) + "\n"


def plot(path: Path, all_runs: dict[str, dict[str, list[dict[str, Any]]]], exs: list[Example]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def has_curve(ex: Example) -> bool:  # short runs of long-episode tasks may end no episode
        runs = [run for engine, rs in all_runs[ex.name].items() if engine != "zero-cost" for run in rs]
        return any(math.isfinite(r) for run in runs for _, _, r in run["history"])

    exs = [ex for ex in exs if has_curve(ex)]
    if not exs:
        return
    fig, axes = plt.subplots(1, len(exs), figsize=(6 * len(exs), 4.2), squeeze=False)
    for ax, ex in zip(axes[0], exs, strict=True):
        for engine, rs in all_runs[ex.name].items():
            if engine == "zero-cost" or not rs:
                continue
            hist = np.array(rs[0]["history"], dtype=float)
            ax.plot(hist[:, 1], hist[:, 2], label=engine)
        ax.axhline(ex.threshold, color="gray", lw=0.8, ls="--")
        ax.set_title(f"{ex.module.__name__.rsplit('.', 1)[-1]}.py: {ex.args.env_id}")
        ax.set_xlabel("wall time (s)")
        ax.set_ylabel(f"mean return (last {ex.args.return_window} episodes)")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def save(opts: argparse.Namespace, argv: list[str] | None, all_runs: dict[str, Any], exs: list[Example]) -> None:
    """The JSON results (every repetition, machine, versions) and, with ``--plot``, the PNG."""
    if opts.plot:
        plot(opts.plot, all_runs, exs)
    opts.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "argv": sys.argv[1:] if argv is None else argv,
        "machine": machine_info(),
        "examples": {
            ex.name: {"args": dataclasses.asdict(ex.args), "threshold": ex.threshold, "runs": all_runs[ex.name]}
            for ex in exs
        },
    }
    opts.out.write_text(json.dumps(payload, indent=1, default=str))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--examples", default="classic,mujoco,atari")
    p.add_argument("--engines", default="", help="comma-separated subset (zero-cost always runs)")
    p.add_argument("--repeats", type=int, default=3, help="interleaved repetitions per engine (default 3)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--classic-steps", type=int, default=61_440)
    p.add_argument("--classic-threshold", type=float, default=475.0)
    p.add_argument("--mujoco-task", default="HalfCheetah-v4")
    p.add_argument("--mujoco-steps", type=int, default=8_192)
    p.add_argument("--mujoco-threshold", type=float, default=0.0)
    p.add_argument("--atari-steps", type=int, default=1_024)
    p.add_argument("--atari-envs", type=int, default=8)
    p.add_argument("--atari-threshold", type=float, default=20.0)
    p.add_argument("--plot", type=Path, help="write the learning curves to this PNG")
    p.add_argument("--out", type=Path, default=RESULTS / "train_ppo.json")
    opts = p.parse_args(argv)

    exs = examples(opts)
    all_runs: dict[str, dict[str, list[dict[str, Any]]]] = {}
    started = time.time()
    for ex in exs:
        warm = dataclasses.replace(ex.args, total_timesteps=1)  # one iteration: torch's first-call costs
        ex.module.train(warm, make_engine("zero-cost", ex.name, warm))
        runs: dict[str, list[dict[str, Any]]] = {e: [] for e in ex.engines}
        for rep in range(opts.repeats):
            for engine in ex.engines:
                r = run_one(ex, engine)
                runs[engine].append(r)
                print(
                    f"[{ex.name} rep {rep + 1}/{opts.repeats}] {engine}: {r['steps_per_second']:,.0f} steps/s, "
                    f"final mean return {r['final_mean_return']:.1f}, load {os.getloadavg()[0]:.1f}",
                    file=sys.stderr,
                    flush=True,
                )
        all_runs[ex.name] = runs
        sys.stdout.write(report(ex, runs) + "\n")
        sys.stdout.flush()
        # After each example, so that a run cut short keeps the examples it finished.
        save(opts, argv, all_runs, [e for e in exs if e.name in all_runs])
    sys.stdout.write(
        f"_{opts.repeats} interleaved repetition(s); {machine_info().get('cpu', '')}; load average at the end "
        f"{os.getloadavg()[0]:.1f}; {time.time() - started:.0f} s in all._\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
