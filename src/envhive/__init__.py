"""envhive: thousands of RL environments in parallel on a native C++ thread pool.

    import envhive
    env = envhive.make("CartPole-v1", num_envs=64)       # a gymnasium.vector.VectorEnv
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

    env = envhive.make("LunarLander-v3", num_envs=16)    # Gymnasium's Box2D and toy text: native too
    env = envhive.make("highway-v0", num_envs=16)        # any other Gymnasium env: worker processes

The package, bottom up (each module imports only from the layers below it; tests/test_layers.py
checks): errors, spaces -> catalog -> authoring -> registry -> process -> vector, dm, single,
episodes, envpool -> cli, bench. ``import envhive.envpool as envpool`` is EnvPool's API
(docs/envpool-migration.md); ``gymnasium.make("envhive/<id>")`` gives one env (envhive.single.HiveEnv).
"""

from __future__ import annotations

from typing import Any

from envhive._version import __version__
from envhive.authoring import PyEnv
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
from envhive.pools import Task, make_pool
from envhive.process import ProcessVectorEnv, WorkerDiedError
from envhive.registry import (
    PoolConfig,
    TaskSpec,
    backend_for,
    list_envs,
    make_spec,
    register_gymnasium_envs,
)
from envhive.sdk import cmake_dir
from envhive.vector import EnvhivePool, HiveVectorEnv


def make(task_id: Task, backend: str | None = None, **kwargs: Any) -> HiveVectorEnv:
    """Build ``num_envs`` envs as one Gymnasium vector env (a :class:`HiveVectorEnv`).

    ``task_id``: an envhive task id or PyEnv class (the native thread pool), or any other
    Gymnasium id, ``"module:id"`` or env factory callable (the process backend: worker processes
    over shared memory, see docs/process-backend.md). ``backend="process"`` runs even a native
    task's Gymnasium env in processes (``make("CartPole-v1", backend="process")``: Gymnasium's
    Python CartPole); ``backend="native"`` never falls back. ``envhive.registry.backend_for``
    says which one a task gets.
    """
    return make_pool(task_id, backend, **kwargs)


def make_gymnasium(task_id: Task, backend: str | None = None, **kwargs: Any) -> HiveVectorEnv:
    """EnvPool's name for :func:`make`."""
    return make(task_id, backend, **kwargs)


def make_dm(task_id: Task | HiveVectorEnv, backend: str | None = None, **kwargs: Any) -> Any:
    """Build a pool as a ``dm_env.Environment`` (batched TimeSteps; backends as in :func:`make`),
    or wrap a pool built already (any HiveVectorEnv in NEXT_STEP mode: native, process backend,
    ``envhive.ray.RayVectorEnv``); needs the ``dm`` extra."""
    try:
        from envhive.dm import HiveDmEnv  # dm-env is the optional [dm] extra: imported on first use
    except ImportError as e:
        raise MissingExtraError(f'the dm_env facade needs dm-env: pip install "envhive[dm]" ({e})') from e
    if isinstance(task_id, HiveVectorEnv) and backend is not None:
        raise ValueError(f"backend={backend!r} is for building a pool; {task_id!r} is built already")
    return HiveDmEnv(task_id, backend=backend, **kwargs)


register_gymnasium_envs()

__all__ = [
    "EnvError",
    "Episode",
    "EnvhivePool",
    "EpisodeStatistics",
    "Episodes",
    "HiveVectorEnv",
    "IncompatibleModuleError",
    "MissingExtraError",
    "PoolBusyError",
    "PoolClosedError",
    "PoolConfig",
    "ProcessVectorEnv",
    "PyEnv",
    "RecordEpisodeStatistics",
    "RenderError",
    "ResetNeeded",
    "TaskConflictError",
    "TaskSpec",
    "UnknownTaskError",
    "WorkerDiedError",
    "__version__",
    "backend_for",
    "cmake_dir",
    "list_envs",
    "make",
    "make_dm",
    "make_gymnasium",
    "make_spec",
]
