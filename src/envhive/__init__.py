"""envhive: thousands of RL environments in parallel on a native C++ thread pool.

    import envhive
    env = envhive.make("CartPole-v1", num_envs=64)       # a gymnasium.vector.VectorEnv
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
"""

from __future__ import annotations

from typing import Any

from envhive.authoring import PyEnv, compile_env
from envhive.errors import EnvError, UnknownTaskError
from envhive.registry import TaskSpec, list_envs, make_spec, register_gymnasium_envs
from envhive.vector import HiveVectorEnv

__version__ = "0.1.0"


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
    """Build a pool as a ``dm_env.Environment`` (batched TimeSteps)."""
    from envhive.dm import HiveDmEnv

    return HiveDmEnv(_task_id(task_id), **kwargs)


register_gymnasium_envs()

__all__ = [
    "EnvError",
    "HiveVectorEnv",
    "PyEnv",
    "TaskSpec",
    "UnknownTaskError",
    "__version__",
    "list_envs",
    "make",
    "make_dm",
    "make_gymnasium",
    "make_spec",
]
