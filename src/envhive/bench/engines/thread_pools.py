"""Other C++ thread pools: EnvPool, and ale-py's AtariVectorEnv for Atari tasks."""

from __future__ import annotations

from itertools import islice
from typing import Any

from envhive.bench.engines.base import Engine, Runner, action_pool, loop, pool_kwargs, pool_runner, task_kwargs
from envhive.bench.engines.reference import atari_rom_id

ENVPOOL_HINT = "envpool not installed: pip install 'envhive[bench]'"


# envhive's DMC pixel kwargs in EnvPool's names (EnvPool draws one channel-first frame).
_ENVPOOL_KWARGS = {"from_pixels": "from_pixels", "height": "render_height", "width": "render_width"}


def _envpool_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, value in kwargs.items():
        if name == "camera_id":
            out["render_camera_id"] = value
        elif name in _ENVPOOL_KWARGS:
            out[_ENVPOOL_KWARGS[name]] = value
        else:
            raise ValueError(f"no EnvPool kwarg for envhive's {name}")
    return out


def _build_envpool(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import envpool

    kwargs = {"batch_size": batch_size, **pool_kwargs(num_envs, num_threads, seed), **_envpool_kwargs(task_kwargs())}
    env = envpool.make(task, env_type="gymnasium", **kwargs)
    # EnvPool's action_space is the single-env space, float64 for Box.
    return pool_runner(env, env.action_space, num_envs, batch_size, seed)


def _build_ale_vector(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    """ale-py's AtariVectorEnv (C++ threads) with EnvPool's defaults (no sticky actions, 30 no-ops,
    FIRE reset, no reward clipping, no episodic life)."""
    from ale_py.vector_env import AtariVectorEnv

    env = AtariVectorEnv(
        atari_rom_id(task), num_envs, batch_size=batch_size, num_threads=num_threads or 0,
        repeat_action_probability=0.0, noop_max=30, use_fire_reset=True, reward_clipping=False,
        episodic_life=False,
    )  # fmt: skip
    env.reset(seed=seed)
    actions = action_pool(env.single_action_space, batch_size, seed)
    if batch_size == num_envs:
        return Runner(loop(env.step, actions), env.close, num_envs)
    send, recv = env.send, env.recv  # ale-py's send() addresses the envs of the last batch received

    def advance_async(n: int) -> None:
        for a in islice(actions, n):
            send(a)
            recv()

    return Runner(advance_async, env.close, batch_size)


ENGINES = (
    Engine(
        "envpool",
        "envpool.make(env_type='gymnasium'), C++ thread pool",
        "envpool",
        ENVPOOL_HINT,
        _build_envpool,
        batched=True,
        threaded=True,
        kwargs=True,
    ),
    Engine(
        "ale-vec",
        "ale-py AtariVectorEnv, C++ thread pool (Atari tasks)",
        "ale_py",
        "ale-py not installed: pip install 'envhive[atari]'",
        _build_ale_vector,
        batched=True,
        threaded=True,
    ),
)
