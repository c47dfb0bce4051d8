"""envhive: thousands of RL environments in parallel on a native C++ thread pool.

    import envhive
    env = envhive.make("CartPole-v1", num_envs=64)       # a gymnasium.vector.VectorEnv
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

The package, bottom up (each module imports only from the layers below it; tests/test_layers.py
checks): errors, spaces -> catalog -> authoring -> registry -> vector, dm, single, episodes, envpool
-> cli, bench. ``import envhive.envpool as envpool`` is EnvPool's API (docs/envpool-migration.md);
``gymnasium.make("envhive/<id>")`` gives one env (envhive.single.HiveEnv).
"""

from __future__ import annotations

from typing import Any

from envhive._version import __version__
from envhive.authoring import PyEnv, compile_env
from envhive.episodes import Episode, Episodes, EpisodeStatistics, RecordEpisodeStatistics
from envhive.errors import (
    EnvError,
    IncompatibleModuleError,
    MissingExtraError,
    PoolBusyError,
    PoolClosedError,
    RenderError,
    ResetNeeded,
    TaskConflictError,
    UnknownTaskError,
)
from envhive.registry import PoolConfig, TaskSpec, list_envs, make_spec, register_gymnasium_envs
from envhive.sdk import cmake_dir
from envhive.vector import HiveVectorEnv


def _task_id(task: str | type[PyEnv]) -> str:
    """A task id, or a PyEnv class (compiled and registered on first use, see envhive.authoring)."""
    return task if isinstance(task, str) else compile_env(task)


def make(task_id: str | type[PyEnv], **kwargs: Any) -> HiveVectorEnv:
    """Build a pool of ``num_envs`` envs of ``task_id`` (or a PyEnv class) as a Gymnasium vector env."""
    return HiveVectorEnv(_task_id(task_id), **kwargs)


def make_gymnasium(task_id: str | type[PyEnv], **kwargs: Any) -> HiveVectorEnv:
    """EnvPool's name for :func:`make`."""
    return make(task_id, **kwargs)


def make_dm(task_id: str | type[PyEnv], **kwargs: Any) -> Any:
    """Build a pool as a ``dm_env.Environment`` (batched TimeSteps); needs the ``dm`` extra."""
    try:
        from envhive.dm import HiveDmEnv  # dm-env is the optional [dm] extra: imported on first use
    except ImportError as e:
        raise MissingExtraError(f'the dm_env facade needs dm-env: pip install "envhive[dm]" ({e})') from e
    return HiveDmEnv(_task_id(task_id), **kwargs)


register_gymnasium_envs()

__all__ = [
    "EnvError",
    "Episode",
    "EpisodeStatistics",
    "Episodes",
    "HiveVectorEnv",
    "IncompatibleModuleError",
    "MissingExtraError",
    "PoolBusyError",
    "PoolClosedError",
    "PoolConfig",
    "PyEnv",
    "RecordEpisodeStatistics",
    "RenderError",
    "ResetNeeded",
    "TaskConflictError",
    "TaskSpec",
    "UnknownTaskError",
    "__version__",
    "cmake_dir",
    "list_envs",
    "make",
    "make_dm",
    "make_gymnasium",
    "make_spec",
]
