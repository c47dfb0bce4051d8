"""The shared-memory arena: one memfd mapping holding every array parent and workers exchange.

The arena is an anonymous ``memfd`` (``os.memfd_create``): it has no name in ``/dev/shm``, so no
segment can be left behind, whatever kills the processes; the kernel frees it when the last
mapping and descriptor are gone. Workers receive the descriptor (inherited with ``fork``, passed
with the process arguments under ``forkserver`` / ``spawn``) and map it themselves.

Every region is a numpy view at a 64-byte aligned offset; words one side writes and the other
reads live on cache lines of their own, so a worker publishing a result does not invalidate the
line the parent is writing commands to.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

ALIGN = 64
LINE_WORDS = ALIGN // 8  # int64 words per cache line
SUPPORTED = "Box, Discrete, MultiDiscrete, MultiBinary, Dict and Tuple"


@dataclass(frozen=True)
class Leaf:
    """One part of a (possibly nested) space: its path, per-env shape and dtype. An *object*
    leaf (Text, Graph, Sequence, a custom space: what Gymnasium batches as a tuple of values)
    travels pickled, in a per-env byte slot of the arena (or the pipe when it does not fit)."""

    path: tuple[str | int, ...]
    space: spaces.Space[Any]
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    is_object: bool = False


def leaves(space: spaces.Space[Any], what: str, path: tuple[str | int, ...] = (), objects: bool = False) -> list[Leaf]:
    """Flatten a space into its leaves (Dict and Tuple recurse, in the space's own order).
    ``objects``: allow object leaves (observations); else only array leaves (actions)."""
    if isinstance(space, spaces.Dict):
        return [leaf for key, sub in space.spaces.items() for leaf in leaves(sub, what, (*path, key), objects)]
    if isinstance(space, spaces.Tuple):
        return [leaf for i, sub in enumerate(space.spaces) for leaf in leaves(sub, what, (*path, i), objects)]
    if isinstance(space, spaces.Box | spaces.MultiDiscrete | spaces.MultiBinary):
        return [Leaf(path, space, tuple(space.shape), np.dtype(space.dtype))]
    if isinstance(space, spaces.Discrete):
        return [Leaf(path, space, (), np.dtype(space.dtype))]
    if objects:
        return [Leaf(path, space, (), np.dtype(object), is_object=True)]
    where = "".join(f"[{p!r}]" for p in path)
    raise TypeError(
        f"the process backend cannot batch the {what} space{where} {space!r} into shared memory; "
        f"supported: {SUPPORTED} (nested)"
    )


def nest(space: spaces.Space[Any], values: Sequence[Any]) -> Any:
    """Rebuild the space's structure (dicts and tuples, as gymnasium.vector.utils batches them)
    from one value per leaf, in ``leaves`` order."""
    it = iter(values)

    def build(s: spaces.Space[Any]) -> Any:
        if isinstance(s, spaces.Dict):
            return {key: build(sub) for key, sub in s.spaces.items()}
        if isinstance(s, spaces.Tuple):
            return tuple(build(sub) for sub in s.spaces)
        return next(it)

    return build(space)


def getter(path: tuple[str | int, ...]) -> Callable[[Any], Any]:
    """A function that picks the leaf at ``path`` out of a nested value."""
    if not path:
        return lambda value: value
    if len(path) == 1:
        key = path[0]
        return lambda value: value[key]

    def get(value: Any) -> Any:
        for key in path:
            value = value[key]
        return value

    return get


@dataclass(frozen=True)
class Region:
    name: str
    offset: int
    shape: tuple[int, ...]
    dtype: np.dtype[Any]


class Layout:
    """Named regions at aligned offsets; the same description maps the arena in every process."""

    def __init__(self) -> None:
        self.regions: dict[str, Region] = {}
        self.size = 0

    def add(self, name: str, shape: tuple[int, ...], dtype: Any) -> None:
        dt = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        self.regions[name] = Region(name, self.size, tuple(shape), dt)
        self.size += -(-max(nbytes, 1) // ALIGN) * ALIGN

    def views(self, buffer: mmap.mmap) -> dict[str, np.ndarray]:
        out = {}
        for r in self.regions.values():
            count = int(np.prod(r.shape, dtype=np.int64))
            out[r.name] = np.frombuffer(buffer, dtype=r.dtype, count=count, offset=r.offset).reshape(r.shape)
        return out


class Arena:
    """A memfd of ``layout.size`` bytes, mapped; ``fd`` stays open so workers can be (re)started."""

    def __init__(self, layout: Layout, fd: int | None = None) -> None:
        self.layout = layout
        size = max(layout.size, mmap.PAGESIZE)
        if fd is None:
            fd = os.memfd_create("envhive-arena", os.MFD_CLOEXEC)
            os.ftruncate(fd, size)
        self.fd = fd
        self.buffer = mmap.mmap(fd, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        self.arrays = layout.views(self.buffer)
        self._memoryviews: list[memoryview] = []

    def words(self, name: str, fmt: str = "q") -> Any:
        """A region as a flat memoryview (``fmt``: ``q`` int64, ``d`` float64, ``b`` int8): element
        access with plain Python ints and floats, cheaper than numpy scalars. (Typed Any: the
        element type follows ``fmt``.)"""
        region = self.layout.regions[name]
        nbytes = region.dtype.itemsize * int(np.prod(region.shape, dtype=np.int64))
        raw = memoryview(self.buffer)[region.offset : region.offset + nbytes]
        view = raw.cast(fmt)  # type: ignore[call-overload]
        self._memoryviews += [view, raw]
        return view

    def close(self) -> None:
        """Drop the views and the mapping, then the descriptor."""
        self.arrays = {}
        for view in self._memoryviews:
            view.release()
        self._memoryviews = []
        with contextlib.suppress(BufferError):  # a view still exported: the mapping goes with its last user
            self.buffer.close()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
