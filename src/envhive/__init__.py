"""envhive: thousands of RL environments in parallel on a native C++ thread pool.

    import envhive
    env = envhive.make("CartPole-v1", num_envs=64)       # a gymnasium.vector.VectorEnv
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

    env = envhive.make("LunarLander-v3", num_envs=16)    # any other Gymnasium env: worker processes

The package, bottom up (each module imports only from the layers below it; tests/test_layers.py
checks): errors, spaces -> catalog -> authoring -> registry -> process -> vector, dm, single,
episodes, envpool -> cli, bench. ``import envhive.envpool as envpool`` is EnvPool's API
(docs/envpool-migration.md); ``gymnasium.make("envhive/<id>")`` gives one env (envhive.single.HiveEnv).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gymnasium.vector import AutoresetMode

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
from envhive.process import ProcessVectorEnv, WorkerDiedError
from envhive.registry import (
    GYM_NAMESPACE,
    EnvhivePool,
    PoolConfig,
    TaskSpec,
    backend_for,
    list_envs,
    make_spec,
    register_gymnasium_envs,
)
from envhive.sdk import cmake_dir
from envhive.vector import HiveVectorEnv

Task = str | type[PyEnv] | Callable[..., Any]
"""An envhive task id, a PyEnv class, any Gymnasium id (``"module:id"`` too) or an env factory."""


def _task_id(task: Task) -> str:
    """A task id, or a PyEnv class (compiled and registered on first use, see envhive.authoring)."""
    if isinstance(task, str):
        return task
    if isinstance(task, type) and issubclass(task, PyEnv):
        return compile_env(task)
    raise TypeError(f"the native pool runs envhive task ids and PyEnv classes, not {task!r}")


def _process_env(task: Task, kwargs: dict[str, Any]) -> str | Callable[..., Any]:
    """What the process backend builds: a Gymnasium id, a factory, or a PyEnv's plain-Python twin
    (with the PyEnv's time limit unless one is given)."""
    if isinstance(task, type) and issubclass(task, PyEnv):
        if kwargs.get("max_episode_steps") is None:
            kwargs["max_episode_steps"] = int(getattr(task, "max_episode_steps", 0) or 0)
        return task.gymnasium_env
    if isinstance(task, str) and task.startswith(GYM_NAMESPACE + "/"):
        return task[len(GYM_NAMESPACE) + 1 :]  # envhive/CartPole-v1 -> Gymnasium's own CartPole-v1
    return task


def make(task_id: Task, backend: str | None = None, **kwargs: Any) -> HiveVectorEnv | ProcessVectorEnv:
    """Build ``num_envs`` envs as one Gymnasium vector env.

    ``task_id``: an envhive task id or PyEnv class (the native thread pool), or any other
    Gymnasium id, ``"module:id"`` or env factory callable (the process backend: worker processes
    over shared memory, see docs/process-backend.md). ``backend="process"`` runs even a native
    task's Gymnasium env in processes (``make("CartPole-v1", backend="process")``: Gymnasium's
    Python CartPole); ``backend="native"`` never falls back. ``envhive.registry.backend_for``
    says which one a task gets.
    """
    if backend_for(task_id, backend) == "process":
        return ProcessVectorEnv(_process_env(task_id, kwargs), **kwargs)
    try:
        return HiveVectorEnv(_task_id(task_id), **kwargs)
    except UnknownTaskError as error:
        if backend is not None:
            raise
        raise UnknownTaskError(f"{error}; no Gymnasium env is registered under that id either") from None


def make_gymnasium(task_id: Task, backend: str | None = None, **kwargs: Any) -> HiveVectorEnv | ProcessVectorEnv:
    """EnvPool's name for :func:`make`."""
    return make(task_id, backend, **kwargs)


def make_dm(task_id: Task | EnvhivePool, backend: str | None = None, **kwargs: Any) -> Any:
    """Build a pool as a ``dm_env.Environment`` (batched TimeSteps; backends as in :func:`make`),
    or wrap a pool built already (any ``EnvhivePool`` in NEXT_STEP mode: native, process backend,
    ``envhive.ray.RayVectorEnv``); needs the ``dm`` extra."""
    try:
        from envhive.dm import HiveDmEnv  # dm-env is the optional [dm] extra: imported on first use
    except ImportError as e:
        raise MissingExtraError(f'the dm_env facade needs dm-env: pip install "envhive[dm]" ({e})') from e
    if isinstance(task_id, EnvhivePool):
        if backend is not None:
            raise ValueError(f"backend={backend!r} is for building a pool; {task_id!r} is built already")
        return HiveDmEnv(task_id, **kwargs)
    if backend_for(task_id, backend) == "process":
        if kwargs.pop("autoreset_mode", None) not in (None, "next_step", AutoresetMode.NEXT_STEP):
            raise ValueError("the dm_env facade follows dm_env's own autoreset (NEXT_STEP); omit autoreset_mode")
        return HiveDmEnv(ProcessVectorEnv(_process_env(task_id, kwargs), **kwargs))
    return HiveDmEnv(_task_id(task_id), **kwargs)


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
