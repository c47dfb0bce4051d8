"""ProcessVectorEnv: any Gymnasium env, in worker processes, as an ``envhive.HiveVectorEnv``.

``ProcessVectorEnv(env, ...)`` builds the process backend (``envhive.process.ProcessBackend``) and
returns the one Gymnasium facade over it: sync ``step``; async ``send`` / ``recv`` (the first
``batch_size`` envs to finish, with ``info["env_id"]``); NEXT_STEP, SAME_STEP and DISABLED autoreset
with ``final_obs`` / ``final_info`` as Gymnasium 1.4 defines them; ``reset(seed=, options=)`` with
``options["reset_mask"]``; ``recv(timeout=)``; ``async_reset``; ``render()`` per env; ``close()``.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

from envhive import catalog, families
from envhive.catalog import TaskInfo
from envhive.process.backend import ProcessBackend
from envhive.process.factory import CallableFactory, GymnasiumFactory
from envhive.process.pool import ProcessPool
from envhive.registry import DEFAULT_SEED, TaskSpec, resolve_pool
from envhive.vector import HiveVectorEnv

FAMILY = "process"  # the TaskInfo family of a task run by the process backend
# The process backend's own kwargs (beside the pool kwargs it shares with the native pool:
# num_envs, batch_size, seed, max_episode_steps, autoreset_mode), with their docs.
PROCESS_KWARGS: dict[str, str] = {
    "num_workers": "worker processes, each stepping a contiguous block of envs; default min(cores, num_envs)",
    "render_mode": "passed to each env (gymnasium.make or the factory); render() returns one frame per env",
    "start_method": "'fork', 'forkserver' or 'spawn' (default: multiprocessing's; forkserver from Python 3.14)",
    "restart_workers": "replace a worker that died (its envs start new episodes); default False",
    "spin_us": "the longest a waiter spins (yielding) before it blocks, while nothing else runs; default 200",
    "info_bytes": "per-env room for an info record in shared memory (bigger infos are pickled); default 256",
    "pin_workers": "pin worker i to one core (from thread_affinity_offset, else core 0); default None: pin "
    "when thread_affinity_offset >= 0 or when the workers cover every core this process may use",
}
START_METHODS = ("fork", "forkserver", "spawn")
NATIVE_ONLY = ("num_threads",)


def own_time_limit(task_id: str) -> str | None:
    """The constructor kwarg of ``task_id``'s reference that is its own episode limit, where envhive
    runs the task with that limit natively (minigrid's ``max_steps``; ``Family.time_limit_kwarg``)."""
    info = catalog.find(task_id)
    if info is None or not info.task_time_limit:
        return None
    family = families.by_task_family().get(info.family)
    return None if family is None else family.time_limit_kwarg


def env_factory(
    env: str | Callable[..., Any], kwargs: dict[str, Any], max_episode_steps: int | None, render_mode: str | None
) -> GymnasiumFactory | CallableFactory:
    """What each worker calls to build one env."""
    if isinstance(env, str):
        # Resolve the id here: workers get the EnvSpec itself, so an env registered by a module
        # imported in this process needs no registration in a spawned worker.
        module, sep, name = env.partition(":")
        if sep:
            importlib.import_module(module)
        spec = gymnasium.spec(name if sep else env)
        make_kwargs = dict(kwargs)
        if max_episode_steps is not None:
            make_kwargs[own_time_limit(spec.id) or "max_episode_steps"] = max_episode_steps
        if render_mode is not None:
            make_kwargs["render_mode"] = render_mode
        return GymnasiumFactory(spec, make_kwargs)
    if callable(env):
        call_kwargs = dict(kwargs)
        if render_mode is not None:
            call_kwargs["render_mode"] = render_mode
        return CallableFactory(env, call_kwargs, max_episode_steps)
    raise TypeError(f"expected a Gymnasium env id or an env factory callable, got {env!r}")


def ProcessVectorEnv(  # noqa: N802 - a constructor by name: it builds the env, as a class would
    env: str | Callable[..., Any],
    *,
    num_envs: int = 1,
    batch_size: int | None = None,
    num_workers: int | None = None,
    thread_affinity_offset: int | None = -1,
    seed: Any = DEFAULT_SEED,
    max_episode_steps: int | None = None,
    autoreset_mode: Any = AutoresetMode.NEXT_STEP,
    render_mode: str | None = None,
    start_method: str | None = None,
    restart_workers: bool = False,
    spin_us: float = 200.0,
    info_bytes: int = 256,
    pin_workers: bool | None = None,
    text_observations: str = "bytes",
    **env_kwargs: Any,
) -> HiveVectorEnv:
    """``num_envs`` Gymnasium envs stepped by ``num_workers`` processes over shared memory.

    ``env``: a Gymnasium id (``"LunarLander-v3"``, ``"module:Id"``) or a callable returning a
    ``gymnasium.Env`` (called with the remaining kwargs). Pool kwargs as the native pool's
    (``num_envs``, ``batch_size`` -- below num_envs: async mode --, ``seed``,
    ``max_episode_steps``, ``autoreset_mode``; see ``envhive.registry.POOL_KWARGS``) and the
    backend's own (``PROCESS_KWARGS``: ``num_workers``, ``render_mode``, ``start_method``,
    ``restart_workers``, ``spin_us``, ``info_bytes``, ``pin_workers``). Any other kwarg goes to
    ``gymnasium.make`` (or the factory).
    """
    native_only = sorted(set(NATIVE_ONLY) & set(env_kwargs))
    if native_only:
        raise TypeError(
            f"{native_only[0]!r} is a native-pool kwarg; the process backend runs num_workers worker processes"
        )
    pool_config = resolve_pool(
        {
            "num_envs": num_envs,
            "batch_size": batch_size,
            "num_threads": num_workers,
            "thread_affinity_offset": thread_affinity_offset,
            "seed": seed,
            "autoreset_mode": autoreset_mode,
            "text_observations": text_observations,
        },
        threads_kwarg="num_workers",
    )
    if max_episode_steps is not None:
        if not isinstance(max_episode_steps, int | np.integer) or isinstance(max_episode_steps, bool):
            raise TypeError(f"max_episode_steps must be an int, got {max_episode_steps!r}")
        if max_episode_steps < 0:
            raise ValueError(f"max_episode_steps must be >= 0 (0: no limit), got {max_episode_steps}")
        max_episode_steps = int(max_episode_steps) or None
    if start_method is not None and start_method not in START_METHODS:
        raise ValueError(f"unknown start_method {start_method!r}; valid: {', '.join(START_METHODS)}")
    if not isinstance(restart_workers, bool):
        raise TypeError(f"restart_workers must be a bool, got {restart_workers!r}")
    if not isinstance(spin_us, int | float) or isinstance(spin_us, bool) or not 0 <= spin_us < 1e6:
        raise ValueError(f"spin_us must be a number of microseconds in [0, 1e6), got {spin_us!r}")
    _check_info_bytes(info_bytes, pool_config.num_envs)
    if pin_workers is not None and not isinstance(pin_workers, bool):
        raise TypeError(f"pin_workers must be a bool or None, got {pin_workers!r}")
    affinity_offset = pool_config.thread_affinity_offset
    if pin_workers is False and affinity_offset >= 0:
        raise ValueError(f"pin_workers=False contradicts thread_affinity_offset={affinity_offset} (which pins)")
    if pin_workers or (pin_workers is None and pool_config.num_threads >= len(os.sched_getaffinity(0))):
        # Workers that cover every core: one (or as many as there are) per core. Left to the
        # scheduler, two of them often share a core while the parent spins alone on another.
        affinity_offset = max(affinity_offset, 0)
    env_name = env if isinstance(env, str) else getattr(env, "__qualname__", repr(env))
    factory = env_factory(env, env_kwargs, max_episode_steps, render_mode)
    if max_episode_steps is None and isinstance(factory, GymnasiumFactory):
        max_episode_steps = factory.spec.max_episode_steps
    pool = ProcessPool(
        factory,
        pool_config.num_envs,
        pool_config.num_threads,
        pool_config.autoreset_mode,
        start_method=start_method,
        spin_us=float(spin_us),
        info_bytes=info_bytes,
        seeds=pool_config.seeds,
        restart_workers=restart_workers,
        affinity_offset=affinity_offset,
    )
    spec = TaskSpec(
        task=TaskInfo(
            id=env_name,
            module=__name__,
            family=FAMILY,
            doc=f"{env_name} in worker processes (the process backend)",
            max_episode_steps=max_episode_steps or 0,
            hidden=False,
            config=(),
            reset_options=(),
            default_spaces=None,
        ),
        config={"max_episode_steps": max_episode_steps or 0, **env_kwargs},
        observation_space=pool.observation_space,
        action_space=pool.action_space,
        info_fields={},
        pool=dataclasses.replace(pool_config, render_mode=pool.render_mode),
    )
    return HiveVectorEnv(ProcessBackend(spec, pool, env_name, restart_workers))


def _check_info_bytes(info_bytes: Any, num_envs: int) -> None:
    """``info_bytes``: an int >= 0 whose shared-memory rows (two per env: SAME_STEP's final info
    too) fit in half of this machine's memory."""
    if not isinstance(info_bytes, int) or isinstance(info_bytes, bool) or info_bytes < 0:
        raise ValueError(f"info_bytes must be an int >= 0, got {info_bytes!r}")
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    need = 2 * num_envs * info_bytes
    if need > physical // 2:
        raise ValueError(
            f"info_bytes={info_bytes} needs {need / 1e9:.3g} GB of shared memory for {num_envs} envs, more than half "
            f"of this machine's {physical / 1e9:.3g} GB; infos larger than info_bytes travel pickled anyway"
        )
