"""Infos through shared memory: per-env records in a learned layout, batched as Gymnasium does.

Infos have dynamic keys, so the arena cannot declare them up front. Each worker learns *layouts*
instead: the first time an env returns an info with a new signature (its keys, nested dicts
included, and each value's kind: Python bool/int/float, a numpy scalar, or a numeric numpy array
of a given dtype and shape), the worker builds a packed record dtype for it and sends it to the
parent once, through its pipe. From then on an info of that signature costs a few stores into the
env's record slot of the arena and a layout number next to it: the common no-info and fixed-info
cases never touch a pipe. Infos a record cannot hold (strings, objects, lists, empty nested
dicts, a key named ``final_obs``, or more than ``info_bytes`` of values) are pickled through the
worker's pipe instead, one message per info.

The parent batches rows exactly as ``gymnasium.vector.VectorEnv._add_info`` does (dtypes from the
first env reporting a key, ``_key`` masks, nested dicts recursed); a batch whose rows all share
one layout is gathered with one fancy-indexing copy per field.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

NO_INFO = 0
PICKLED = -1
WORKER_SHIFT = 20  # a layout's kind code: (worker << WORKER_SHIFT) | (local id + 1)
_INT64 = (-(2**63), 2**63)

# (path, kind, dtype string, shape); kind is one of bool, int, float (Python scalars), scalar
# (a numpy number) or array (a numeric numpy array).
Field = tuple[tuple[str, ...], str, str, tuple[int, ...]]


def signature(info: dict[Any, Any], prefix: tuple[str, ...] = ()) -> tuple[Field, ...] | None:
    """The record signature of ``info``, or None when it needs pickling."""
    fields: list[Field] = []
    for key, value in info.items():
        if type(key) is not str or key == "final_obs":
            return None
        path = (*prefix, key)
        kind = type(value)
        if kind is bool:
            fields.append((path, "bool", "|b1", ()))
        elif kind is int:
            if not _INT64[0] <= value < _INT64[1]:
                return None
            fields.append((path, "int", "<i8", ()))
        elif kind is float:
            fields.append((path, "float", "<f8", ()))
        elif isinstance(value, dict):
            if not value:
                return None
            sub = signature(value, path)
            if sub is None:
                return None
            fields.extend(sub)
        elif isinstance(value, np.ndarray):
            if value.dtype.kind not in "biufc" or value.dtype.hasobject:
                return None
            fields.append((path, "array", value.dtype.str, value.shape))
        elif isinstance(value, np.number):
            fields.append((path, "scalar", value.dtype.str, ()))
        else:
            return None
    return tuple(fields)


@dataclass(frozen=True)
class InfoLayout:
    """A packed record dtype for one info signature."""

    fields: tuple[Field, ...]
    dtype: np.dtype[Any]

    @classmethod
    def build(cls, fields: tuple[Field, ...], record_bytes: int) -> InfoLayout | None:
        names, formats, offsets = [], [], []
        offset = 0
        for i, (_, _, dtype, shape) in enumerate(fields):
            dt = np.dtype(dtype)
            align = min(dt.alignment, 8)
            offset = -(-offset // align) * align
            names.append(f"f{i}")
            formats.append((dt, shape) if shape else dt)
            offsets.append(offset)
            offset += dt.itemsize * int(np.prod(shape, dtype=np.int64))
        if offset > record_bytes:
            return None
        record = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": record_bytes})
        return cls(fields, record)

    def columns(self, area: np.ndarray) -> list[np.ndarray]:
        """One strided view per field over an (num_envs, record_bytes) uint8 area."""
        records = area.view(self.dtype)[:, 0]
        return [records[name] for name in self.dtype.names or ()]


class InfoWriter:
    """Worker side: writes an env's info into its record slot, learning layouts on the way."""

    def __init__(
        self, worker: int, areas: Sequence[np.ndarray], record_bytes: int, announce: Callable[[int, Any], None]
    ) -> None:
        self.worker = worker
        self.areas = areas  # main infos, final infos (SAME_STEP)
        self.record_bytes = record_bytes
        self.announce = announce  # sends (kind code, fields) to the parent
        self._known: dict[tuple[Field, ...], tuple[int, list[list[np.ndarray]]] | None] = {}

    def write(self, area: int, env_id: int, info: dict[Any, Any]) -> int:
        """Store ``info`` for ``env_id``; returns its kind code (NO_INFO, a layout, or PICKLED,
        in which case the caller sends it through the pipe)."""
        if not info:
            return NO_INFO
        sig = signature(info)
        if sig is None:
            return PICKLED
        if sig in self._known:
            entry = self._known[sig]
        else:
            layout = InfoLayout.build(sig, self.record_bytes)
            if layout is None:
                entry = None
            else:
                code = (self.worker << WORKER_SHIFT) | (len(self._known) + 1)
                entry = (code, [layout.columns(a) for a in self.areas])
                self.announce(code, sig)
            self._known[sig] = entry
        if entry is None:
            return PICKLED
        code, columns = entry
        cols = columns[area]
        for i, value in enumerate(_values(info)):
            cols[i][env_id] = value
        return code


def _values(info: dict[Any, Any]) -> list[Any]:
    out: list[Any] = []
    for value in info.values():
        if isinstance(value, dict):
            out.extend(_values(value))
        else:
            out.append(value)
    return out


def add_info(infos: dict[str, Any], info: dict[str, Any], row: int, size: int) -> dict[str, Any]:
    """Add one env's info at ``row`` of a batch of ``size`` rows, as Gymnasium's
    ``VectorEnv._add_info`` does (same dtypes, ``_key`` masks and recursion)."""
    for key, value in info.items():
        if key == "final_obs":
            array = infos.get("final_obs")
            if array is None:
                array = np.full(size, None, dtype=object)
            array[row] = value
        elif isinstance(value, dict):
            array = add_info(infos.get(key, {}), value, row, size)
        else:
            array = infos.get(key)
            if array is None:
                if type(value) in (int, float, bool) or isinstance(value, np.number):
                    array = np.zeros(size, dtype=type(value))
                elif isinstance(value, np.ndarray):
                    array = np.zeros((size, *value.shape), dtype=value.dtype)
                else:
                    array = np.full(size, None, dtype=object)
            array[row] = value
        mask = infos.get(f"_{key}")
        if mask is None:
            mask = np.zeros(size, dtype=np.bool_)
        mask[row] = True
        infos[key], infos[f"_{key}"] = array, mask
    return infos


_PY = {"bool": bool, "int": int, "float": float}


class InfoReader:
    """Parent side: batches the infos of the rows a call returns."""

    def __init__(self, areas: Sequence[np.ndarray], record_bytes: int) -> None:
        self.areas = areas
        self.record_bytes = record_bytes
        self._layouts: dict[int, tuple[tuple[Field, ...], list[list[np.ndarray]]]] = {}

    def learn(self, code: int, fields: tuple[Field, ...]) -> None:
        layout = InfoLayout.build(tuple((tuple(p), k, d, tuple(s)) for p, k, d, s in fields), self.record_bytes)
        if layout is None:  # the worker built it with the same size, so this cannot happen
            raise RuntimeError(f"info layout {code} does not fit {self.record_bytes} bytes")
        self._layouts[code] = (layout.fields, [layout.columns(a) for a in self.areas])

    def release(self) -> None:
        """Drop every view of the arena (before it is unmapped)."""
        self.areas = []
        self._layouts = {}

    def forget_worker(self, worker: int) -> None:
        """A restarted worker numbers its layouts afresh."""
        self._layouts = {c: v for c, v in self._layouts.items() if c >> WORKER_SHIFT != worker}

    def known(self, code: int) -> bool:
        return code in self._layouts

    def one(self, area: int, code: int, env_id: int) -> dict[str, Any]:
        """One env's info rebuilt from its record, with the Python types it was written with."""
        fields, columns = self._layouts[code]
        info: dict[str, Any] = {}
        for (path, kind, _, _), col in zip(fields, columns[area], strict=True):
            value = col[env_id]
            if kind in _PY:
                value = _PY[kind](value)
            elif kind == "array":
                value = value.copy()
            target = info
            for key in path[:-1]:
                target = target.setdefault(key, {})
            target[path[-1]] = value
        return info

    def batch(
        self,
        area: int,
        env_ids: np.ndarray,
        kinds: np.ndarray,
        pickled: Callable[[int], dict[str, Any]],
        infos: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Batch the infos of ``env_ids`` (rows in that order) into ``infos``. ``kinds`` holds each
        row's kind code; ``pickled(env_id)`` returns an info that came through the pipe."""
        infos = {} if infos is None else infos
        size = len(env_ids)
        code = int(kinds[0]) if size else NO_INFO
        if code > 0 and not infos and bool((kinds == code).all()):
            return self._gather(area, code, env_ids)
        if code > 0 and not infos:  # one layout per worker, the same fields: one gather per worker's rows
            codes = np.unique(kinds).tolist()
            if codes[0] > 0 and all(c in self._layouts for c in codes):
                fields = self._layouts[codes[0]][0]
                if all(self._layouts[c][0] == fields for c in codes[1:]):
                    return self._gather_groups(area, codes, kinds, env_ids)
        for row in np.flatnonzero(kinds).tolist():
            kind = int(kinds[row])
            env_id = int(env_ids[row])
            info = pickled(env_id) if kind == PICKLED else self.one(area, kind, env_id)
            add_info(infos, info, row, size)
        return infos

    def _gather(self, area: int, code: int, env_ids: np.ndarray) -> dict[str, Any]:
        """Every row shares one layout: one gather per field, masks all True."""
        fields, columns = self._layouts[code]
        return self._nest(fields, [col[env_ids] for col in columns[area]], len(env_ids))

    def _gather_groups(self, area: int, codes: list[int], kinds: np.ndarray, env_ids: np.ndarray) -> dict[str, Any]:
        """Rows of several layouts with the same fields (each worker numbers its own): one gather per
        field and layout, into one column per field."""
        fields = self._layouts[codes[0]][0]
        size = len(env_ids)
        merged: list[np.ndarray] = []
        for code in codes:
            rows = np.flatnonzero(kinds == code)
            for k, col in enumerate(self._layouts[code][1][area]):
                values = col[env_ids[rows]]
                if k == len(merged):
                    merged.append(np.empty((size, *values.shape[1:]), dtype=values.dtype))
                merged[k][rows] = values
        return self._nest(fields, merged, size)

    @staticmethod
    def _nest(fields: tuple[Field, ...], gathered: list[np.ndarray], size: int) -> dict[str, Any]:
        """Gathered columns as Gymnasium's batched info (nested dicts, masks all True)."""
        infos: dict[str, Any] = {}
        for (path, _, _, _), values in zip(fields, gathered, strict=True):
            # Python bools, ints and floats were stored as bool, int64, float64
            target = infos
            for key in path[:-1]:
                if key not in target:
                    target[key] = {}
                    target[f"_{key}"] = np.ones(size, dtype=np.bool_)
                target = target[key]
            target[path[-1]] = values
            target[f"_{path[-1]}"] = np.ones(size, dtype=np.bool_)
        return infos
