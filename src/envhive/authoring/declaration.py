"""Declaring a Python-written environment: what a PyEnv class must say, checked before anything
is compiled (every problem is a TypeError naming the class)."""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from envhive.authoring.signatures import FUNCTIONS, signature

FAMILY = "python"
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


def uniform(low: float, high: float, u: float) -> float:
    """``Generator.uniform(low, high)`` from one draw ``u`` in [0, 1): ``low + (high - low) * u``."""
    return low + (high - low) * u


@dataclasses.dataclass(frozen=True)
class ConfigSpec:
    name: str
    default: Any
    doc: str
    kind: str  # bool | int | float | floats
    length: int = 1


@dataclasses.dataclass
class Declaration:
    """Everything validated from a PyEnv class, before any compilation."""

    cls: type
    task_id: str
    gym_id: str | None
    doc: str
    observation_space: spaces.Space[Any]
    action_space: spaces.Space[Any]
    state_dtype: np.dtype[Any]
    config_fields: list[ConfigSpec]
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
    def obs_shape(self) -> tuple[int, ...]:
        return tuple(self.observation_space.shape or ())

    @property
    def obs_dtype(self) -> np.dtype[Any]:
        return np.dtype(self.observation_space.dtype)

    @property
    def action_shape(self) -> tuple[int, ...]:
        return tuple(self.action_space.shape or ())

    @property
    def action_dtype(self) -> np.dtype[Any]:
        return np.dtype(self.action_space.dtype)

    @property
    def discrete_obs(self) -> bool:
        return isinstance(self.observation_space, spaces.Discrete)

    @property
    def discrete_action(self) -> bool:
        return isinstance(self.action_space, spaces.Discrete)


def class_name(cls: type) -> str:
    """The class's qualified name without the ``<locals>`` of functions it was defined in."""
    return cls.__qualname__.rpartition("<locals>.")[2]


def declaration_error(cls: type, message: str) -> TypeError:
    return TypeError(f"{class_name(cls)}: {message}")


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
            raise declaration_error(
                cls, f"{where}: expected a dtype, a shape tuple or (dtype, shape), got {spec!r}"
            ) from e
    if dtype.name not in _SUPPORTED_DTYPES:
        raise declaration_error(
            cls, f"{where}: dtype {dtype} is not supported; use one of {', '.join(_SUPPORTED_DTYPES)}"
        )
    if any(d <= 0 for d in shape):
        raise declaration_error(cls, f"{where}: shape {shape} must have positive dimensions")
    return dtype, shape


def _space_decl(cls: type, name: str, space: Any) -> spaces.Space[Any]:
    if isinstance(space, spaces.Discrete):
        return space
    if isinstance(space, spaces.Box):
        allowed = ("float32", "float64") if name == "action_space" else _SUPPORTED_DTYPES
        if space.dtype is None or np.dtype(space.dtype).name not in allowed:
            raise declaration_error(
                cls, f"{name} dtype {space.dtype} is not supported; use one of {', '.join(allowed)}"
            )
        if not space.shape:
            raise declaration_error(cls, f"{name} must have at least one dimension, e.g. shape=(1,)")
        return space
    raise declaration_error(cls, f"{name} must be a gymnasium.spaces.Box or Discrete, got {space!r}")


def _config_field(cls: type, name: str, value: Any) -> ConfigSpec:
    doc = ""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        value, doc = value
    if not name.isidentifier() or name.startswith("_"):
        raise declaration_error(cls, f"config name {name!r} must be an identifier not starting with '_'")
    if name in _RECORD_ATTRS:
        raise declaration_error(cls, f"config name {name!r} is a numpy record attribute; choose another name")
    if name in _RESERVED_CONFIG:
        raise declaration_error(
            cls, f"config name {name!r} is reserved for the pool (set max_episode_steps as a class attribute)"
        )
    if isinstance(value, bool | np.bool_):
        return ConfigSpec(name, bool(value), doc, "bool")
    if isinstance(value, int | np.integer):
        return ConfigSpec(name, int(value), doc, "int")
    if isinstance(value, float | np.floating):
        return ConfigSpec(name, float(value), doc, "float")
    if isinstance(value, list | tuple | np.ndarray) and len(value) > 0:
        try:
            values = [float(v) for v in np.asarray(value, dtype=np.float64).ravel()]
        except (TypeError, ValueError):
            values = []
        if values:
            return ConfigSpec(name, values, doc, "floats", len(values))
    raise declaration_error(
        cls, f"config {name!r}: default must be a bool, int, float or non-empty list of floats, got {value!r}"
    )


def record_dtype(fields: list[tuple[str, np.dtype[Any], tuple[int, ...]]]) -> np.dtype[Any]:
    if not fields:
        fields = [("_unused", np.dtype(np.int64), ())]
    return np.dtype([(n, d, s) if s else (n, d) for n, d, s in fields], align=True)


def _function(cls: type, name: str) -> Callable[..., Any]:
    raw = inspect.getattr_static(cls, name, None)
    if isinstance(raw, classmethod):
        raise declaration_error(cls, f"{name} must be a @staticmethod or plain function, not a classmethod")
    fn = raw.__func__ if isinstance(raw, staticmethod) else raw
    fn = getattr(fn, "py_func", fn)  # a function the user already decorated with numba.njit
    if not inspect.isfunction(fn):
        raise declaration_error(cls, f"missing {name}(): define it as a @staticmethod (see envhive.authoring)")
    return fn


def _location(fn: Callable[..., Any]) -> tuple[str | None, int | None]:
    try:
        return inspect.getsourcefile(fn) or fn.__code__.co_filename, fn.__code__.co_firstlineno
    except TypeError:
        return None, None


def short_path(path: str | None) -> str:
    if not path:
        return "?"
    try:
        rel = os.path.relpath(path)
        return rel if not rel.startswith("..") else path
    except ValueError:
        return path


def _declare(cls: type) -> Declaration:
    """Validate a PyEnv class (no compilation): raises TypeError naming the class."""
    obs_space = _space_decl(cls, "observation_space", getattr(cls, "observation_space", None))
    act_space = _space_decl(cls, "action_space", getattr(cls, "action_space", None))

    state = getattr(cls, "state", None)
    if not isinstance(state, dict) or not state:
        raise declaration_error(cls, "state must be a non-empty dict of field name -> dtype, shape or (dtype, shape)")
    state_fields = []
    for name, spec in state.items():
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise declaration_error(cls, f"state field name {name!r} must be an identifier not starting with '_'")
        if name in _RECORD_ATTRS:
            raise declaration_error(cls, f"state field name {name!r} is a numpy record attribute; choose another name")
        state_fields.append((name, *_dtype_of(cls, f"state field {name!r}", spec)))
    state_dtype = record_dtype(state_fields)

    config_fields = [_config_field(cls, name, value) for name, value in dict(getattr(cls, "config", {}) or {}).items()]
    kinds = {"bool": np.dtype(np.bool_), "int": np.dtype(np.int64), "float": np.dtype(np.float64)}
    config_dtype = record_dtype(
        [
            (f.name, kinds.get(f.kind, np.dtype(np.float64)), (f.length,) if f.kind == "floats" else ())
            for f in config_fields
        ]
    )

    def count(attr: str) -> int:
        value = getattr(cls, attr, 0)
        if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < 0:
            raise declaration_error(cls, f"{attr} must be an int >= 0, got {value!r}")
        return int(value)

    infos = tuple(getattr(cls, "infos", ()) or ())
    for name in infos:
        if name not in state:
            raise declaration_error(cls, f"info field {name!r} is not a state field (infos report state fields)")

    functions, arity, labels, locations = {}, {}, {}, {}
    for name in FUNCTIONS:
        fn = _function(cls, name)
        params = [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        sig = signature(name, isinstance(obs_space, spaces.Discrete))
        discrete_obs_buffer = (
            name == "observe" and isinstance(obs_space, spaces.Discrete) and len(params) == 2
            and params[1].name.startswith("obs")
        )  # fmt: skip
        if len(params) not in sig.arities or discrete_obs_buffer:
            if discrete_obs_buffer:
                raise declaration_error(
                    cls, f"with a Discrete observation space, observe returns the int: {sig.usage()}"
                )
            raise declaration_error(cls, f"{name} takes {len(params)} parameters; expected {sig.usage()}")
        functions[name], arity[name] = fn, len(params)
        locations[name] = _location(fn)
        labels[name] = f"{class_name(cls)}.{name} ({short_path(locations[name][0])}:{locations[name][1]})"

    explicit_id = cls.__dict__.get("id")  # not inherited: a subclass is another task
    task_id = explicit_id or f"{cls.__name__}-v0"
    if not isinstance(task_id, str) or ":" in task_id or not re.fullmatch(r"[\w.-]+(/[\w.-]+)?", task_id):
        raise declaration_error(cls, f"id {task_id!r} must look like 'Name-v0' or 'namespace/Name-v0'")
    gym_id = None
    if explicit_id:
        gym_id = task_id if "/" in task_id else f"envhive/{task_id}"
    steps = getattr(cls, "max_episode_steps", 0) or 0
    if not isinstance(steps, int | np.integer) or steps < 0:
        raise declaration_error(cls, f"max_episode_steps must be an int >= 0 (0: no limit), got {steps!r}")
    doc = getattr(cls, "doc", None) or inspect.cleandoc(cls.__doc__ or "").split("\n\n")[0]
    return Declaration(
        cls=cls,
        task_id=task_id,
        gym_id=gym_id,
        doc=doc or f"{class_name(cls)}, written in Python ({cls.__module__}).",
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


def declaration(cls: type) -> Declaration:
    """The class's validated declaration, kept on the class (a subclass gets its own)."""
    decl = cls.__dict__.get("_envhive_decl")
    if decl is None or decl.cls is not cls:
        decl = _declare(cls)
        cls._envhive_decl = decl  # type: ignore[attr-defined]
    return decl


def space_key(space: spaces.Space[Any]) -> tuple[Any, ...]:
    """What identifies a declared space (for the fingerprint)."""
    if isinstance(space, spaces.Discrete):
        return ("discrete", int(space.n), int(space.start))
    assert isinstance(space, spaces.Box)
    return ("box", np.dtype(space.dtype).name, tuple(space.shape), space.low.tobytes(), space.high.tobytes())
