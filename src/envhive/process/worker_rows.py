"""A worker's rows of the arena: the actions it reads and the outputs it writes.

Envs ``lo..hi-1`` of the pool are the worker's block. Per env (async steps, resets) it reads an
action as Gymnasium's ``iterate`` would give it and writes the observation's leaves, reward,
flags, elapsed steps, status, info and -- SAME_STEP -- the final observation and info. For a sync
step it reads every action of the block at once and writes each output through a view of the
block's rows (``envhive.process.block_step``).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np

import envhive._procwire as _procwire
from envhive.process.arena import LINE_WORDS, Arena, Leaf, getter, leaves, nest
from envhive.process.infos import PICKLED, InfoWriter
from envhive.process.protocol import FLAG_ERROR, FLAG_FINAL, FLAG_INFO, STATUS_ERROR, STATUS_OK
from envhive.process.worker_pipe import ParentPipe

BAD_OBS = (ValueError, TypeError, KeyError, IndexError)


def bad_obs(space: Any, error: Exception) -> ValueError:
    return ValueError(f"the observation does not fit the observation space {space}: {error}")


class WorkerRows:
    def __init__(
        self,
        arena: Arena,
        index: int,
        lo: int,
        hi: int,
        first_env: Any,
        info_bytes: int,
        pipe: ParentPipe,
    ) -> None:
        a = arena.arrays
        same_step = "has_final" in a  # SAME_STEP: the layout has final columns
        self.index = index
        self.lo, self.hi, self.n = lo, hi, hi - lo
        self.pipe = pipe
        self.head_at = index * LINE_WORDS
        self.batch_flags = arena.words("batch_flags")
        self.seeds = a["seeds"]
        # One env's outputs (words views: a store is cheaper than numpy's item assignment).
        self.rewards = arena.words("reward", "d")
        self.terminated = arena.words("terminated", "B")
        self.truncated = arena.words("truncated", "B")
        self.elapsed = arena.words("elapsed", "i")
        self.status = arena.words("status", "b")
        self.info_kind = arena.words("info_kind", "i")
        obs_leaves = leaves(first_env.observation_space, "observation", objects=True)
        act_leaves = leaves(first_env.action_space, "action")
        self.obs_space = first_env.observation_space
        self.flat_obs = len(obs_leaves) == 1 and not obs_leaves[0].path and not obs_leaves[0].is_object
        self.write_obs = _obs_writer(a, "obs", obs_leaves, pipe)
        self.write_final_obs: Callable[[int, Any], None] | None = None
        if same_step:
            self.write_final_obs = _obs_writer(a, "final_obs", obs_leaves, pipe)
            self.has_final = arena.words("has_final", "B")
            self.final_elapsed = arena.words("final_elapsed", "i")
            self.final_kind = arena.words("final_info_kind", "i")
        act_arrays = [a[f"act{i}"] for i in range(len(act_leaves))]
        self.read_action = _action_reader(first_env.action_space, act_arrays, act_leaves)
        self.read_block = _block_reader(first_env.action_space, act_arrays, act_leaves, lo, hi)
        areas = [a["info"], a["final_info"]] if same_step else [a["info"]]
        self.infos = InfoWriter(index, areas, info_bytes, pipe.announce)
        # The block's outputs: one view per array, each written with one copy per sync step.
        self.obs_block = a["obs0"][lo:hi] if self.flat_obs else None
        self.rew_block = a["reward"][lo:hi]
        self.term_block = a["terminated"][lo:hi].view(np.bool_)
        self.trunc_block = a["truncated"][lo:hi].view(np.bool_)
        self.elapsed_block = a["elapsed"][lo:hi]
        self.kind_block = a["info_kind"][lo:hi]
        self.final_block = a["has_final"][lo:hi] if same_step else None
        # rewards, flags and elapsed steps in one C++ call where they are plain Python values
        self.scalar_writer = _procwire.BlockWriter(
            self.rew_block, a["terminated"][lo:hi], a["truncated"][lo:hi], self.elapsed_block
        )
        # The block's info kinds / final flags may be non-zero (written per env, or by the last
        # sync step): the next sync step rewrites them.
        self.kinds_dirty = True
        self.finals_dirty = True

    def flag(self, bits: int) -> None:
        """Tell the parent what this worker wrote besides plain rows (FLAG_ERROR, _INFO, _FINAL)."""
        self.batch_flags[self.head_at] |= bits

    def write_row(
        self,
        env_id: int,
        obs: Any,
        reward: Any,
        terminated: Any,
        truncated: Any,
        elapsed: int,
        info: dict[str, Any],
        final: bool,
    ) -> None:
        """One env's outputs (an async step or a reset); ``final``: ``write_final`` wrote its
        episode's end (SAME_STEP)."""
        try:
            self.write_obs(env_id, obs)
        except BAD_OBS as error:
            raise bad_obs(self.obs_space, error) from error
        self.rewards[env_id] = float(reward)
        self.terminated[env_id] = 1 if terminated else 0
        self.truncated[env_id] = 1 if truncated else 0
        self.elapsed[env_id] = elapsed
        if info:
            self.info_kind[env_id] = self.write_info(0, env_id, info)
            self.flag(FLAG_INFO)
        else:
            self.info_kind[env_id] = 0
        if self.write_final_obs is not None and not final:
            self.has_final[env_id] = 0
        self.status[env_id] = STATUS_OK
        if final:
            self.flag(FLAG_FINAL)

    def fail(self, env_id: int) -> None:
        """Env ``env_id``'s command raised (its error goes through the pipe)."""
        self.status[env_id] = STATUS_ERROR
        self.flag(FLAG_ERROR)

    def write_info(self, area: int, env_id: int, info: dict[str, Any]) -> int:
        """Store env ``env_id``'s info (area 1: its final info); returns its kind code."""
        kind = self.infos.write(area, env_id, info)
        if kind == PICKLED:
            self.pipe.info(env_id, area, info)
        return kind

    def write_final(self, env_id: int, obs: Any, info: dict[str, Any], elapsed: int) -> None:
        """SAME_STEP: the observation, info and elapsed steps the episode ended with."""
        assert self.write_final_obs is not None
        try:
            self.write_final_obs(env_id, obs)
        except BAD_OBS as error:
            raise bad_obs(self.obs_space, error) from error
        self.final_kind[env_id] = self.write_info(1, env_id, info)
        self.final_elapsed[env_id] = elapsed
        self.has_final[env_id] = 1


def _obs_writer(
    arrays: dict[str, np.ndarray], prefix: str, obs_leaves: list[Leaf], pipe: ParentPipe
) -> Callable[[int, Any], None]:
    """A function writing one env's observation into the arena regions ``prefix<i>``."""
    if len(obs_leaves) == 1 and not obs_leaves[0].path and not obs_leaves[0].is_object:
        return _row_writer(arrays[f"{prefix}0"])
    parts: list[tuple[Callable[[Any], Any], Callable[[int, Any], None]]] = []
    for i, leaf in enumerate(obs_leaves):
        name = f"{prefix}{i}"
        if leaf.is_object:
            parts.append((getter(leaf.path), _object_writer(name, arrays[name], arrays[f"{name}_len"], pipe)))
        else:
            parts.append((getter(leaf.path), _row_writer(arrays[name])))

    def write_nested(env_id: int, obs: Any) -> None:
        for get, put in parts:
            put(env_id, get(obs))

    return write_nested


def _object_writer(name: str, data: np.ndarray, lengths: np.ndarray, pipe: ParentPipe) -> Callable[[int, Any], None]:
    """Pickle into the env's byte slot; a value that does not fit goes through the pipe."""
    room = data.shape[1]

    def put(env_id: int, value: Any) -> None:
        blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        if len(blob) <= room:
            data[env_id, : len(blob)] = np.frombuffer(blob, dtype=np.uint8)
            lengths[env_id] = len(blob)
        else:
            lengths[env_id] = -1
            pipe.large_object(env_id, name, value)

    return put


def _row_writer(out: np.ndarray) -> Callable[[int, Any], None]:
    shape = out.shape[1:]

    def put(env_id: int, value: Any) -> None:
        check_obs_row(value, shape)
        out[env_id] = value

    return put


def check_obs_row(value: Any, shape: tuple[int, ...]) -> None:
    """ValueError unless ``value`` is one env's observation of ``shape`` holding numbers: numpy
    would broadcast a scalar or a shorter row into the arena's row, and write None as NaN, where
    Gymnasium's vector envs refuse them."""
    if value is None:
        raise ValueError("the env returned None as its observation")
    got = np.shape(value)
    if got != shape:
        raise ValueError(f"the env returned an observation of shape {got}; the space's is {shape}")
    kind = value.dtype.kind if isinstance(value, np.ndarray | np.generic) else np.asarray(value).dtype.kind
    if kind not in "biuf":
        raise ValueError(f"the env returned an observation of dtype {np.asarray(value).dtype}, not numbers")


def _action_reader(space: Any, arrays: list[np.ndarray], act_leaves: list[Leaf]) -> Callable[[int], Any]:
    """One env's action, as Gymnasium's ``iterate`` gives it (numpy scalars, row copies)."""

    def one(arr: np.ndarray, leaf: Leaf) -> Callable[[int], Any]:
        if leaf.shape:
            return lambda env_id: arr[env_id].copy()
        return lambda env_id: arr[env_id]  # a numpy scalar, as iterating a batch gives

    readers = [one(arr, leaf) for arr, leaf in zip(arrays, act_leaves, strict=True)]
    if len(readers) == 1 and not act_leaves[0].path:
        return readers[0]
    return lambda env_id: nest(space, [r(env_id) for r in readers])


def _block_reader(
    space: Any, arrays: list[np.ndarray], act_leaves: list[Leaf], lo: int, hi: int
) -> Callable[[], list[Any]]:
    """Every action of the block, one numpy operation per leaf (rows of a fresh copy)."""
    if len(arrays) == 1 and not act_leaves[0].path:
        block = arrays[0][lo:hi]
        if act_leaves[0].shape:
            return lambda: list(block.copy())
        return lambda: list(block)
    blocks = [arr[lo:hi] for arr in arrays]

    def nested() -> list[Any]:
        columns = [list(b.copy()) if leaf.shape else list(b) for b, leaf in zip(blocks, act_leaves, strict=True)]
        return [nest(space, values) for values in zip(*columns, strict=True)]

    return nested
