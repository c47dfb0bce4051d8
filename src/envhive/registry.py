"""Task ids -> native tasks; kwarg validation; Gymnasium registration (``envhive/<task>``)."""

from __future__ import annotations

import difflib
import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

from envhive import backends
from envhive.errors import UnknownTaskError
from envhive.spaces import to_gym_space

GYM_NAMESPACE = "envhive"
AUTORESET_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}
NATIVE_AUTORESET = {mode: name for name, mode in AUTORESET_MODES.items()}

# Keyword arguments every task accepts (the pool's), with their defaults.
POOL_KWARGS: dict[str, str] = {
    "num_envs": "number of environments (>= 1); default 1",
    "batch_size": "envs returned per recv(); num_envs (default) is sync mode, fewer is async mode",
    "num_threads": "threads stepping envs at once, the caller's included (it steps envs while it waits; "
    "in async mode only quick ones, and a standby worker steps while it is away); "
    "at most num_envs, default min(cores, num_envs)",
    "thread_affinity_offset": "pin worker i to core offset + i; -1 (default) does not pin",
    "seed": "int (env i gets seed + i; default 42), a sequence of num_envs ints, or None (OS entropy)",
    "max_episode_steps": "time limit per episode (truncation); default: the task's",
    "autoreset_mode": "'next_step' (default), 'same_step' or 'disabled' (or a gymnasium AutoresetMode)",
}
DEFAULT_SEED = 42


@dataclass(frozen=True)
class TaskSpec:
    """Everything known about a task and a resolved configuration, without building envs."""

    id: str
    family: str
    doc: str
    config: dict[str, Any]
    """Resolved task kwargs (the task's own, including ``max_episode_steps``)."""
    defaults: dict[str, Any]
    config_docs: dict[str, str]
    observation_space: gymnasium.Space[Any]
    """Single-env observation space."""
    action_space: gymnasium.Space[Any]
    """Single-env action space."""
    info_fields: dict[str, tuple[np.dtype[Any], tuple[int, ...]]]
    reset_options: dict[str, str] = field(default_factory=dict)
    """Per-env options ``reset(options=...)`` accepts (name -> doc), e.g. domain randomisation."""
    num_envs: int = 1
    batch_size: int = 1
    num_threads: int = 1
    thread_affinity_offset: int = -1
    seeds: list[int] | None = field(default=None)
    autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP

    @property
    def max_episode_steps(self) -> int:
        return int(self.config["max_episode_steps"])

    @property
    def is_async(self) -> bool:
        return self.batch_size < self.num_envs


def list_envs() -> list[str]:
    """All registered task ids."""
    return backends.task_ids()


@functools.cache
def _task_info(task_id: str) -> dict[str, Any]:
    if task_id.startswith(GYM_NAMESPACE + "/"):
        task_id = task_id[len(GYM_NAMESPACE) + 1 :]
    from envhive.authoring import resolve_task

    task_id = resolve_task(task_id) or task_id  # a Python-written env: compiled on first use
    ids = backends.task_ids()
    if task_id not in ids and backends.rescan():  # a task no manifest lists (e.g. an extra ROM)
        ids = backends.task_ids()
    if task_id not in ids:
        close = difflib.get_close_matches(task_id, ids, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise UnknownTaskError(f"unknown task id {task_id!r}{hint} (envhive.list_envs() lists all)")
    return dict(backends.task_module(task_id).task_info(task_id))


def _check_value(task_id: str, name: str, value: Any, default: Any) -> Any:
    """Coerce a task kwarg to its declared type or raise a TypeError that names it."""
    want = type(default)
    if want is bool:
        if isinstance(value, bool | np.bool_):
            return bool(value)
    elif want is int:
        if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
            return int(value)
    elif want is float:
        if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | np.bool_):
            return float(value)
    elif want is str:
        if isinstance(value, str):
            return value
    elif want is list and isinstance(value, Sequence | np.ndarray) and not isinstance(value, str):
        try:
            return [float(v) for v in value]
        except (TypeError, ValueError):
            pass
    raise TypeError(f"{task_id}: kwarg {name!r} must be of type {want.__name__} (default {default!r}), got {value!r}")


def _int_kwarg(name: str, value: Any, minimum: int) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def resolve_seeds(seed: Any, num_envs: int) -> list[int] | None:
    """int -> [seed + i]; sequence -> one per env; None -> None (fresh entropy)."""
    if seed is None:
        return None
    if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
        seeds = [int(seed) + i for i in range(num_envs)]
    elif isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str):
        seeds = list(seed)
        if len(seeds) != num_envs:
            raise ValueError(f"seed sequence must have num_envs={num_envs} entries, got {len(seeds)}")
        for s in seeds:
            if not isinstance(s, int | np.integer) or isinstance(s, bool):
                raise TypeError(f"seeds must be ints, got {s!r}")
        seeds = [int(s) for s in seeds]
    else:
        raise TypeError(f"seed must be an int, a sequence of num_envs ints or None, got {seed!r}")
    for s in seeds:
        if not 0 <= s < 2**64:
            raise ValueError(f"seeds must be in [0, 2**64), got {s}")
    return seeds


def make_spec(task_id: str, **kwargs: Any) -> TaskSpec:
    """Validate kwargs and resolve a task's config and spaces without building any env."""
    info = _task_info(task_id)
    canonical = info["id"]
    defaults = {name: default for name, default, _ in info["config"]}
    docs = {name: doc for name, _, doc in info["config"]}
    unknown = [k for k in kwargs if k not in defaults and k not in POOL_KWARGS]
    if unknown:
        valid = sorted(set(defaults) | set(POOL_KWARGS))
        close = difflib.get_close_matches(unknown[0], valid, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TypeError(f"{canonical}: unknown kwarg {unknown[0]!r}{hint}; valid kwargs are: {', '.join(valid)}")

    num_envs = _int_kwarg("num_envs", kwargs.get("num_envs", 1), 1)
    batch_size = kwargs.get("batch_size")
    batch_size = num_envs if batch_size in (None, 0) else _int_kwarg("batch_size", batch_size, 1)
    if batch_size > num_envs:
        raise ValueError(f"batch_size ({batch_size}) must be <= num_envs ({num_envs})")
    num_threads = kwargs.get("num_threads")
    if num_threads in (None, 0):
        num_threads = max(1, min(os.cpu_count() or 1, num_envs))
    else:
        # More threads than envs could only idle (or move the envs between cores): cap it.
        num_threads = min(_int_kwarg("num_threads", num_threads, 1), num_envs)
    offset = kwargs.get("thread_affinity_offset", -1)
    offset = -1 if offset is None else _int_kwarg("thread_affinity_offset", offset, -1)
    mode = kwargs.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    if isinstance(mode, str) and mode.lower() in AUTORESET_MODES:
        mode = AUTORESET_MODES[mode.lower()]
    elif isinstance(mode, str) and mode in {m.value for m in AutoresetMode}:
        mode = AutoresetMode(mode)
    if not isinstance(mode, AutoresetMode):
        raise ValueError(f"unknown autoreset_mode {mode!r}; valid: {', '.join(AUTORESET_MODES)}")
    seeds = resolve_seeds(kwargs.get("seed", DEFAULT_SEED), num_envs)

    config = dict(defaults)
    for name, value in kwargs.items():
        if name in defaults and not (name == "max_episode_steps" and value is None):
            config[name] = _check_value(canonical, name, value, defaults[name])
    if config["max_episode_steps"] < 0:
        raise ValueError(f"max_episode_steps must be >= 0 (0: no limit), got {config['max_episode_steps']}")

    decl = backends.task_module(canonical).task_spaces(canonical, config)
    infos = {i["name"]: (np.dtype(i["dtype"]), tuple(i["shape"])) for i in decl["infos"]}
    return TaskSpec(
        id=canonical,
        family=info["family"],
        doc=info["doc"],
        config=config,
        defaults=defaults,
        config_docs=docs,
        observation_space=to_gym_space(decl["observation"]),
        action_space=to_gym_space(decl["action"]),
        info_fields=infos,
        reset_options={name: doc for name, doc in info.get("reset_options", [])},
        num_envs=num_envs,
        batch_size=batch_size,
        num_threads=num_threads,
        thread_affinity_offset=offset,
        seeds=seeds,
        autoreset_mode=mode,
    )


def _make_vec_entry(task_id: str, **kwargs: Any) -> Any:
    from envhive.vector import HiveVectorEnv

    if kwargs.pop("render_mode", None) is not None:
        raise ValueError(f"{task_id}: envhive does not render yet; pass render_mode=None")
    return HiveVectorEnv(task_id, **kwargs)


def register_gymnasium_envs(ids: Mapping[str, Any] | None = None) -> None:
    """Register every task as ``envhive/<id>`` so ``gymnasium.make_vec`` builds envhive's pool."""
    for task_id in ids or list_envs():
        full = f"{GYM_NAMESPACE}/{task_id}"
        if full in gymnasium.registry:
            continue
        steps = backends.default_max_episode_steps(task_id) or None
        gymnasium.register(
            id=full,
            vector_entry_point=functools.partial(_make_vec_entry, task_id),
            max_episode_steps=steps,
        )
