"""The one way a pool is made from a task and kwargs: which backend runs it (``backend_for``), and
that backend's HiveVectorEnv. ``envhive.make``, ``envhive.make_dm``, the trainer adapters and Ray's
shards all make their pools here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envhive.authoring import PyEnv, compile_env
from envhive.errors import UnknownTaskError
from envhive.process import ProcessVectorEnv
from envhive.registry import GYM_NAMESPACE, backend_for
from envhive.vector import HiveVectorEnv

Task = str | type[PyEnv] | Callable[..., Any]
"""An envhive task id, a PyEnv class, any Gymnasium id (``"module:id"`` too) or an env factory."""


def make_pool(task: Task, backend: str | None = None, **kwargs: Any) -> HiveVectorEnv:
    """``num_envs`` envs of ``task`` as one HiveVectorEnv, on the backend ``backend_for`` picks
    (``backend``: "native" or "process" to choose; see :func:`envhive.registry.backend_for`)."""
    if backend_for(task, backend) == "process":
        return ProcessVectorEnv(_process_env(task, kwargs), **kwargs)
    try:
        return HiveVectorEnv(_task_id(task), **kwargs)
    except UnknownTaskError as error:
        if backend is not None:
            raise
        raise UnknownTaskError(f"{error}; no Gymnasium env is registered under that id either") from None


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
