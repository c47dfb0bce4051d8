"""Task declarations as Python sees them, and their Gymnasium spaces.

A task declares its spaces once, in C++ (``csrc/core/spec.h``). Python meets those declarations in
two forms with the same attributes: the bound types of a loaded module (``SpaceSpec``,
``InfoSpec``, ``ConfigField``), and, without loading any module, the build's task manifest, read
here into :class:`SpaceDecl`, :class:`InfoDecl` and :class:`ConfigDecl`. :func:`to_gym_space`
turns either into a Gymnasium space.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
from gymnasium import spaces


class SpaceLike(Protocol):
    """A single-env space declaration (a module's SpaceSpec, or a SpaceDecl): a Box, Discrete or
    Text leaf, or a Dict / Tuple of declarations (``items``: ``(key, space)`` pairs, keys empty in a
    Tuple)."""

    @property
    def kind(self) -> str: ...
    @property
    def dtype(self) -> str: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def low(self) -> Sequence[float]: ...
    @property
    def high(self) -> Sequence[float]: ...
    @property
    def n(self) -> int: ...
    @property
    def start(self) -> int: ...
    @property
    def min_length(self) -> int: ...
    @property
    def charset(self) -> str: ...
    @property
    def items(self) -> Sequence[tuple[str, SpaceLike]]: ...


class InfoLike(Protocol):
    """An info field declaration (a module's InfoSpec, or an InfoDecl)."""

    @property
    def name(self) -> str: ...
    @property
    def dtype(self) -> str: ...
    @property
    def shape(self) -> tuple[int, ...]: ...


SPACE_KINDS = ("box", "discrete", "text", "dict", "tuple")


@dataclass(frozen=True)
class SpaceDecl:
    """A space declaration read from a task manifest (the attributes of the bound SpaceSpec)."""

    kind: Literal["box", "discrete", "text", "dict", "tuple"]
    dtype: str
    shape: tuple[int, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    n: int
    start: int
    min_length: int = 0
    charset: str = ""
    items: tuple[tuple[str, SpaceDecl], ...] = ()

    @classmethod
    def of(cls, s: SpaceLike) -> SpaceDecl:
        """The declaration of a bound SpaceSpec (or any SpaceLike), as plain values."""
        return cls(
            kind=_kind(s.kind),
            dtype=str(s.dtype),
            shape=tuple(int(x) for x in s.shape),
            low=tuple(float(x) for x in s.low),
            high=tuple(float(x) for x in s.high),
            n=int(s.n),
            start=int(s.start),
            min_length=int(s.min_length),
            charset=str(s.charset),
            items=tuple((str(key), cls.of(item)) for key, item in s.items),
        )

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SpaceDecl:
        return cls(
            kind=_kind(d["kind"]),
            dtype=str(d["dtype"]),
            shape=tuple(int(x) for x in d["shape"]),
            low=tuple(float(x) for x in d["low"]),
            high=tuple(float(x) for x in d["high"]),
            n=int(d["n"]),
            start=int(d["start"]),
            min_length=int(d.get("min_length", 0)),
            charset=str(d.get("charset", "")),
            items=tuple((str(key), cls.from_json(item)) for key, item in d.get("items", ())),
        )


def _kind(kind: str) -> Literal["box", "discrete", "text", "dict", "tuple"]:
    if kind not in SPACE_KINDS:
        raise ValueError(f"unknown space kind {kind!r}")
    return kind  # type: ignore[return-value]


@dataclass(frozen=True)
class InfoDecl:
    """An info field declaration read from a task manifest."""

    name: str
    dtype: str
    shape: tuple[int, ...]

    @classmethod
    def of(cls, i: InfoLike) -> InfoDecl:
        return cls(name=i.name, dtype=i.dtype, shape=tuple(int(x) for x in i.shape))

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> InfoDecl:
        return cls(name=str(d["name"]), dtype=str(d["dtype"]), shape=tuple(int(x) for x in d["shape"]))


class AgentLike(Protocol):
    """One agent of a multi-agent task (a module's AgentSpec, or an AgentDecl)."""

    @property
    def name(self) -> str: ...
    @property
    def observation(self) -> SpaceLike: ...
    @property
    def action(self) -> SpaceLike: ...


@dataclass(frozen=True)
class AgentDecl:
    """One agent of a multi-agent task as a manifest holds it: its name (PettingZoo's agent id),
    observation and action declarations (``csrc/core/multi_agent.h``)."""

    name: str
    observation: SpaceDecl
    action: SpaceDecl

    @classmethod
    def of(cls, a: AgentLike) -> AgentDecl:
        return cls(name=str(a.name), observation=SpaceDecl.of(a.observation), action=SpaceDecl.of(a.action))

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> AgentDecl:
        return cls(
            name=str(d["name"]),
            observation=SpaceDecl.from_json(d["observation"]),
            action=SpaceDecl.from_json(d["action"]),
        )


class RenderLike(Protocol):
    """A task's frame declaration (a module's RenderSpec, or a RenderDecl)."""

    @property
    def height(self) -> int: ...
    @property
    def width(self) -> int: ...
    @property
    def fps(self) -> int: ...
    @property
    def threads(self) -> int: ...


@dataclass(frozen=True)
class RenderDecl:
    """The frames a task's renderer draws for ``render_mode="rgb_array"``: ``(height, width, 3)``
    uint8, played at ``fps`` (Gymnasium's ``metadata["render_fps"]``), drawn by at most ``threads``
    pool threads at once (0: all of them)."""

    height: int
    width: int
    fps: int
    threads: int

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.height, self.width, 3)

    @classmethod
    def of(cls, r: RenderLike) -> RenderDecl | None:
        """The declaration of a bound RenderSpec; None when the task has no renderer."""
        if r.height <= 0 or r.width <= 0:
            return None
        return cls(height=int(r.height), width=int(r.width), fps=int(r.fps), threads=int(r.threads))

    @classmethod
    def from_json(cls, d: dict[str, Any] | None) -> RenderDecl | None:
        if d is None:
            return None
        return cls(height=int(d["height"]), width=int(d["width"]), fps=int(d["fps"]), threads=int(d["threads"]))


@dataclass(frozen=True)
class ConfigDecl:
    """A task kwarg: name, default and doc (the attributes of the bound ConfigField)."""

    name: str
    default: Any
    doc: str


def to_gym_space(decl: SpaceLike) -> spaces.Space[Any]:
    """The single-env Gymnasium space of a declaration (a Dict keeps the declared key order)."""
    if decl.kind == "discrete":
        return spaces.Discrete(int(decl.n), start=int(decl.start))
    if decl.kind == "text":
        charset = decl.charset or spaces.text.alphanumeric
        return spaces.Text(int(decl.shape[0]), min_length=int(decl.min_length), charset=charset)
    if decl.kind == "dict":
        return spaces.Dict([(key, to_gym_space(item)) for key, item in decl.items])
    if decl.kind == "tuple":
        return spaces.Tuple([to_gym_space(item) for _, item in decl.items])
    dtype = np.dtype(decl.dtype)
    shape = tuple(decl.shape)
    low = _bound(decl.low, shape, dtype)
    high = _bound(decl.high, shape, dtype)
    return spaces.Box(low=low, high=high, shape=shape, dtype=dtype)


def info_fields(infos: Sequence[InfoLike]) -> dict[str, tuple[np.dtype[Any], tuple[int, ...]]]:
    """Info field declarations as {name: (dtype, shape)}."""
    return {i.name: (np.dtype(i.dtype), tuple(i.shape)) for i in infos}


def _bound(values: Sequence[float], shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 1:
        arr = np.full(shape, arr.item())
    arr = arr.reshape(shape)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        arr = np.clip(arr, info.min, info.max)
    return arr.astype(dtype)
