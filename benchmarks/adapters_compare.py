"""envhive through each trainer's env API vs that trainer's own default vectoriser, side by side.

Env-only (`--part env`): steps/s with random actions through the env API each trainer steps:
SB3's VecEnv (envhive.adapters.sb3 vs DummyVecEnv and SubprocVecEnv), TorchRL's EnvBase
(envhive.adapters.torchrl vs SerialEnv and ParallelEnv of GymWrapper, stepped with
`step_and_maybe_reset` as its collectors do), RLlib's EnvRunner env (DictInfoToList over
envhive.adapters.rllib's pool vs RLlib's default, a Gymnasium SyncVectorEnv), rl_games' vecenv
(envhive.adapters.rl_games vs rl_games' own envpool vecenv over EnvPool 1.2.5), Tianshou's vector
env (envhive.adapters.tianshou vs DummyVectorEnv and SubprocVectorEnv) and skrl's GymnasiumWrapper
(over an envhive pool vs over Gymnasium's SyncVectorEnv, both SAME_STEP), for CartPole-v1,
HalfCheetah-v5 and Pong-v5 (Gymnasium's side: ALE/Pong-v5 with EnvPool's Atari preprocessing).

Training (`--part train`): env steps/s of each trainer's PPO on CartPole-v1, envhive vs the
trainer's default setup, same hyperparameters (SB3 PPO: RL Zoo's; rl_games: its
ppo_cartpole.yaml; RLlib PPO: 2 EnvRunners; TorchRL: a collector + ClipPPOLoss loop).

dm (`--part dm`): the per-call cost of envhive's dm_env facade (`envhive.make_dm`) against its
Gymnasium facade (`envhive.make`) over the same pool, CartPole-v1 at 1, 4 and 16 envs.

Every measurement runs in a fresh process through envhive's benchmark harness (repetitions
interleaved, medians). Run it in the venv that has every trainer, .venv-rllib (`make
install-rllib`, plus `pip install envpool==1.2.5`):

    .venv-rllib/bin/python benchmarks/adapters_compare.py --part env      # about 20 min on 2 cores
    .venv-rllib/bin/python benchmarks/adapters_compare.py --part train    # about 15 min
    .venv-rllib/bin/python benchmarks/adapters_compare.py --part dm       # dm_env facade vs Gymnasium's, 1 min
    .venv-rllib/bin/python benchmarks/adapters_compare.py --part report   # markdown from both
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from envhive.bench import Case, Comparison, Settings, compare

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = ("CartPole-v1", "HalfCheetah-v5", "Pong-v5")
# trainer -> (envhive engine, its default vectoriser(s))
ENV_GROUPS = {
    "Stable-Baselines3": ("sb3-envhive", ("sb3-dummy", "sb3-subproc")),
    "TorchRL": ("torchrl-envhive", ("torchrl-serial", "torchrl-parallel")),
    "RLlib": ("rllib-envhive", ("rllib-gymnasium",)),
    "rl_games": ("rl_games-envhive", ("rl_games-envpool",)),
    "Tianshou": ("tianshou-envhive", ("tianshou-dummy", "tianshou-subproc")),
    "skrl": ("skrl-envhive", ("skrl-gymnasium",)),
}
TRAIN_GROUPS = {
    "Stable-Baselines3 PPO": ("sb3-ppo-envhive", ("sb3-ppo-dummy",)),
    "rl_games PPO": ("rl_games-ppo-envhive", ("rl_games-ppo-envpool",)),
    "RLlib PPO": ("rllib-ppo-envhive", ("rllib-ppo-gymnasium",)),
    "TorchRL PPO": ("torchrl-ppo-envhive", ("torchrl-ppo-serial",)),
}


def run(groups: dict, cases: list[Case], settings: Settings, out: Path) -> None:
    engines = [e for hive, refs in groups.values() for e in (hive, *refs)]
    result = compare(cases, engines, settings)
    rows = []
    for case in cases:
        for trainer, (hive, refs) in groups.items():
            h = result.results[case.measurement(hive)]
            for ref in refs:
                r = result.results[case.measurement(ref)]
                rows.append(
                    {
                        "task": case.task,
                        "num_envs": case.num_envs,
                        "trainer": trainer,
                        "envhive_engine": hive,
                        "reference_engine": ref,
                        "envhive_steps_per_s": h.steps_per_s,
                        "reference_steps_per_s": r.steps_per_s,
                        "envhive_spread": h.spread,
                        "reference_spread": r.spread,
                        "ratio": h.steps_per_s / r.steps_per_s if h.steps_per_s and r.steps_per_s else None,
                        "notes": [x for x in (h.error, h.skipped, r.error, r.skipped) if x],
                    }
                )
    if out.exists():  # keep the rows of cases this run did not measure (e.g. --tasks Pong-v5 again)
        done = {(c.task, c.num_envs) for c in cases}
        old = json.loads(out.read_text())
        rows = [r for r in old["rows"] if (r["task"], r["num_envs"]) not in done] + rows
        order = {t: i for i, t in enumerate(TASKS)}
        rows.sort(key=lambda r: (order.get(r["task"], 99), r["num_envs"]))
    out.write_text(json.dumps({"raw": result.to_json(), "rows": rows}, indent=2) + "\n")
    print(table(rows, result))


def table(rows: list[dict], result: Comparison | None = None, machine: dict | None = None) -> str:
    def num(v: float | None) -> str:
        return "—" if v is None else f"{v:,.0f}"

    lines = [
        "| task | num_envs | trainer | envhive steps/s | default vectoriser | its steps/s | envhive / default |",
        "|---|---:|---|---:|---|---:|---:|",
    ]
    for r in rows:
        ratio = "—" if r["ratio"] is None else f"**{r['ratio']:.1f}x**"
        lines.append(
            f"| {r['task']} | {r['num_envs']} | {r['trainer']} | {num(r['envhive_steps_per_s'])} | "
            f"{r['reference_engine']} | {num(r['reference_steps_per_s'])} | {ratio} |"
        )
    notes = sorted({n.splitlines()[-1][:200] for r in rows for n in r["notes"]})
    lines += [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def run_dm(settings: Settings, out: Path) -> None:
    cases = [Case("CartPole-v1", n) for n in (1, 4, 16)]
    result = compare(cases, ["envhive", "envhive-dm"], settings)
    rows = []
    for case in cases:
        gym, dm = (result.results[case.measurement(e)] for e in ("envhive", "envhive-dm"))
        rows.append(
            {
                "num_envs": case.num_envs,
                "gym_us_per_call": gym.us_per_call,
                "dm_us_per_call": dm.us_per_call,
                "gym_steps_per_s": gym.steps_per_s,
                "dm_steps_per_s": dm.steps_per_s,
                "cost_ratio": dm.us_per_call / gym.us_per_call if dm.us_per_call and gym.us_per_call else None,
            }
        )
    out.write_text(json.dumps({"raw": result.to_json(), "rows": rows}, indent=2) + "\n")
    print(dm_table(rows))


def dm_table(rows: list[dict]) -> str:
    lines = [
        "| task | num_envs | Gymnasium facade steps/s | us/call | dm_env facade steps/s | us/call | dm / Gym cost |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = "—" if r["cost_ratio"] is None else f"**{r['cost_ratio']:.2f}x**"
        lines.append(
            f"| CartPole-v1 | {r['num_envs']} | {r['gym_steps_per_s']:,.0f} | {r['gym_us_per_call']:.2f} | "
            f"{r['dm_steps_per_s']:,.0f} | {r['dm_us_per_call']:.2f} | {ratio} |"
        )
    return "\n".join(lines) + "\n"


def report() -> str:
    parts = ["# envhive through each trainer's API vs the trainer's default vectoriser", ""]
    parts.append(
        "Generated by `benchmarks/adapters_compare.py` (see its docstring for what each engine steps). "
        "Ratios are envhive's steps/s over the default's, measured side by side in one run "
        "(fresh process per measurement, repetitions interleaved, medians)."
    )
    parts_titles = (
        ("env", "Env-only: random actions through the trainer's env API"),
        ("train", "Training: each trainer's PPO on CartPole-v1, env steps/s"),
        ("dm", "dm_env facade: per-call cost against the Gymnasium facade (same pool)"),
    )
    for part, title in parts_titles:
        path = RESULTS / f"adapters_compare_{part}.json"
        if not path.exists():
            parts += ["", f"## {title}", "", f"(not run: `--part {part}`)"]
            continue
        data = json.loads(path.read_text())
        m, s = data["raw"]["machine"], data["raw"]["settings"]
        versions = ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v)
        parts += [
            "",
            f"## {title}",
            "",
            f"_{m['cpu_count']} x {m['cpu']}, Python {m['python']}, {versions}; load average "
            f"{m['loadavg_1min']:.1f} when it ended (other jobs shared the 2 cores); "
            f"median of {s['repeats']} x {s['seconds']:g} s after "
            f"{s['warmup']:g} s warm-up; {m['date']}._",
            "",
            dm_table(data["rows"]) if part == "dm" else table(data["rows"]),
        ]
    return "\n".join(parts)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--part", choices=["env", "train", "dm", "report"], required=True)
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--num-envs", default="8")
    p.add_argument("--seconds", type=float, default=None)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    RESULTS.mkdir(exist_ok=True)
    if a.part == "report":
        (RESULTS / "adapters_compare.md").write_text(report())
        print(report())
        return
    if a.part == "dm":
        run_dm(
            Settings(seconds=a.seconds or 2.0, warmup=1.0, repeats=max(a.repeats, 5)),
            RESULTS / "adapters_compare_dm.json",
        )
        return
    sizes = [int(n) for n in a.num_envs.split(",")]
    if a.part == "env":
        cases = [Case(t, n) for t in a.tasks.split(",") for n in sizes]
        settings = Settings(seconds=a.seconds or 2.0, warmup=1.0, repeats=a.repeats, timeout=600)
        run(ENV_GROUPS, cases, settings, RESULTS / "adapters_compare_env.json")
    else:
        cases = [Case("CartPole-v1", n) for n in sizes]
        settings = Settings(seconds=a.seconds or 20.0, warmup=10.0, repeats=a.repeats, timeout=900)
        run(TRAIN_GROUPS, cases, settings, RESULTS / "adapters_compare_train.json")


if __name__ == "__main__":
    main()
