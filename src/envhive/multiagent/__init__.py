"""Multi-agent envs under PettingZoo's parallel API: three views of one pool (docs/multi-agent.md).

- :func:`make`: :class:`MultiAgentVectorEnv`, the parallel API batched over ``num_envs`` envs
  (dicts keyed by agent, arrays over the envs; three autoreset modes; async ``send`` / ``recv``);
- :func:`parallel_env`: :class:`HiveParallelEnv`, one env as a ``pettingzoo.ParallelEnv``;
- :func:`vector_env`: :class:`AgentVectorEnv`, every agent of every env as one row of a
  ``gymnasium.vector.VectorEnv`` (SuperSuit's order), for parameter-shared trainers.

``task`` is an envhive multi-agent task id (run natively, on the thread pool), or any PettingZoo env
(run by the process backend: one env per worker slot, over shared memory): a callable returning a
ParallelEnv or an AECEnv (``mpe2.simple_spread_v3.parallel_env``, ``pettingzoo.classic.rps_v2.env``;
an AEC env is converted with ``aec_to_parallel``), or the name of a module that has one
(``"mpe2.simple_spread_v3"``: its ``parallel_env``, else its ``env``). ``seed=s``: env i is seeded
``s + i``. kwargs: the pool's (``num_envs``, ``batch_size``, ``seed``, ``autoreset_mode``,
``max_episode_steps``; ``num_threads`` natively, ``num_workers``, ``start_method``, ... in processes),
and the task's (or the PettingZoo env's constructor's).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from envhive import catalog
from envhive.errors import MissingExtraError

try:
    import pettingzoo  # noqa: F401 - the multiagent extra: checked here, used by the views
except ImportError as missing:  # pragma: no cover - the extra is installed wherever this is tested
    raise MissingExtraError(
        f'envhive.multiagent needs PettingZoo: pip install "envhive[multiagent]" ({missing})'
    ) from None

from envhive.multiagent.batched import MultiAgentVectorEnv
from envhive.multiagent.flat import AgentVectorEnv
from envhive.multiagent.parallel import HiveParallelEnv
from envhive.multiagent.pettingzoo_env import AGENTS_METADATA, ParallelAsGym, PettingZooFactory
from envhive.process import ProcessVectorEnv
from envhive.registry import AgentSpaces
from envhive.vector import HiveVectorEnv

__all__ = [
    "AgentVectorEnv",
    "HiveParallelEnv",
    "MultiAgentVectorEnv",
    "ParallelAsGym",
    "PettingZooFactory",
    "Task",
    "make",
    "parallel_env",
    "vector_env",
]

Task = str | Callable[..., Any]


def make(
    task: Task, num_envs: int = 1, backend: str | None = None, pettingzoo_checks: bool = False, **kwargs: Any
) -> MultiAgentVectorEnv:
    """``num_envs`` envs of ``task`` under the batched parallel API (see the module's doc).
    ``backend``: "native" (envhive task ids) or "process" (PettingZoo envs); default: by task.
    ``pettingzoo_checks``: a PettingZoo env keeps PettingZoo's check wrappers in every env (by default
    only a worker's first env does: ``envhive.multiagent.pettingzoo_env.AecCycle``)."""
    if backend not in (None, "native", "process"):
        raise ValueError(f"unknown backend {backend!r}; valid: 'native', 'process' (default: by task)")
    native = isinstance(task, str) and catalog.find(task) is not None
    if native and backend != "process":
        assert isinstance(task, str)
        info = catalog.get(task)
        pool = HiveVectorEnv(task, num_envs=num_envs, **kwargs)
        if not pool.task_spec.agents:
            pool.close()
            raise ValueError(f"{task} is a single-agent task (its family {info.family!r} declares no agents)")
        return MultiAgentVectorEnv(pool, pool.task_spec.agents, {name for name, _ in info.reset_options})
    if backend == "native":
        raise ValueError(f"backend='native' runs envhive's multi-agent task ids, not {task!r}")
    factory = _factory(task, pettingzoo_checks)
    pool = ProcessVectorEnv(factory, num_envs=num_envs, **kwargs)
    agents: tuple[AgentSpaces, ...] = tuple(pool.backend.pool.metadata[AGENTS_METADATA])  # type: ignore[attr-defined]
    return MultiAgentVectorEnv(pool, agents, None)


def parallel_env(task: Task, **kwargs: Any) -> HiveParallelEnv:
    """One env of ``task`` as a ``pettingzoo.ParallelEnv`` (kwargs as :func:`make`'s, one env, no
    autoreset)."""
    for pool_only in ("num_envs", "batch_size", "autoreset_mode"):
        if pool_only in kwargs:
            raise TypeError(f"parallel_env() is one env without autoreset: {pool_only!r} is not a kwarg of it")
    name = task if isinstance(task, str) else str(_factory(task))
    return HiveParallelEnv(make(task, num_envs=1, autoreset_mode="disabled", **kwargs), name)


def vector_env(
    task: Task, num_envs: int = 1, pad: bool = False, autoreset_mode: Any = "same_step", **kwargs: Any
) -> AgentVectorEnv:
    """Every agent of ``num_envs`` envs of ``task`` as the rows of one Gymnasium VectorEnv (row
    ``env * n_agents + agent``); ``pad=True`` pads agents of different spaces as SuperSuit does."""
    venv = make(task, num_envs=num_envs, autoreset_mode=autoreset_mode, **kwargs)
    try:
        return AgentVectorEnv(venv, pad=pad)
    except Exception:
        venv.close()
        raise


def _factory(task: Task, checks: bool = False) -> PettingZooFactory:
    """What a process worker builds for ``task``: a PettingZoo env factory, or a module's."""
    if isinstance(task, str):
        try:
            module = importlib.import_module(task)
        except ImportError as error:
            raise ValueError(
                f"{task!r} is neither an envhive multi-agent task id nor an importable PettingZoo env module ({error})"
            ) from error
        make_env = getattr(module, "parallel_env", None) or getattr(module, "env", None)
        if not callable(make_env):
            raise ValueError(f"module {task!r} has no parallel_env() or env() to make a PettingZoo env with")
        return PettingZooFactory(make_env, task, checks=checks)
    if not callable(task):
        raise TypeError(f"task must be a task id, a PettingZoo module name or an env factory, got {task!r}")
    return PettingZooFactory(task, checks=checks)
