"""From a task id and kwargs to a resolved specification: which task (catalog), its config values,
its spaces, and the pool's options -- validated before any env is built -- and the registration of
every task with Gymnasium (``envhive/<id>``)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

from envhive import authoring, catalog
from envhive.catalog import TaskInfo
from envhive.checks import autoreset_mode, env_seeds
from envhive.errors import UnknownTaskError
from envhive.spaces import AgentLike, InfoLike, RenderDecl, SpaceLike, info_fields, to_gym_space

GYM_NAMESPACE = "envhive"
# The most envs one pool holds (csrc/core/pool.h kMaxNumEnvs; a test checks they agree).
MAX_NUM_ENVS = 1 << 20

# Keyword arguments every task accepts (the pool's), with their docs.
POOL_KWARGS: dict[str, str] = {
    "num_envs": f"number of environments (1 to {MAX_NUM_ENVS}); default 1",
    "batch_size": "envs returned per recv(); num_envs (default) is sync mode, fewer is async mode",
    "num_threads": "threads stepping envs at once, the caller's included (it steps envs while it waits; "
    "in async mode only quick ones, and a standby worker steps while it is away); "
    "at most num_envs, default min(cores, num_envs)",
    "thread_affinity_offset": "pin worker i to core offset + i; -1 (default) does not pin",
    "seed": "int (env i gets seed + i; default 42), a sequence of num_envs ints, or None (OS entropy)",
    "max_episode_steps": "time limit per episode (truncation); default: the task's",
    "autoreset_mode": "'next_step' (default), 'same_step' or 'disabled' (or a gymnasium AutoresetMode)",
    "render_mode": "None (default) or 'rgb_array': render() returns every env's frame, drawn on the pool's threads",
    "text_observations": "'bytes' (default): a Text observation leaf is a numpy S<max_length> array (no copy); "
    "'str': a tuple of str per batch, as Gymnasium batches Text",
}
TEXT_OBSERVATIONS = ("bytes", "str")
RENDER_MODES = ("rgb_array",)
DEFAULT_SEED = 42
BACKENDS = ("native", "process")


@dataclass(frozen=True)
class PoolConfig:
    """How a pool runs: its size, threads, seeds and autoreset mode (the time limit is a task kwarg)."""

    num_envs: int = 1
    batch_size: int = 1
    num_threads: int = 1
    thread_affinity_offset: int = -1
    seeds: dict[int, int] = field(
        default_factory=dict
    )  # env id -> seed (envhive.checks.env_seeds); unseeded: OS entropy
    autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP
    render_mode: str | None = None  # "rgb_array": render() draws frames
    text_observations: str = "bytes"  # "str": Text leaves decoded to str by the facade

    @property
    def is_async(self) -> bool:
        return self.batch_size < self.num_envs


class AgentSpaces(NamedTuple):
    """One agent of a multi-agent task: its name (PettingZoo's agent id) and single-env spaces."""

    name: str
    observation_space: gymnasium.Space[Any]
    action_space: gymnasium.Space[Any]


@dataclass(frozen=True)
class TaskSpec:
    """A task with a resolved configuration, without any env built: what the task is (``task``),
    its kwarg values (``config``, ``max_episode_steps`` included), the spaces they give, and the
    pool's options (``pool``)."""

    task: TaskInfo
    config: dict[str, Any]
    observation_space: gymnasium.Space[Any]
    """Single-env observation space."""
    action_space: gymnasium.Space[Any]
    """Single-env action space."""
    info_fields: dict[str, tuple[np.dtype[Any], tuple[int, ...]]]
    pool: PoolConfig
    render: RenderDecl | None = None
    """The frames its renderer draws for this config (None: the task has no renderer)."""
    agents: tuple[AgentSpaces, ...] = ()
    """A multi-agent task's agents, in order (empty for a single-agent task): the observation is a
    Dict of theirs, the action their action row (``csrc/core/multi_agent.h``)."""

    @property
    def id(self) -> str:
        return self.task.id

    @property
    def family(self) -> str:
        return self.task.family

    @property
    def max_episode_steps(self) -> int:
        return int(self.config["max_episode_steps"])


def list_envs() -> list[str]:
    """Every task id (engine test tasks excluded)."""
    return catalog.task_ids()


def task_info(task_id: str) -> TaskInfo:
    """What ``task_id`` is: its family, doc, kwargs and default spaces, without loading any module
    (except to compile a Python-written env, or to look for a task no manifest lists)."""
    if task_id.startswith(GYM_NAMESPACE + "/"):
        task_id = task_id[len(GYM_NAMESPACE) + 1 :]
    task_id = authoring.resolve_task(task_id) or task_id  # a Python-written env: compiled on first use
    info = catalog.find(task_id)
    if info is None and (problem := catalog.problem(task_id)) is not None:
        raise problem  # two modules define it, or its plug-in was built for another envhive
    if info is None and catalog.rescan():  # a task no manifest lists (e.g. an extra ROM)
        info = catalog.find(task_id)
    if info is None:
        ids = catalog.task_ids()
        close = difflib.get_close_matches(task_id, ids, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        unusable = catalog.problems()
        plugins = f"; plug-ins that cannot be used: {' | '.join(unusable)}" if unusable else ""
        raise UnknownTaskError(f"unknown task id {task_id!r}{hint} (envhive.list_envs() lists all){plugins}")
    return info


def backend_for(task: Any, backend: str | None = None) -> str:
    """Which backend runs ``task``: ``"native"`` (envhive's thread pool) or ``"process"`` (worker
    processes over shared memory, envhive.process). The one place ``envhive.make`` and
    ``envhive.make_dm`` decide it:

    * ``backend`` given: that one (``"process"`` runs even a native task's Gymnasium env, or a
      PyEnv interpreted by Python, in processes; ``"native"`` never falls back);
    * a PyEnv class, an envhive task id (also one a refused or conflicting plug-in defines: making
      it raises why), ``envhive/<id>``, or ``"module:id"`` naming a PyEnv: native;
    * any other id Gymnasium knows (``"module:id"`` imports the module first), and env factories
      (callables returning a ``gymnasium.Env``): process;
    * anything else: native, which raises UnknownTaskError naming close matches.
    """
    if backend not in (None, *BACKENDS):
        raise ValueError(f"unknown backend {backend!r}; valid: {', '.join(map(repr, BACKENDS))} (default: by task)")
    if isinstance(task, type) and issubclass(task, authoring.PyEnv):
        return backend or "native"
    if not isinstance(task, str):
        if not callable(task):
            raise TypeError(f"task must be a task id, a PyEnv class or an env factory callable, got {task!r}")
        if backend == "native":
            raise ValueError("backend='native' runs envhive task ids and PyEnv classes, not env factories")
        return "process"
    if backend is not None:
        return backend
    if task.startswith(GYM_NAMESPACE + "/"):
        return "native"
    _, sep, name = task.partition(":")
    target = name if sep else task
    if catalog.find(target) is not None or authoring.resolve_task(task) is not None:
        return "native"
    if catalog.problem(target) is not None:
        return "native"  # an envhive task that cannot run here (refused plug-in, id conflict): it says why
    return "process" if target in gymnasium.registry else "native"


def _check_value(task_id: str, name: str, value: Any, default: Any) -> Any:
    """Coerce a task kwarg to its declared type or raise a TypeError that names it.

    A str kwarg also takes lines, a sequence of str joined with newlines (FrozenLake's ``desc``, a
    list of rows in Gymnasium), and, when its default is empty, None for that default (Gymnasium's
    ``desc=None``)."""
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
        if value is None and default == "":
            return ""
        if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
            return "\n".join(value)
    elif want is list and isinstance(value, Sequence | np.ndarray) and not isinstance(value, str):
        try:
            return [float(v) for v in value]
        except (TypeError, ValueError):
            pass
    elif want is dict and isinstance(value, Mapping):
        table = _number_table(value)
        if table is not None:
            return table
        raise TypeError(f"{task_id}: kwarg {name!r} must be a dict of str -> number or list of numbers, got {value!r}")
    raise TypeError(f"{task_id}: kwarg {name!r} must be of type {want.__name__} (default {default!r}), got {value!r}")


def _number_table(value: Mapping[Any, Any]) -> dict[str, float | list[float]] | None:
    """A dict of numbers / sequences of numbers (e.g. default_camera_config) with plain float values,
    or None when it is not one."""
    out: dict[str, float | list[float]] = {}
    for key, v in value.items():
        if not isinstance(key, str):
            return None
        if isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool | np.bool_):
            out[key] = float(v)
        elif isinstance(v, Sequence | np.ndarray) and not isinstance(v, str):
            try:
                out[key] = [float(x) for x in np.asarray(v).ravel()]
            except (TypeError, ValueError):
                return None
        else:
            return None
    return out


def _int_kwarg(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return int(value)


def resolve_pool(kwargs: dict[str, Any], threads_kwarg: str = "num_threads") -> PoolConfig:
    """The pool kwargs (see POOL_KWARGS) as a PoolConfig; sizes are checked before anything is
    allocated. ``threads_kwarg`` names ``num_threads`` in messages (the process backend calls its
    workers ``num_workers``)."""
    num_envs = _int_kwarg("num_envs", kwargs.get("num_envs", 1), 1, MAX_NUM_ENVS)
    batch_size = kwargs.get("batch_size")
    batch_size = num_envs if batch_size in (None, 0) else _int_kwarg("batch_size", batch_size, 1)
    if batch_size > num_envs:
        raise ValueError(f"batch_size ({batch_size}) must be <= num_envs ({num_envs})")
    num_threads = kwargs.get("num_threads")
    if num_threads in (None, 0):
        num_threads = max(1, min(os.cpu_count() or 1, num_envs))
    else:
        # More threads than envs could only idle (or move the envs between cores): cap it.
        num_threads = min(_int_kwarg(threads_kwarg, num_threads, 1), num_envs)
    offset = kwargs.get("thread_affinity_offset", -1)
    offset = -1 if offset is None else _int_kwarg("thread_affinity_offset", offset, -1)
    mode = autoreset_mode(kwargs.get("autoreset_mode", AutoresetMode.NEXT_STEP))
    seeds = env_seeds(kwargs.get("seed", DEFAULT_SEED), num_envs)
    render_mode = kwargs.get("render_mode")
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"unknown render_mode {render_mode!r}; envhive renders {', '.join(RENDER_MODES)} (or None)")
    text = kwargs.get("text_observations", "bytes")
    if text not in TEXT_OBSERVATIONS:
        raise ValueError(f"unknown text_observations {text!r}; valid: {', '.join(map(repr, TEXT_OBSERVATIONS))}")
    return PoolConfig(num_envs, batch_size, num_threads, offset, seeds, mode, render_mode, text)


def make_spec(task_id: str, **kwargs: Any) -> TaskSpec:
    """Validate kwargs and resolve a task's config and spaces without building any env."""
    info = task_info(task_id)
    defaults = info.defaults
    unknown = [k for k in kwargs if k not in defaults and k not in POOL_KWARGS]
    if unknown:
        valid = sorted(set(defaults) | set(POOL_KWARGS))
        close = difflib.get_close_matches(unknown[0], valid, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TypeError(
            f"{info.id}: unknown kwarg {unknown[0]!r} (got an unexpected keyword argument {unknown[0]!r}){hint}; "
            f"valid kwargs are: {', '.join(valid)}"
        )
    pool = resolve_pool({k: v for k, v in kwargs.items() if k in POOL_KWARGS and k != "max_episode_steps"})

    config = dict(defaults)
    for name, value in kwargs.items():
        if name not in defaults:
            continue
        if value is None:
            # Gymnasium's Optional kwargs (camera_id=None, max_episode_steps=None, ...): the default;
            # a dict kwarg given None is empty (default_camera_config=None: no camera settings), and
            # so is a str kwarg: the task says what no value means (FrozenLake's map_name=None: a
            # random map; MuJoCo's xml_file=None: its default model).
            default = defaults[name]
            config[name] = {} if isinstance(default, dict) else "" if isinstance(default, str) else default
        else:
            config[name] = _check_value(info.id, name, value, defaults[name])
    if config["max_episode_steps"] < 0:
        raise ValueError(f"max_episode_steps must be >= 0 (0: no limit), got {config['max_episode_steps']}")

    # The default config's spaces are in the catalog; any other config asks the task itself.
    spaces = info.default_spaces
    if spaces is not None and all(config[k] == defaults[k] for k in defaults if k != "max_episode_steps"):
        obs_decl: SpaceLike = spaces.observation
        act_decl: SpaceLike = spaces.action
        infos: Sequence[InfoLike] = spaces.infos
        render = spaces.render
        agents: Sequence[AgentLike] = spaces.agents
    else:
        decl = catalog.module_for(info.id).task_spaces(info.id, config)
        obs_decl, act_decl, infos, agents = decl.observation, decl.action, decl.infos, decl.agents
        render = RenderDecl.of(decl.render)
    if pool.render_mode is not None and render is None:
        raise ValueError(f"{info.id} has no renderer: render_mode must be None (it renders no {pool.render_mode!r})")
    return TaskSpec(
        task=info,
        config=config,
        observation_space=to_gym_space(obs_decl),
        action_space=to_gym_space(act_decl),
        info_fields=info_fields(infos),
        pool=pool,
        render=render,
        agents=tuple(AgentSpaces(a.name, to_gym_space(a.observation), to_gym_space(a.action)) for a in agents),
    )


def gymnasium_id(task_id: str) -> str:
    """The Gymnasium id of a task: ``envhive/<id>``, or the id itself when it carries a namespace of
    its own (a plug-in's ``mypkg/MyTask-v0``; Gymnasium ids have at most one)."""
    return task_id if "/" in task_id else f"{GYM_NAMESPACE}/{task_id}"


def reward_threshold(task_id: str) -> float | None:
    """The return at which the task counts as solved: Gymnasium's for the same id (e.g. 475 for
    CartPole-v1, 4800 for HalfCheetah-v5), None where Gymnasium registers none."""
    spec = gymnasium.registry.get(task_id)
    return None if spec is None or spec.reward_threshold is None else float(spec.reward_threshold)


def register_gymnasium_envs(ids: Sequence[str] | None = None) -> None:
    """Register every listed task with Gymnasium (:func:`gymnasium_id`): ``gymnasium.make`` builds
    one env (:class:`envhive.single.HiveEnv`, wrapped in the registered ``TimeLimit``),
    ``gymnasium.make_vec`` envhive's pool. The entry points are strings: nothing is imported until
    an env is made. With ``ids`` None, the ids of refused plug-ins and conflicts too, so that making
    one through Gymnasium raises envhive's explanation rather than Gymnasium's "not found"."""
    for task_id in list_envs() if ids is None else ids:
        full = gymnasium_id(task_id)
        if full in gymnasium.registry:
            continue
        info = catalog.get(task_id)
        gymnasium.register(
            id=full,
            entry_point="envhive.single:HiveEnv",
            vector_entry_point="envhive.vector:vector_entry_point",
            # a task that keeps its own limit (minigrid) is registered without one, as its reference is
            max_episode_steps=None if info.task_time_limit else info.max_episode_steps or None,
            reward_threshold=reward_threshold(task_id),
            kwargs={"task_id": task_id},
        )
    if ids is None:  # ids a refused plug-in or a conflict holds: making one raises why (task_info)
        for task_id in catalog.refused_task_ids():
            if gymnasium_id(task_id) not in gymnasium.registry:
                gymnasium.register(
                    id=gymnasium_id(task_id),
                    entry_point="envhive.single:HiveEnv",
                    vector_entry_point="envhive.vector:vector_entry_point",
                    kwargs={"task_id": task_id},
                )
