"""Environments written in Python, compiled to native code, run on envhive's thread pool.

    import envhive
    import numpy as np
    from gymnasium import spaces
    from envhive.authoring import PyEnv

    class Walk(PyEnv):
        id = "my-pkg/Walk-v0"
        observation_space = spaces.Box(-10.0, 10.0, shape=(1,), dtype=np.float32)
        action_space = spaces.Discrete(2)
        state = {"x": float}
        config = {"step_size": 0.5}
        max_episode_steps = 100
        reset_randoms = 1

        @staticmethod
        def reset(s, rand, cfg):
            s.x = rand[0] - 0.5

        @staticmethod
        def step(s, action, rand, cfg):
            s.x += cfg.step_size if action == 1 else -cfg.step_size
            return -abs(s.x), abs(s.x) > 10.0

        @staticmethod
        def observe(s, obs, cfg):
            obs[0] = s.x

    env = envhive.make(Walk, num_envs=64)      # or envhive.make("my-pkg/Walk-v0", ...)

The class is a declaration: it is never instantiated. On the first ``make`` envhive compiles
``reset``/``step``/``observe`` with Numba (nopython, nogil), wraps them in C callables, and
registers a native task whose envs call those function pointers from the pool's worker threads:
no GIL, no Python object per step. Compiled code is cached on disk (``ENVHIVE_CACHE_DIR``,
default ``~/.cache/envhive/pyenv``), keyed by a fingerprint of the functions, the helpers and
constants they use, and the declarations. See docs/python-envs.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib
import inspect
import os
import re
import sys
import tempfile
import threading
import time
import types
import warnings
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import gymnasium
import numpy as np
from gymnasium import spaces

__all__ = [
    "CompileError",
    "FailureReplay",
    "PyEnv",
    "cache_dir",
    "clear_cache",
    "last_failures",
    "replay_failure",
    "uniform",
]

GLUE_VERSION = 1  # bump when the generated glue changes shape
FAMILY = "python"
NATIVE_MODULE = "_native"  # the family module that hosts Python envs
_SUPPORTED_DTYPES = ("bool", "uint8", "int32", "int64", "float32", "float64")
_RESERVED_CONFIG = {
    "num_envs",
    "batch_size",
    "num_threads",
    "thread_affinity_offset",
    "seed",
    "autoreset_mode",
    "max_episode_steps",
    "render_mode",
}
# Field names that would be shadowed by attributes of numpy records (the pure-Python state).
_RECORD_ATTRS = frozenset(dir(np.record))
# Helper functions from these packages are left to Numba (it knows numpy and math itself).
_NO_AUTOJIT = {"numpy", "numba", "math", "cmath", "builtins", "gymnasium", "scipy", "llvmlite", "random"}
# (function, allowed positional parameter counts) of the three callables a PyEnv defines.
_ARITIES = {"reset": (2, 3), "step": (2, 3, 4), "observe": (2, 3)}
_ARITIES_DISCRETE_OBS = (1, 2)


class CompileError(Exception):
    """A PyEnv function could not be compiled to native code (raised by ``make``).

    ``function`` is ``"Class.step"`` and so on; ``filename``/``lineno`` point at the offending
    line of the user's code where Numba reported one (else at the function's ``def``).
    """

    def __init__(self, message: str, function: str, filename: str | None, lineno: int | None) -> None:
        super().__init__(message)
        self.function = function
        self.filename = filename
        self.lineno = lineno


def uniform(low: float, high: float, u: float) -> float:
    """``Generator.uniform(low, high)`` from one draw ``u`` in [0, 1): ``low + (high - low) * u``."""
    return low + (high - low) * u


# ---------------------------------------------------------------------------------------------
# Declarations
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _ConfigField:
    name: str
    default: Any
    doc: str
    kind: str  # bool | int | float | floats
    length: int = 1


@dataclasses.dataclass
class _Decl:
    """Everything validated from a PyEnv class, before any compilation."""

    cls: type
    task_id: str
    gym_id: str | None
    doc: str
    observation_space: spaces.Space[Any]
    action_space: spaces.Space[Any]
    state_dtype: np.dtype[Any]
    config_fields: list[_ConfigField]
    config_dtype: np.dtype[Any]
    max_episode_steps: int
    reset_randoms: int
    step_randoms: int
    infos: tuple[str, ...]
    check_finite: bool
    boundscheck: bool
    functions: dict[str, Callable[..., Any]]
    arity: dict[str, int]
    labels: dict[str, str]
    locations: dict[str, tuple[str | None, int | None]]

    @property
    def discrete_obs(self) -> bool:
        return isinstance(self.observation_space, spaces.Discrete)

    @property
    def discrete_action(self) -> bool:
        return isinstance(self.action_space, spaces.Discrete)


def _name(cls: type) -> str:
    """The class's qualified name without the ``<locals>`` of functions it was defined in."""
    return cls.__qualname__.rpartition("<locals>.")[2]


def _err(cls: type, message: str) -> TypeError:
    return TypeError(f"{_name(cls)}: {message}")


def _dtype_of(cls: type, where: str, spec: Any) -> tuple[np.dtype[Any], tuple[int, ...]]:
    """A state field: a dtype, a shape (float64), or (dtype, shape)."""
    shape: tuple[int, ...] = ()
    if isinstance(spec, tuple) and spec and all(isinstance(d, int | np.integer) for d in spec):
        dtype, shape = np.dtype(np.float64), tuple(int(d) for d in spec)
    elif isinstance(spec, tuple) and len(spec) == 2:
        dtype = np.dtype(spec[0])
        shape = (int(spec[1]),) if isinstance(spec[1], int | np.integer) else tuple(int(d) for d in spec[1])
    else:
        try:
            dtype = np.dtype(spec)
        except TypeError as e:
            raise _err(cls, f"{where}: expected a dtype, a shape tuple or (dtype, shape), got {spec!r}") from e
    if dtype.name not in _SUPPORTED_DTYPES:
        raise _err(cls, f"{where}: dtype {dtype} is not supported; use one of {', '.join(_SUPPORTED_DTYPES)}")
    if any(d <= 0 for d in shape):
        raise _err(cls, f"{where}: shape {shape} must have positive dimensions")
    return dtype, shape


def _space_decl(cls: type, name: str, space: Any) -> spaces.Space[Any]:
    if isinstance(space, spaces.Discrete):
        return space
    if isinstance(space, spaces.Box):
        allowed = ("float32", "float64") if name == "action_space" else _SUPPORTED_DTYPES
        if space.dtype is None or np.dtype(space.dtype).name not in allowed:
            raise _err(cls, f"{name} dtype {space.dtype} is not supported; use one of {', '.join(allowed)}")
        if not space.shape:
            raise _err(cls, f"{name} must have at least one dimension, e.g. shape=(1,)")
        return space
    raise _err(cls, f"{name} must be a gymnasium.spaces.Box or Discrete, got {space!r}")


def _config_field(cls: type, name: str, value: Any) -> _ConfigField:
    doc = ""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        value, doc = value
    if not name.isidentifier() or name.startswith("_"):
        raise _err(cls, f"config name {name!r} must be an identifier not starting with '_'")
    if name in _RECORD_ATTRS:
        raise _err(cls, f"config name {name!r} is a numpy record attribute; choose another name")
    if name in _RESERVED_CONFIG:
        raise _err(cls, f"config name {name!r} is reserved for the pool (set max_episode_steps as a class attribute)")
    if isinstance(value, bool | np.bool_):
        return _ConfigField(name, bool(value), doc, "bool")
    if isinstance(value, int | np.integer):
        return _ConfigField(name, int(value), doc, "int")
    if isinstance(value, float | np.floating):
        return _ConfigField(name, float(value), doc, "float")
    if isinstance(value, list | tuple | np.ndarray) and len(value) > 0:
        try:
            values = [float(v) for v in np.asarray(value, dtype=np.float64).ravel()]
        except (TypeError, ValueError):
            values = []
        if values:
            return _ConfigField(name, values, doc, "floats", len(values))
    raise _err(cls, f"config {name!r}: default must be a bool, int, float or non-empty list of floats, got {value!r}")


def _record_dtype(fields: list[tuple[str, np.dtype[Any], tuple[int, ...]]]) -> np.dtype[Any]:
    if not fields:
        fields = [("_unused", np.dtype(np.int64), ())]
    return np.dtype([(n, d, s) if s else (n, d) for n, d, s in fields], align=True)


def _function(cls: type, name: str) -> Callable[..., Any]:
    raw = inspect.getattr_static(cls, name, None)
    if isinstance(raw, classmethod):
        raise _err(cls, f"{name} must be a @staticmethod or plain function, not a classmethod")
    fn = raw.__func__ if isinstance(raw, staticmethod) else raw
    fn = getattr(fn, "py_func", fn)  # a function the user already decorated with numba.njit
    if not inspect.isfunction(fn):
        raise _err(cls, f"missing {name}(): define it as a @staticmethod (see envhive.authoring)")
    return fn


def _location(fn: Callable[..., Any]) -> tuple[str | None, int | None]:
    try:
        return inspect.getsourcefile(fn) or fn.__code__.co_filename, fn.__code__.co_firstlineno
    except TypeError:
        return None, None


def _short(path: str | None) -> str:
    if not path:
        return "?"
    try:
        rel = os.path.relpath(path)
        return rel if not rel.startswith("..") else path
    except ValueError:
        return path


def _declare(cls: type) -> _Decl:
    """Validate a PyEnv class (no compilation): raises TypeError naming the class."""
    obs_space = _space_decl(cls, "observation_space", getattr(cls, "observation_space", None))
    act_space = _space_decl(cls, "action_space", getattr(cls, "action_space", None))

    state = getattr(cls, "state", None)
    if not isinstance(state, dict) or not state:
        raise _err(cls, "state must be a non-empty dict of field name -> dtype, shape or (dtype, shape)")
    state_fields = []
    for name, spec in state.items():
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise _err(cls, f"state field name {name!r} must be an identifier not starting with '_'")
        if name in _RECORD_ATTRS:
            raise _err(cls, f"state field name {name!r} is a numpy record attribute; choose another name")
        state_fields.append((name, *_dtype_of(cls, f"state field {name!r}", spec)))
    state_dtype = _record_dtype(state_fields)

    config_fields = [_config_field(cls, name, value) for name, value in dict(getattr(cls, "config", {}) or {}).items()]
    kinds = {"bool": np.dtype(np.bool_), "int": np.dtype(np.int64), "float": np.dtype(np.float64)}
    config_dtype = _record_dtype(
        [
            (f.name, kinds.get(f.kind, np.dtype(np.float64)), (f.length,) if f.kind == "floats" else ())
            for f in config_fields
        ]
    )

    def count(attr: str) -> int:
        value = getattr(cls, attr, 0)
        if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < 0:
            raise _err(cls, f"{attr} must be an int >= 0, got {value!r}")
        return int(value)

    infos = tuple(getattr(cls, "infos", ()) or ())
    for name in infos:
        if name not in state:
            raise _err(cls, f"info field {name!r} is not a state field (infos report state fields)")

    functions, arity, labels, locations = {}, {}, {}, {}
    for name in ("reset", "step", "observe"):
        fn = _function(cls, name)
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        allowed = (
            _ARITIES_DISCRETE_OBS if name == "observe" and isinstance(obs_space, spaces.Discrete) else _ARITIES[name]
        )
        discrete_obs_buffer = (
            name == "observe" and isinstance(obs_space, spaces.Discrete) and len(params) == 2
            and params[1].name.startswith("obs")
        )  # fmt: skip
        if len(params) not in allowed or discrete_obs_buffer:
            usage = {
                "reset": "reset(state, rand[, config])",
                "step": "step(state, action[, rand[, config]]) -> (reward, terminated)",
                "observe": "observe(state[, config]) -> int"
                if isinstance(obs_space, spaces.Discrete)
                else "observe(state, obs[, config])",
            }[name]
            if discrete_obs_buffer:
                raise _err(cls, f"with a Discrete observation space, observe returns the int: {usage}")
            raise _err(cls, f"{name} takes {len(params)} parameters; expected {usage}")
        functions[name], arity[name] = fn, len(params)
        locations[name] = _location(fn)
        labels[name] = f"{_name(cls)}.{name} ({_short(locations[name][0])}:{locations[name][1]})"

    explicit_id = cls.__dict__.get("id")  # not inherited: a subclass is another task
    task_id = explicit_id or f"{cls.__name__}-v0"
    if not isinstance(task_id, str) or ":" in task_id or not re.fullmatch(r"[\w.-]+(/[\w.-]+)?", task_id):
        raise _err(cls, f"id {task_id!r} must look like 'Name-v0' or 'namespace/Name-v0'")
    gym_id = None
    if explicit_id:
        gym_id = task_id if "/" in task_id else f"envhive/{task_id}"
    steps = getattr(cls, "max_episode_steps", 0) or 0
    if not isinstance(steps, int | np.integer) or steps < 0:
        raise _err(cls, f"max_episode_steps must be an int >= 0 (0: no limit), got {steps!r}")
    doc = getattr(cls, "doc", None) or inspect.cleandoc(cls.__doc__ or "").split("\n\n")[0]
    return _Decl(
        cls=cls,
        task_id=task_id,
        gym_id=gym_id,
        doc=doc or f"{_name(cls)}, written in Python ({cls.__module__}).",
        observation_space=obs_space,
        action_space=act_space,
        state_dtype=state_dtype,
        config_fields=config_fields,
        config_dtype=config_dtype,
        max_episode_steps=int(steps),
        reset_randoms=count("reset_randoms"),
        step_randoms=count("step_randoms"),
        infos=infos,
        check_finite=bool(getattr(cls, "check_finite", True)),
        boundscheck=bool(getattr(cls, "boundscheck", True)),
        functions=functions,
        arity=arity,
        labels=labels,
        locations=locations,
    )


class PyEnv:
    """Base class of an environment written in Python. Subclass it and declare:

    ``observation_space``, ``action_space``
        Gymnasium ``Box`` or ``Discrete`` (Box actions are float32 or float64).
    ``state``
        The per-env state record: ``{"x": float, "pos": (2,), "cell": np.int64, ...}`` (a dtype,
        a shape of float64, or ``(dtype, shape)``). Functions read and write ``s.x``, ``s.pos[0]``.
    ``config``
        Task kwargs with defaults, ``{"name": default}`` or ``{"name": (default, "doc")}``: bool,
        int, float or a fixed-length list of floats, read as ``cfg.name``.
    ``reset(s, rand[, cfg])``, ``step(s, action[, rand[, cfg]]) -> (reward, terminated)``,
    ``observe(s, obs[, cfg])`` (``observe(s[, cfg]) -> int`` for a Discrete observation)
        Plain numpy-style functions (``@staticmethod``), compiled with Numba in nopython mode.
        ``rand`` holds ``reset_randoms`` / ``step_randoms`` uniform [0, 1) draws from the env's
        own seeded generator. A Discrete ``action`` is an int, a Box one an array.
    Optional: ``id`` (task id, e.g. ``"my-pkg/Env-v0"``), ``max_episode_steps`` (0: none),
    ``infos`` (state fields reported in ``info``), ``check_finite`` (default True: NaN in a Box
    observation, or inf outside finite bounds, or a NaN reward is an error), ``boundscheck``
    (default True: out-of-bounds indexing raises instead of corrupting memory).
    """

    id: ClassVar[str | None] = None
    doc: ClassVar[str | None] = None
    observation_space: ClassVar[spaces.Space[Any]]
    action_space: ClassVar[spaces.Space[Any]]
    state: ClassVar[dict[str, Any]] = {}
    config: ClassVar[dict[str, Any]] = {}
    max_episode_steps: ClassVar[int] = 0
    reset_randoms: ClassVar[int] = 0
    step_randoms: ClassVar[int] = 0
    infos: ClassVar[tuple[str, ...]] = ()
    check_finite: ClassVar[bool] = True
    boundscheck: ClassVar[bool] = True

    def __init__(self) -> None:
        raise TypeError(
            f"{_name(type(self))} is a declaration: build envs with envhive.make({_name(type(self))}, "
            f"num_envs=...), or {_name(type(self))}.gymnasium_env() for a single gymnasium.Env"
        )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A subclass missing a part is an abstract base; it is reported when someone makes it.
        if all(hasattr(cls, attr) for attr in ("observation_space", "action_space", "reset", "step", "observe")):
            _announce(_declare(cls))

    @classmethod
    def task_id(cls) -> str:
        """Compile (or load from cache) and register this env; returns its envhive task id."""
        return compile_env(cls)

    @classmethod
    def compile_info(cls) -> dict[str, Any]:
        """Compile if needed; then the fingerprint, the generated glue file, whether the code came
        from the disk cache, and the seconds compile (or cache load) took in this process."""
        compile_env(cls)
        return dict(cls._envhive_glue._envhive_info)  # type: ignore[attr-defined]

    @classmethod
    def make(cls, **kwargs: Any) -> Any:
        """``envhive.make(cls, **kwargs)``: a HiveVectorEnv of this env."""
        from envhive.vector import HiveVectorEnv

        return HiveVectorEnv(compile_env(cls), **kwargs)

    @classmethod
    def gymnasium_env(cls, jit: bool = False, **config: Any) -> gymnasium.Env[Any, Any]:
        """One env as a plain ``gymnasium.Env`` (no pool, no time limit): the same functions run
        as ordinary Python (``jit=False``) or through the compiled code (``jit=True``). Seeded
        alike, it reproduces the pool's trajectories exactly."""
        return PyEnvGymnasium(cls, jit=jit, **config)


# ---------------------------------------------------------------------------------------------
# Registration (lazy: compile on first use)
# ---------------------------------------------------------------------------------------------

_TASKS: dict[str, type] = {}  # task id -> the latest class declaring it
_REGISTERED: dict[str, type] = {}  # task id -> the class whose code the native registry runs
_COMPILED: dict[str, types.ModuleType] = {}  # fingerprint -> glue module (kept alive for good)
_LOCK = threading.RLock()


def _decl(cls: type) -> _Decl:
    decl = cls.__dict__.get("_envhive_decl")
    if decl is None or decl.cls is not cls:
        decl = _declare(cls)
        cls._envhive_decl = decl  # type: ignore[attr-defined]
    return decl


def _announce(decl: _Decl) -> None:
    """Record the class under its id and register its Gymnasium id; nothing is compiled."""
    from envhive import backends

    cls = decl.cls
    cls._envhive_decl = decl  # type: ignore[attr-defined]
    if decl.task_id in backends.task_ids() and decl.task_id not in _TASKS:
        raise _err(cls, f"id {decl.task_id!r} is already taken by a built-in task")
    with _LOCK:
        _TASKS[decl.task_id] = cls
        if _REGISTERED.get(decl.task_id, cls) is not cls:  # a redefinition: string ids now mean it
            from envhive import registry

            registry._task_info.cache_clear()
    if decl.gym_id is None:
        return
    if decl.gym_id in gymnasium.registry:
        del gymnasium.registry[decl.gym_id]
    gymnasium.register(
        id=decl.gym_id,
        entry_point=functools.partial(_gym_entry, cls),
        vector_entry_point=functools.partial(_vec_entry, cls),
        max_episode_steps=decl.max_episode_steps or None,
    )


def _gym_entry(cls: type, **kwargs: Any) -> gymnasium.Env[Any, Any]:
    kwargs.pop("render_mode", None)
    return PyEnvGymnasium(cls, **kwargs)


def _vec_entry(cls: type, **kwargs: Any) -> Any:
    from envhive.vector import HiveVectorEnv

    if kwargs.pop("render_mode", None) is not None:
        raise ValueError(f"{_name(cls)}: envhive does not render; pass render_mode=None")
    return HiveVectorEnv(compile_env(cls), **kwargs)


def resolve_task(task: str) -> str | None:
    """The envhive id for a task reference the native registry does not know yet: a declared
    PyEnv id (compiled now), or ``"module:id"`` (the module is imported first, as Gymnasium
    does). None when it names no Python env."""
    module, sep, name = task.partition(":")
    if sep:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name is None or not module.startswith(e.name):
                raise
            raise ModuleNotFoundError(
                f"{task!r}: module {module!r} is not importable here; install its package or put its folder on "
                f"PYTHONPATH (e.g. `PYTHONPATH=$PWD envhive bench {task}` in a source checkout)",
                name=e.name,
            ) from e
        task = name
    if task.startswith("envhive/"):
        task = task[len("envhive/") :]
    cls = _TASKS.get(task)
    if cls is None:
        return None
    return compile_env(cls)  # a no-op once this class is registered


def compile_env(cls: type) -> str:
    """Compile ``cls`` (or load it from the cache), register it natively; returns its task id."""
    if not (isinstance(cls, type) and issubclass(cls, PyEnv)) or cls is PyEnv:
        raise TypeError(f"expected a PyEnv subclass, got {cls!r}")
    decl = _decl(cls)
    with _LOCK:
        if _REGISTERED.get(decl.task_id) is cls:
            return decl.task_id
        glue = _compile(decl)
        cls._envhive_glue = glue  # type: ignore[attr-defined]
        _register_native(decl, glue)
        _REGISTERED[decl.task_id] = cls
        _TASKS.setdefault(decl.task_id, cls)
    return decl.task_id


def _space_dict(space: spaces.Space[Any]) -> dict[str, Any]:
    if isinstance(space, spaces.Discrete):
        return {
            "kind": "discrete",
            "dtype": "int64",
            "shape": [],
            "low": [],
            "high": [],
            "n": int(space.n),
            "start": int(space.start),
        }
    assert isinstance(space, spaces.Box)
    low = np.asarray(space.low, dtype=np.float64).ravel().tolist()
    high = np.asarray(space.high, dtype=np.float64).ravel().tolist()
    return {
        "kind": "box",
        "dtype": np.dtype(space.dtype).name,
        "shape": list(space.shape),
        "low": low,
        "high": high,
        "n": 0,
        "start": 0,
    }


def _native() -> types.ModuleType:
    """The family module that hosts Python envs (envhive._native)."""
    from envhive import backends

    return backends.load(NATIVE_MODULE)


def _register_native(decl: _Decl, glue: types.ModuleType) -> None:
    from envhive import backends, registry

    native = _native()
    config = [
        {
            "name": f.name,
            "default": f.default,
            "doc": f.doc,
            "kind": f.kind,
            "offset": decl.config_dtype.fields[f.name][1],
            "length": f.length,
        }
        for f in decl.config_fields
    ]
    config.append(
        {
            "name": "max_episode_steps",
            "default": decl.max_episode_steps,
            "kind": "none",
            "offset": 0,
            "length": 0,
            "doc": "Episode length after which the pool truncates; 0 disables it.",
        }
    )
    infos = []
    for name in decl.infos:
        dtype, offset = decl.state_dtype.fields[name][:2]
        infos.append(
            {
                "name": name,
                "dtype": (dtype.base if dtype.shape else dtype).name,
                "shape": list(dtype.shape),
                "offset": offset,
            }
        )
    native.register_compiled_task(
        {
            "id": decl.task_id,
            "family": FAMILY,
            "doc": decl.doc,
            "labels": [decl.labels["reset"], decl.labels["step"], decl.labels["observe"]],
            "reset_fn": glue.reset_c.address,
            "step_fn": glue.step_c.address,
            "state_bytes": decl.state_dtype.itemsize,
            "config_bytes": decl.config_dtype.itemsize,
            "reset_randoms": decl.reset_randoms,
            "step_randoms": decl.step_randoms,
            "check_finite": decl.check_finite,
            "observation": _space_dict(decl.observation_space),
            "action": _space_dict(decl.action_space),
            "config": config,
            "infos": infos,
        }
    )
    backends.add_task(decl.task_id, NATIVE_MODULE, decl.max_episode_steps)
    registry._task_info.cache_clear()


# ---------------------------------------------------------------------------------------------
# Compilation: fingerprint, glue source, Numba
# ---------------------------------------------------------------------------------------------


def cache_dir() -> Path:
    """Where compiled envs are cached: ``$ENVHIVE_CACHE_DIR`` or ``~/.cache/envhive/pyenv``."""
    root = os.environ.get("ENVHIVE_CACHE_DIR")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "envhive" / "pyenv"


def clear_cache() -> None:
    """Delete every cached compiled env (they are rebuilt on demand)."""
    import shutil

    shutil.rmtree(cache_dir(), ignore_errors=True)


def _helpers(fn: Callable[..., Any]) -> list[Callable[..., Any]]:
    """Plain Python functions ``fn`` calls through its globals or closure (transitively)."""
    found: dict[int, Callable[..., Any]] = {}

    def visit(f: Callable[..., Any]) -> None:
        for value in _referenced(f):
            if inspect.isfunction(value) and id(value) not in found and value is not f:
                root = (value.__module__ or "").split(".")[0]
                if root in _NO_AUTOJIT:
                    continue
                found[id(value)] = value
                visit(value)

    visit(fn)
    return list(found.values())


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


_ATTRS: dict[int, set[str]] = {}  # id(module) -> names a fingerprinted function may read from it


def _referenced(fn: Callable[..., Any]) -> list[Any]:
    code = fn.__code__
    g = fn.__globals__
    names = _code_names(code)
    out = [g[name] for name in sorted(names) if name in g]
    for value in out:
        if isinstance(value, types.ModuleType):
            _ATTRS.setdefault(id(value), set()).update(names)
    for cell in fn.__closure__ or ():
        with contextlib.suppress(ValueError):  # an empty cell
            out.append(cell.cell_contents)
    return out


def _hash_value(h: Any, value: Any, seen: set[int]) -> None:
    if isinstance(value, types.FunctionType) or hasattr(value, "py_func"):
        fn = getattr(value, "py_func", value)
        if id(fn) in seen:
            h.update(b"<recursive>")
            return
        seen.add(id(fn))
        h.update(f"fn:{fn.__module__}.{fn.__qualname__}".encode())
        _hash_code(h, fn.__code__)
        for ref in _referenced(fn):
            _hash_value(h, ref, seen)
        h.update(repr(fn.__defaults__).encode())
    elif isinstance(value, types.ModuleType):
        h.update(f"mod:{value.__name__}".encode())
        if value.__name__.split(".")[0] not in _NO_AUTOJIT:  # your own module: `params.GRAVITY` counts
            for name in sorted(_ATTRS.get(id(value), ())):
                if name in vars(value) and not isinstance(vars(value)[name], types.ModuleType):
                    h.update(f"attr:{name}".encode())
                    _hash_value(h, vars(value)[name], seen)
    elif isinstance(value, np.ndarray):
        h.update(f"arr:{value.dtype.str}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, tuple | list):
        h.update(f"seq{len(value)}".encode())
        for v in value:
            _hash_value(h, v, seen)
    elif isinstance(value, int | float | complex | str | bytes | bool | np.generic | type(None)):
        h.update(f"val:{type(value).__name__}:{value!r}".encode())
    elif isinstance(value, type):
        h.update(f"type:{value.__module__}.{value.__qualname__}".encode())
    else:
        h.update(f"obj:{type(value).__module__}.{type(value).__qualname__}".encode())


def _hash_code(h: Any, code: types.CodeType) -> None:
    h.update(code.co_code)
    h.update(repr(code.co_names).encode())
    h.update(repr(code.co_varnames).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _hash_code(h, const)
        else:
            h.update(repr(const).encode())


def _fingerprint(decl: _Decl) -> str:
    import numba

    _ATTRS.clear()
    h = hashlib.sha256()
    h.update(f"glue{GLUE_VERSION} numba{numba.__version__} numpy{np.__version__} {sys.version}".encode())
    h.update(
        repr(
            (
                decl.state_dtype.descr,
                decl.config_dtype.descr,
                _space_dict(decl.observation_space),
                _space_dict(decl.action_space),
                decl.reset_randoms,
                decl.step_randoms,
                decl.arity,
                decl.boundscheck,
            )
        ).encode()
    )
    seen: set[int] = set()
    for name in ("reset", "step", "observe"):
        _hash_value(h, decl.functions[name], seen)
    return h.hexdigest()


def _shape_literal(shape: tuple[int, ...]) -> str:
    return "(" + "".join(f"{d}, " for d in shape) + ")"


def _glue_source(decl: _Decl) -> str:
    """The C-callable wrappers: typed pointers -> records and arrays -> the user's functions.
    Exceptions are caught here (in nopython code) and become a non-zero return status."""
    a = decl.arity
    reset_args = ["state", "rand", "config"][: a["reset"]]
    step_args = ["state", "action", "rand", "config"][: a["step"]]
    if decl.discrete_action:
        action = "action = carray(action_p, 1, dtype=np.int64)[0]"
    else:
        action = f"action = carray(action_p, {_shape_literal(decl.action_space.shape)}, dtype=_ACTION)"
    if decl.discrete_obs:
        obs_args = ["state", "config"][: a["observe"]]
        observe = f"obs = carray(obs_p, 1, dtype=np.int64)\n        obs[0] = _observe({', '.join(obs_args)})"
    else:
        obs_args = ["state", "obs", "config"][: a["observe"]]
        observe = (
            f"obs = carray(obs_p, {_shape_literal(decl.observation_space.shape)}, dtype=_OBS)\n"
            f"        _observe({', '.join(obs_args)})"
        )
    return f"""# Generated by envhive.authoring for {decl.cls.__module__}.{_name(decl.cls)}.
# Safe to delete: it is rebuilt (and recompiled) on demand.
# Each callable returns 0, 1 when reset/step raised, 2 when observe raised.
import numpy as np
from numba import carray, cfunc, njit, types

_V = types.voidptr
_F = types.CPointer(types.float64)
_OPTIONS = dict(cache=_CACHE, nopython=True, nogil=True, error_model="numpy")


@njit(cache=_CACHE, nogil=True, error_model="numpy")
def _emit(state, obs_p, config):
    try:
        {observe}
    except Exception:
        return 2
    return 0


@cfunc(types.int32(_V, _F, _V, _V), **_OPTIONS)
def reset_c(state_p, rand_p, config_p, obs_p):
    state = carray(state_p, 1, dtype=_STATE)[0]
    rand = carray(rand_p, {decl.reset_randoms})
    config = carray(config_p, 1, dtype=_CONFIG)[0]
    try:
        _reset({", ".join(reset_args)})
    except Exception:
        return 1
    return _emit(state, obs_p, config)


@cfunc(types.int32(_V, _V, _F, _V, _F, _V), **_OPTIONS)
def step_c(state_p, action_p, rand_p, config_p, out_p, obs_p):
    state = carray(state_p, 1, dtype=_STATE)[0]
    {action}
    rand = carray(rand_p, {decl.step_randoms})
    config = carray(config_p, 1, dtype=_CONFIG)[0]
    try:
        reward, terminated = _step({", ".join(step_args)})
    except Exception:
        return 1
    out = carray(out_p, 2)
    out[0] = reward
    out[1] = 1.0 if terminated else 0.0
    return _emit(state, obs_p, config)


@cfunc(types.int32(_V, _V, _V), **_OPTIONS)
def observe_c(state_p, obs_p, config_p):
    state = carray(state_p, 1, dtype=_STATE)[0]
    config = carray(config_p, 1, dtype=_CONFIG)[0]
    return _emit(state, obs_p, config)
"""


_AUTOJITTED: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()  # helpers registered with Numba


def _jit_options(decl: _Decl) -> dict[str, Any]:
    return {"nogil": True, "error_model": "numpy", "boundscheck": decl.boundscheck}


def _user_dispatchers(decl: _Decl) -> dict[str, Any]:
    import numba
    from numba.extending import register_jitable

    for name in ("reset", "step", "observe"):
        for fn in [decl.functions[name], *_helpers(decl.functions[name])]:
            if "print" in _code_names(fn.__code__) and "print" not in fn.__globals__:
                warnings.warn_explicit(
                    f"{_name(decl.cls)}.{name}: print() in compiled env code takes the GIL on every call, stalling "
                    f"the pool's workers while Python runs; debug with {_name(decl.cls)}.gymnasium_env() instead",
                    UserWarning,
                    fn.__code__.co_filename,
                    fn.__code__.co_firstlineno,
                )
                break
        for helper in _helpers(decl.functions[name]):
            if helper not in _AUTOJITTED:
                register_jitable(**_jit_options(decl))(helper)  # helpers may stay plain functions
                _AUTOJITTED.add(helper)
    return {name: numba.njit(**_jit_options(decl))(decl.functions[name]) for name in ("reset", "step", "observe")}


def _write_glue(decl: _Decl, key: str, source: str) -> Path | None:
    """The glue as a real file (Numba caches functions by source file); None if unwritable."""
    slug = re.sub(r"\W", "_", _name(decl.cls))[:40]
    for root in (cache_dir(), Path(tempfile.gettempdir()) / "envhive-pyenv"):
        path = root / f"{slug}_{key[:20]}.py"
        try:
            if path.exists() and path.read_text() == source:
                return path
            root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=root, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(source)
            os.replace(tmp, path)
            return path
        except OSError:
            continue
    return None


def _compile(decl: _Decl) -> types.ModuleType:
    from numba.core.errors import NumbaError

    start = time.perf_counter()
    key = _fingerprint(decl)
    if key in _COMPILED:
        return _COMPILED[key]
    source = _glue_source(decl)
    path = _write_glue(decl, key, source)
    name = f"envhive_pyenv_{key[:20]}"
    module = types.ModuleType(name)
    module.__file__ = str(path) if path else f"<envhive glue {_name(decl.cls)}>"
    user = _user_dispatchers(decl)
    module.__dict__.update(
        _CACHE=path is not None,
        _STATE=decl.state_dtype,
        _CONFIG=decl.config_dtype,
        _OBS=None if decl.discrete_obs else np.dtype(decl.observation_space.dtype),
        _ACTION=None if decl.discrete_action else np.dtype(decl.action_space.dtype),
        _reset=user["reset"],
        _step=user["step"],
        _observe=user["observe"],
    )
    sys.modules[name] = module
    try:
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    except NumbaError as e:
        sys.modules.pop(name, None)
        raise _diagnose(decl, e) from None
    module._envhive_info = {  # type: ignore[attr-defined]
        "fingerprint": key,
        "glue": module.__file__,
        "from_cache": all(f.cache_hits > 0 for f in (module.reset_c, module.step_c, module.observe_c)),
        "seconds": time.perf_counter() - start,
    }
    _COMPILED[key] = module
    return module


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _numba_types(decl: _Decl) -> dict[str, tuple[Any, ...]]:
    import numba
    from numba import types as nt

    state = numba.from_dtype(decl.state_dtype)
    config = numba.from_dtype(decl.config_dtype)

    def arr(dtype: Any, ndim: int) -> Any:
        return nt.Array(numba.from_dtype(np.dtype(dtype)), ndim, "C")

    action = nt.int64 if decl.discrete_action else arr(decl.action_space.dtype, len(decl.action_space.shape))
    rand = arr(np.float64, 1)
    if decl.discrete_obs:
        observe: tuple[Any, ...] = (state, config)
    else:
        observe = (state, arr(decl.observation_space.dtype, len(decl.observation_space.shape)), config)
    return {
        "reset": (state, rand, config)[: decl.arity["reset"]],
        "step": (state, action, rand, config)[: decl.arity["step"]],
        "observe": observe[: decl.arity["observe"]],
    }


def _diagnose(decl: _Decl, glue_error: Exception) -> CompileError:
    """Compile each user function on its own to say which one failed, and where."""
    import numba
    from numba import types as nt
    from numba.core.errors import NumbaError

    sigs = _numba_types(decl)
    for name in ("reset", "step", "observe"):
        fn = decl.functions[name]
        label = f"{_name(decl.cls)}.{name}"
        try:
            dispatcher = numba.njit(**_jit_options(decl))(fn)
            dispatcher.compile(sigs[name])
            ret = dispatcher.overloads[sigs[name]].signature.return_type
        except NumbaError as e:
            return _compile_error(decl, name, label, str(e))
        file, line = decl.locations[name]
        where = f"{_short(file)}:{line}"
        if name == "step" and not (
            isinstance(ret, nt.BaseTuple) and len(ret) == 2 and all(isinstance(t, nt.Number | nt.Boolean) for t in ret)
        ):
            return CompileError(
                f"{label} ({where}) must return (reward, terminated): two numbers; it returns {ret}", label, file, line
            )
        if name == "observe" and decl.discrete_obs and not isinstance(ret, nt.Integer | nt.Boolean):
            return CompileError(
                f"{label} ({where}) must return the observation as an int for a Discrete observation space; "
                f"it returns {ret}",
                label,
                file,
                line,
            )
    message = _ANSI.sub("", str(glue_error))
    file, line = decl.locations["step"]
    return CompileError(f"{_name(decl.cls)} cannot be compiled to native code:\n{message}", _name(decl.cls), file, line)


def _compile_error(decl: _Decl, name: str, label: str, message: str) -> CompileError:
    """A CompileError at the innermost line of user code Numba reports (helpers included)."""
    import linecache

    message = _ANSI.sub("", message).strip()
    file, line = decl.locations[name]
    cut = len(message)
    for m in re.finditer(r'File "([^"]+)", line (\d+)', message):
        f = m.group(1)
        if "site-packages" not in f and "envhive_pyenv" not in f and not f.startswith("<"):
            file, line, cut = os.path.abspath(f), int(m.group(2)), m.start()  # Numba prints cwd-relative paths
            break
    # The error itself: the line after the innermost "Failed in ... pipeline" before that location.
    head = message[:cut]
    marker = head.rfind("Failed in nopython mode pipeline")
    lines = [ln.strip() for ln in head[marker:].splitlines()[1 if marker >= 0 else 0 :] if ln.strip()]
    summary = lines[0] if lines else "compilation failed"
    if summary.endswith(":") and len(lines) > 1:
        summary += " " + lines[1]
    source = linecache.getline(file, line).strip() if file and line else ""
    return CompileError(
        f"{label} cannot be compiled to native code ({_short(file)}:{line}):\n"
        + (f"    {source}\n" if source else "")
        + f"{summary}\n\nNumba's report:\n{message}",
        label,
        file,
        line,
    )


# ---------------------------------------------------------------------------------------------
# Running the same functions in Python: a gymnasium.Env, and replays of failures
# ---------------------------------------------------------------------------------------------


def _record(dtype: np.dtype[Any], data: bytes | None = None) -> Any:
    arr = np.zeros(1, dtype) if data is None else np.frombuffer(bytearray(data), dtype=dtype, count=1)
    return arr.view(np.recarray)[0]


def _config_record(decl: _Decl, values: dict[str, Any]) -> Any:
    defaults = {f.name: f for f in decl.config_fields}
    unknown = sorted(set(values) - set(defaults))
    if unknown:
        raise TypeError(f"{_name(decl.cls)}: unknown config {unknown}; valid: {sorted(defaults)}")
    rec = _record(decl.config_dtype)
    for f in decl.config_fields:
        value = values.get(f.name, f.default)
        if f.kind == "floats" and len(value) != f.length:
            raise ValueError(f"{_name(decl.cls)}: config {f.name!r} must have {f.length} values")
        setattr(rec, f.name, value)
    return rec


def _call(
    decl: _Decl, name: str, state: Any, config: Any, action: Any = None, rand: Any = None, obs: Any = None
) -> Any:
    fn = decl.functions[name]
    n = decl.arity[name]
    if name == "reset":
        return fn(*(state, rand, config)[:n])
    if name == "step":
        return fn(*(state, action, rand, config)[:n])
    if decl.discrete_obs:
        return fn(*(state, config)[:n])
    return fn(*(state, obs, config)[:n])


class PyEnvGymnasium(gymnasium.Env):  # type: ignore[type-arg]
    """A PyEnv as one plain ``gymnasium.Env``, for debugging and comparisons (see
    ``PyEnv.gymnasium_env``). Its draws come from ``self.np_random.random`` in the order the
    native env takes them, so equal seeds give equal trajectories."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(self, env_cls: type, jit: bool = False, **config: Any) -> None:
        decl = _decl(env_cls)
        self._decl = decl
        self.observation_space = decl.observation_space
        self.action_space = decl.action_space
        self._config = _config_record(decl, config)
        self._state = _record(decl.state_dtype)
        self._native = None
        if jit:  # the compiled C callables, called through ctypes
            compile_env(env_cls)
            self._native = env_cls._envhive_glue  # type: ignore[attr-defined]

    def _draw(self, n: int) -> np.ndarray:
        return self.np_random.random(n) if n else np.zeros(0)

    def _obs_buffer(self) -> np.ndarray:
        d = self._decl
        if d.discrete_obs:
            return np.zeros(1, dtype=np.int64)
        return np.zeros(d.observation_space.shape, dtype=d.observation_space.dtype)

    def _native_result(self, status: int, name: str, obs: np.ndarray) -> Any:
        if status != 0:
            raise RuntimeError(f"{self._decl.labels[name if status == 1 else 'observe']} raised in compiled code")
        return int(obs[0]) if self._decl.discrete_obs else obs

    def _obs(self) -> Any:
        d = self._decl
        if d.discrete_obs:
            return int(_call(d, "observe", self._state, self._config))
        obs = self._obs_buffer()
        _call(d, "observe", self._state, self._config, obs=obs)
        return obs

    def _info(self) -> dict[str, Any]:
        return {name: np.copy(getattr(self._state, name)) for name in self._decl.infos}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        rand = self._draw(self._decl.reset_randoms)
        if self._native is not None:
            obs = self._obs_buffer()
            status = self._native.reset_c.ctypes(_addr(self._state), _fptr(rand), _addr(self._config), obs.ctypes.data)
            return self._native_result(status, "reset", obs), self._info()
        _call(self._decl, "reset", self._state, self._config, rand=rand)
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        d = self._decl
        rand = self._draw(d.step_randoms)
        if self._native is not None:
            a = np.array(action, dtype=np.int64 if d.discrete_action else d.action_space.dtype)
            out, obs = np.zeros(2), self._obs_buffer()
            status = self._native.step_c.ctypes(
                _addr(self._state), a.ctypes.data, _fptr(rand), _addr(self._config), _fptr(out), obs.ctypes.data
            )
            obs = self._native_result(status, "step", obs)
            return obs, float(out[0]), bool(out[1] != 0), False, self._info()
        if d.discrete_action:
            action = int(action)
        else:
            action = np.asarray(action, dtype=d.action_space.dtype).reshape(d.action_space.shape)
        reward, terminated = _call(d, "step", self._state, self._config, action=action, rand=rand)
        return self._obs(), float(reward), bool(terminated), False, self._info()


def _addr(record: Any) -> int:
    """The address of a record made by _record() (it views a 1-element array)."""
    return int(record.__array_interface__["data"][0])


def _fptr(arr: np.ndarray) -> Any:
    import ctypes

    if arr.size == 0:
        arr = np.zeros(1)
    return arr.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


class FailureReplay(NamedTuple):
    """A failed call of a compiled env, replayed in Python without raising (see replay_failure)."""

    task_id: str
    env_id: int
    function: str
    message: str
    state: Any  # the state record the call started from
    action: Any
    rand: np.ndarray
    result: Any  # what the pure-Python call returned (for observe: the observation)


def last_failures() -> list[dict[str, Any]]:
    """The inputs of recent failed calls of compiled envs (oldest first, at most 32)."""
    return list(_native().compiled_failures(False))


def replay_failure(error: BaseException | None = None) -> FailureReplay:
    """Re-run a failed call in Python, from the exact inputs it had.

    ``error``: the ``envhive.EnvError`` (its first env is replayed); default the latest failure.
    If the Python call raises, that exception propagates, with its traceback into your code.
    Otherwise (e.g. a NaN observation) the inputs and the result are returned for inspection.
    """
    records = last_failures()
    env_id = getattr(error, "env_id", None)
    if env_id is not None:
        records = [r for r in records if r["env_id"] == env_id]
    if not records:
        raise LookupError(
            "no failure of a compiled Python env is recorded" + (f" for env {env_id}" if env_id is not None else "")
        )
    r = records[-1]
    cls = _REGISTERED.get(r["task_id"]) or _TASKS.get(r["task_id"])
    if cls is None:
        raise LookupError(f"task {r['task_id']!r} is not a Python env of this process")
    decl = _decl(cls)
    state = _record(decl.state_dtype, r["state"])
    config = _record(decl.config_dtype, r["config"])
    rand = np.asarray(r["rand"], dtype=np.float64)
    action = None
    if r["function"] == "step":
        if decl.discrete_action:
            action = int(np.frombuffer(r["action"], dtype=np.int64)[0])
        else:
            action = np.frombuffer(r["action"], dtype=decl.action_space.dtype).reshape(decl.action_space.shape).copy()
    before = _record(decl.state_dtype, r["state"])
    obs = None
    if r["function"] == "observe" and not decl.discrete_obs:
        obs = np.zeros(decl.observation_space.shape, dtype=decl.observation_space.dtype)
    try:
        result = _call(decl, r["function"], state, config, action=action, rand=rand, obs=obs)
    except Exception as e:
        e.add_note(f"(envhive: replay of env {r['env_id']}'s failed {r['function']}() in Python: {r['message']})")
        raise
    if obs is not None:
        result = obs
    return FailureReplay(r["task_id"], r["env_id"], r["function"], r["message"], before, action, rand, result)
