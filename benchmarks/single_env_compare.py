"""One env: ``gymnasium.make("envhive/<id>")`` against ``gymnasium.make("<id>")`` (the reference env),
steps/s side by side, interleaved repetitions, medians, and the ratio.

Both are made the way user code makes them (``gymnasium.make`` with its default wrappers: the
passive env checker, order enforcing, the time limit), driven by the same loop: a fixed action,
``reset()`` whenever an episode ends. This measures what a single-env user (an evaluation script,
TorchRL's ``GymEnv``, SB3's ``make_vec_env``) sees per step.

    python benchmarks/single_env_compare.py                      # CartPole, Pendulum, HalfCheetah, Pong
    python benchmarks/single_env_compare.py --tasks CartPole-v1 --seconds 2 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import gymnasium
import numpy as np

import envhive  # registers envhive/<id>


def reference(task_id: str) -> tuple[str, gymnasium.Env[Any, Any]]:
    """Gymnasium's env doing the same work as envhive's ``task_id``. Atari: envhive runs EnvPool's
    defaults (the DQN recipe), so the reference is ALE's v5 env with Gymnasium's AtariPreprocessing
    (frame skip 4, max-pool, 84x84 gray, up to 30 no-ops) and a 4-frame stack, no sticky actions."""
    if envhive.make_spec(task_id).family != "atari":
        return task_id, gymnasium.make(task_id)
    import ale_py  # the [atari] extra

    gymnasium.register_envs(ale_py)
    name = f"ALE/{task_id}"
    env = gymnasium.make(name, frameskip=1, repeat_action_probability=0.0, max_episode_steps=108_000)
    env = gymnasium.wrappers.AtariPreprocessing(env, noop_max=30, frame_skip=4, screen_size=84)
    return f"{name} + AtariPreprocessing + FrameStack(4)", gymnasium.wrappers.FrameStackObservation(env, 4)


def steps_per_second(env: gymnasium.Env[Any, Any], seconds: float) -> float:
    space = env.action_space
    action: Any = 0 if isinstance(space, gymnasium.spaces.Discrete) else np.zeros(space.shape, dtype=space.dtype)
    env.reset(seed=0)
    for _ in range(100):  # warm-up
        if any(env.step(action)[2:4]):
            env.reset()
    steps, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(256):
            if any(env.step(action)[2:4]):
                env.reset()
        steps += 256
        now = time.perf_counter()
        if now >= deadline:
            return steps / (now - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default="CartPole-v1,Pendulum-v1,HalfCheetah-v5,Pong-v5")
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.repeats} interleaved repeats of {args.seconds} s")
    print("| task | gymnasium.make steps/s | envhive/<id> steps/s | ratio |")
    print("|---|---:|---:|---:|")
    for task_id in args.tasks.split(","):
        ref_id, ref = reference(task_id)
        hive = gymnasium.make(f"envhive/{task_id}")
        ref_runs, hive_runs = [], []
        for _ in range(args.repeats):
            ref_runs.append(steps_per_second(ref, args.seconds))
            hive_runs.append(steps_per_second(hive, args.seconds))
        r, h = statistics.median(ref_runs), statistics.median(hive_runs)
        print(f"| {task_id} (vs {ref_id}) | {r:,.0f} | {h:,.0f} | {h / r:.2f}x |")
        ref.close()
        hive.close()


if __name__ == "__main__":
    main()
