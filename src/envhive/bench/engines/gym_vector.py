"""Gymnasium's own ways of running a task: one env in a Python loop, and its vectorisers
(SyncVectorEnv, AsyncVectorEnv, the env's vector entry point)."""

from __future__ import annotations

from itertools import islice
from typing import Any

from envhive.bench.engines.base import Builder, Engine, Runner, action_pool, loop
from envhive.bench.engines.reference import gymnasium_env, gymnasium_id, is_dmc, reference_env_fn

GYMNASIUM_HINT = "gymnasium not installed: pip install gymnasium"


def build_single(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    """One env stepped in a Python loop, reset when its episode ends."""
    env = gymnasium_env(task)
    env.reset(seed=seed)
    actions = action_pool(env.action_space, None, seed)
    step, reset = env.step, env.reset

    def advance(n: int) -> None:
        for a in islice(actions, n):
            _, _, terminated, truncated, _ = step(a)
            if terminated or truncated:
                reset()

    return Runner(advance, env.close, 1)


def _build_vector(mode: str) -> Builder:
    def build(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
        import gymnasium

        env: gymnasium.vector.VectorEnv[Any, Any, Any]
        if mode == "async" and is_dmc(task):  # dm_control's own envs, in processes
            # spawned: a process forked after the parent drew a frame (AsyncVectorEnv makes one env in
            # the parent) inherits Mesa's locks without the threads holding them, and hangs
            env = gymnasium.vector.AsyncVectorEnv([reference_env_fn(task)] * num_envs, context="spawn")
        elif mode == "sync" and is_dmc(task):
            env = gymnasium.vector.SyncVectorEnv([reference_env_fn(task)] * num_envs)
        elif mode in ("sync", "async") and gymnasium_id(task).startswith("ALE/"):  # the matched pipeline
            vector = gymnasium.vector.SyncVectorEnv if mode == "sync" else gymnasium.vector.AsyncVectorEnv
            env = vector([lambda: gymnasium_env(task)] * num_envs)
        else:
            env = gymnasium.make_vec(gymnasium_id(task), num_envs=num_envs, vectorization_mode=mode)
        env.reset(seed=seed)
        pids = [p.pid for p in getattr(env, "processes", []) if p.pid is not None]
        return Runner(loop(env.step, action_pool(env.single_action_space, num_envs, seed)), env.close, num_envs, pids)

    return build


ENGINES = (
    Engine(
        "gymnasium-single",
        "gymnasium.make + Python loop (one env, one core)",
        "gymnasium",
        GYMNASIUM_HINT,
        build_single,
        vectorized=False,
        label="1 env, Python loop",
        kwargs=True,
    ),
    Engine(
        "gymnasium-sync",
        "gymnasium.make_vec(vectorization_mode='sync')",
        "gymnasium",
        GYMNASIUM_HINT,
        _build_vector("sync"),
        label="SyncVectorEnv",
        kwargs=True,
    ),
    Engine(
        "gymnasium-async",
        "gymnasium.make_vec(vectorization_mode='async'), N processes",
        "gymnasium",
        GYMNASIUM_HINT,
        _build_vector("async"),
        label="AsyncVectorEnv, 1 proc/env",
        kwargs=True,
    ),
    Engine(
        "gymnasium-vec",
        "gymnasium.make_vec(vectorization_mode='vector_entry_point')",
        "gymnasium",
        GYMNASIUM_HINT,
        _build_vector("vector_entry_point"),
        label="vector_entry_point",
    ),
)
