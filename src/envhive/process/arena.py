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
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from envhive.leaves import Leaf, getter, nest
from envhive.leaves import leaves as space_leaves

__all__ = ["ALIGN", "LINE_WORDS", "Arena", "Layout", "Leaf", "Region", "getter", "leaves", "nest"]

ALIGN = 64
LINE_WORDS = ALIGN // 8  # int64 words per cache line


def leaves(space: spaces.Space[Any], what: str, objects: bool = False) -> list[Leaf]:
    """The space's leaves as the arena lays them out (``envhive.leaves.leaves``); an object leaf
    (``objects``: observations only) travels pickled, in a per-env byte slot of the arena (or the
    pipe when it does not fit)."""
    return space_leaves(space, what, objects=objects, where="the process backend")


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
