"""The one walker over a space's structure: a space as its leaves (Dict and Tuple recurse, in the
space's own order), a nested value rebuilt from one value per leaf, a leaf picked out of a nested
value. The facade's action checks, the process backend's shared-memory layout, the merging of
batches from several pools and the decoding of text observations all walk spaces with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

ARRAY_LEAVES = "Box, Discrete, MultiDiscrete, MultiBinary, Dict and Tuple"


@dataclass(frozen=True)
class Leaf:
    """One part of a (possibly nested) space: its path, per-env shape and dtype. An *object* leaf
    (Text, Graph, Sequence, a custom space: what Gymnasium batches as a tuple of values) has no
    array form."""

    path: tuple[str | int, ...]
    space: spaces.Space[Any]
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    is_object: bool = False

    @property
    def where(self) -> str:
        """The leaf's path as Python indexes it (``['image']``, ``[0]``; empty for a lone leaf)."""
        return "".join(f"[{p!r}]" for p in self.path)


def leaves(
    space: spaces.Space[Any], what: str, path: tuple[str | int, ...] = (), objects: bool = False, where: str = ""
) -> list[Leaf]:
    """Flatten a space into its leaves. ``objects``: allow object leaves (observations); else only
    array leaves, and a TypeError naming ``what`` and ``where`` (who cannot batch it) for others."""
    if isinstance(space, spaces.Dict):
        return [leaf for key, sub in space.spaces.items() for leaf in leaves(sub, what, (*path, key), objects, where)]
    if isinstance(space, spaces.Tuple):
        return [leaf for i, sub in enumerate(space.spaces) for leaf in leaves(sub, what, (*path, i), objects, where)]
    if isinstance(space, spaces.Box | spaces.MultiDiscrete | spaces.MultiBinary):
        return [Leaf(path, space, tuple(space.shape), np.dtype(space.dtype))]
    if isinstance(space, spaces.Discrete):
        return [Leaf(path, space, (), np.dtype(space.dtype))]
    if objects:
        return [Leaf(path, space, (), np.dtype(object), is_object=True)]
    at = "".join(f"[{p!r}]" for p in path)
    raise TypeError(
        f"{where or 'envhive'} cannot batch the {what} space{at} {space!r}; supported: {ARRAY_LEAVES} (nested)"
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


def flat_values(space: spaces.Space[Any], value: Any, what: str) -> list[Any]:
    """The leaves of a nested ``value`` of ``space`` (a dict per Dict, a tuple / list per Tuple), in
    ``leaves`` order; ValueError naming the path where the structure differs."""
    out: list[Any] = []

    def walk(s: spaces.Space[Any], v: Any, path: str) -> None:
        if isinstance(s, spaces.Dict):
            if not isinstance(v, dict):
                raise ValueError(f"{what}{path} must be a dict with the keys {list(s.spaces)}, got {type(v).__name__}")
            missing = [k for k in s.spaces if k not in v]
            extra = [k for k in v if k not in s.spaces]
            if missing or extra:
                raise ValueError(
                    f"{what}{path} must have the keys {list(s.spaces)}"
                    + (f"; missing {missing}" if missing else "")
                    + (f"; unknown {extra}" if extra else "")
                )
            for key, sub in s.spaces.items():
                walk(sub, v[key], f"{path}[{key!r}]")
        elif isinstance(s, spaces.Tuple):
            if not isinstance(v, tuple | list) or len(v) != len(s.spaces):
                raise ValueError(
                    f"{what}{path} must be a tuple of {len(s.spaces)} parts, got "
                    + (f"{len(v)} parts" if isinstance(v, tuple | list) else type(v).__name__)
                )
            for i, sub in enumerate(s.spaces):
                walk(sub, v[i], f"{path}[{i}]")
        else:
            out.append(v)

    walk(space, value, "")
    return out


def text_leaves(space: spaces.Space[Any]) -> list[tuple[str | int, ...]]:
    """The paths of the Text leaves of a space (the native pool returns each as an ``S<n>`` array)."""
    return [leaf.path for leaf in leaves(space, "observation", objects=True) if isinstance(leaf.space, spaces.Text)]


def decode_text(values: np.ndarray) -> tuple[str, ...]:
    """A batch of a Text leaf as the native pool returns it (zero-padded UTF-8 bytes, an ``S<n>``
    array) as Gymnasium batches Text: a tuple of ``str``."""
    return tuple(np.char.decode(values, "utf-8").tolist())


def with_text_decoded(obs: Any, paths: Sequence[tuple[str | int, ...]]) -> Any:
    """``obs`` with each Text leaf at ``paths`` decoded (:func:`decode_text`); the rest shared."""
    for path in paths:
        if not path:
            return decode_text(obs)
        obs = _replaced(obs, path, decode_text(getter(path)(obs)))
    return obs


def with_final_text_decoded(final_obs: np.ndarray, paths: Sequence[tuple[str | int, ...]]) -> np.ndarray:
    """SAME_STEP's ``info["final_obs"]`` (an object array of single-env observations, None where no
    episode ended) with each Text leaf at ``paths`` a ``str``, as a single env's Text observation is."""
    out = np.empty(len(final_obs), dtype=object)
    for i, obs in enumerate(final_obs):
        for path in paths:
            if obs is None:
                break
            value = getter(path)(obs) if path else obs
            text = value.item().decode("utf-8") if isinstance(value, np.ndarray) else value
            obs = text if not path else _replaced(obs, path, text)
        out[i] = obs
    return out


def _replaced(value: Any, path: tuple[str | int, ...], new: Any) -> Any:
    key, rest = path[0], path[1:]
    inner = new if not rest else _replaced(value[key], rest, new)
    if isinstance(value, dict):
        return {**value, key: inner}
    parts = list(value)
    parts[int(key)] = inner
    return tuple(parts)


def concatenate(space: spaces.Space[Any], batches: Sequence[Any]) -> Any:
    """Batches of ``space`` (each nested as the space: arrays per array leaf, tuples of values per
    object leaf) joined row-wise into one."""
    if isinstance(space, spaces.Dict):
        return {key: concatenate(sub, [b[key] for b in batches]) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(concatenate(sub, [b[i] for b in batches]) for i, sub in enumerate(space.spaces))
    if batches and isinstance(batches[0], tuple):  # an object leaf batched as a tuple (Gymnasium's Text)
        return tuple(value for b in batches for value in b)
    return np.concatenate(batches)


def rows(space: spaces.Space[Any], batch: Any, n: int) -> list[Any]:
    """Each of the ``n`` rows of a batch of ``space`` as one env's value (dicts / tuples of its
    leaves' rows for a structured space)."""
    if isinstance(space, spaces.Dict):
        parts = {key: rows(sub, batch[key], n) for key, sub in space.spaces.items()}
        return [{key: parts[key][i] for key in parts} for i in range(n)]
    if isinstance(space, spaces.Tuple):
        columns = [rows(sub, batch[i], n) for i, sub in enumerate(space.spaces)]
        return [tuple(column[i] for column in columns) for i in range(n)]
    return [batch[i] for i in range(n)]
