"""Native space declarations -> Gymnasium spaces and dm_env specs (declared once, in C++)."""

from __future__ import annotations

from typing import Any

import dm_env.specs
import numpy as np
from gymnasium import spaces


def to_gym_space(decl: dict[str, Any]) -> spaces.Space[Any]:
    """Build the single-env Gymnasium space of a native declaration."""
    if decl["kind"] == "discrete":
        return spaces.Discrete(int(decl["n"]), start=int(decl["start"]))
    dtype = np.dtype(decl["dtype"])
    shape = tuple(decl["shape"])
    low = _bound(decl["low"], shape, dtype)
    high = _bound(decl["high"], shape, dtype)
    return spaces.Box(low=low, high=high, shape=shape, dtype=dtype)  # type: ignore[arg-type]


def _bound(values: list[float], shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.size == 1:
        arr = np.full(shape, arr.item())
    arr = arr.reshape(shape)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        arr = np.clip(arr, info.min, info.max)
    return arr.astype(dtype)


def to_dm_spec(space: spaces.Space[Any], name: str) -> dm_env.specs.Array:
    """The dm_env spec of one env's observation or action."""
    if isinstance(space, spaces.Discrete):
        return dm_env.specs.DiscreteArray(int(space.n), dtype=np.int64, name=name)
    assert isinstance(space, spaces.Box)
    return dm_env.specs.BoundedArray(space.shape, space.dtype, space.low, space.high, name=name)
