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
    """A single-env Box or Discrete declaration (a module's SpaceSpec, or a SpaceDecl)."""

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


class InfoLike(Protocol):
    """An info field declaration (a module's InfoSpec, or an InfoDecl)."""

    @property
    def name(self) -> str: ...
    @property
    def dtype(self) -> str: ...
    @property
    def shape(self) -> tuple[int, ...]: ...


@dataclass(frozen=True)
class SpaceDecl:
    """A space declaration read from a task manifest (the attributes of the bound SpaceSpec)."""

    kind: Literal["box", "discrete"]
    dtype: str
    shape: tuple[int, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    n: int
    start: int

    @classmethod
    def of(cls, s: SpaceLike) -> SpaceDecl:
        """The declaration of a bound SpaceSpec (or any SpaceLike), as plain values."""
        return cls.from_json(
            {
                "kind": s.kind,
                "dtype": s.dtype,
                "shape": s.shape,
                "low": s.low,
                "high": s.high,
                "n": s.n,
                "start": s.start,
            }
        )

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SpaceDecl:
        kind = d["kind"]
        if kind not in ("box", "discrete"):
            raise ValueError(f"unknown space kind {kind!r}")
        return cls(
            kind=kind,
            dtype=str(d["dtype"]),
            shape=tuple(int(x) for x in d["shape"]),
            low=tuple(float(x) for x in d["low"]),
            high=tuple(float(x) for x in d["high"]),
            n=int(d["n"]),
            start=int(d["start"]),
        )


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
    """The single-env Gymnasium space of a declaration."""
    if decl.kind == "discrete":
        return spaces.Discrete(int(decl.n), start=int(decl.start))
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
