"""The checks of a call's arguments that every backend shares, written once: timeouts, reset masks,
seeds, env ids, actions. The facade (``envhive.vector.HiveVectorEnv``) runs them before any backend sees a
call; a backend receives only values that passed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from envhive.call_rules import message
from envhive.leaves import Leaf, flat_values, leaves

# A timeout this long (about 31 years) or longer is no deadline.
NO_DEADLINE_SECONDS = 1e9


def check_timeout(timeout: Any) -> float | None:
    """``recv(timeout=)``: seconds >= 0 (int or float); None, inf or anything past
    :data:`NO_DEADLINE_SECONDS`: no deadline."""
    if timeout is None:
        return None
    if isinstance(timeout, bool | np.bool_) or not isinstance(timeout, int | float | np.integer | np.floating):
        raise TypeError(f"timeout must be a number of seconds or None, got {timeout!r}")
    if isinstance(timeout, int | np.integer):
        if timeout < 0:
            raise ValueError(f"timeout must be >= 0, got {timeout}")
        return None if timeout >= NO_DEADLINE_SECONDS else float(timeout)
    seconds = float(timeout)
    if math.isnan(seconds):
        raise ValueError("timeout must be a number of seconds, got nan")
    if seconds < 0:
        raise ValueError(f"timeout must be >= 0, got {seconds}")
    return None if seconds >= NO_DEADLINE_SECONDS else seconds


def check_reset_mask(mask: Any, num_envs: int) -> np.ndarray:
    """``options["reset_mask"]`` as Gymnasium's vector envs take it: a bool array of ``num_envs``
    with at least one True (with Gymnasium's messages)."""
    if not isinstance(mask, np.ndarray):
        raise TypeError(f"options['reset_mask'] must be a numpy array, got {type(mask)}")
    if mask.shape != (num_envs,):
        raise ValueError(f"options['reset_mask'] must have shape ({num_envs},), got {mask.shape}")
    if mask.dtype != np.bool_:
        raise TypeError(f"options['reset_mask'] must have dtype bool, got {mask.dtype}")
    if not mask.any():
        raise ValueError("options['reset_mask'] must contain at least one True value")
    return mask


def env_seeds(seed: Any, num_envs: int, mask: np.ndarray | None = None) -> dict[int, int]:
    """``seed=`` of a pool (``make``) and of ``reset`` in the one shape every backend takes, checked
    once, here: ``{env id: seed}``. An int ``s`` seeds env ``i`` with ``s + i``; a sequence gives one
    seed (or None) per env; an env without a seed draws fresh OS entropy (a new pool) or goes on
    with its stream (a reset). Only the envs ``mask`` selects."""
    if seed is None:
        return {}
    if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
        seeds = {i: int(seed) + i for i in range(num_envs)}
    elif isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str):
        if len(seed) != num_envs:
            raise ValueError(f"seed sequence must have num_envs={num_envs} entries, got {len(seed)}")
        seeds = {}
        for i, s in enumerate(seed):
            if s is None:
                continue
            if not isinstance(s, int | np.integer) or isinstance(s, bool):
                raise TypeError(f"seeds must be ints (or None), got {s!r}")
            seeds[i] = int(s)
    else:
        raise TypeError(f"seed must be an int, a sequence of num_envs ints or None, got {seed!r}")
    for s in seeds.values():
        if not 0 <= s < 2**64:
            raise ValueError(f"seeds must be in [0, 2**64), got {s}")
    if mask is not None:
        seeds = {i: s for i, s in seeds.items() if mask[i]}
    return seeds


def seed_list(seeds: dict[int, int], ids: range) -> list[int | None]:
    """``seeds`` of the envs ``ids`` as the public ``seed=`` sequence (None: not seeded), e.g. a
    Ray shard's own pool's."""
    return [seeds.get(i) for i in ids]


def check_env_ids(env_id: Any, num_envs: int) -> np.ndarray | None:
    """``env_id`` of a call as int64 ids: an int or a 1-D array of distinct ints in range; None
    (every env) stays None. The native pool checks the same in C++ (call_front.h)."""
    if env_id is None:
        return None
    ids = np.asarray(env_id)
    if ids.ndim > 1:
        raise ValueError(message("env_id_form", what="env_id"))
    if ids.size and (not np.issubdtype(ids.dtype, np.integer) or ids.dtype == np.bool_):
        raise TypeError(message("env_id_integers", what="env_id", got=f", got dtype {ids.dtype}"))
    ids = ids.reshape(-1).astype(np.int64)
    if ids.size:
        bad = (ids < 0) | (ids >= num_envs)
        if bad.any():
            raise ValueError(
                message("env_id_range", what="env_id", env=int(ids[np.flatnonzero(bad)[0]]), num_envs=num_envs)
            )
        values, counts = np.unique(ids, return_counts=True)
        if (counts > 1).any():
            raise ValueError(message("env_id_twice", what="env_id", env=int(values[counts > 1][0]), call="send()"))
    return ids


class ActionCheck:
    """Actions for ``n`` envs checked against the single-env action space, leaf by leaf (Dict and
    Tuple actions are dicts / tuples of batched leaves): the structure, each leaf's shape
    ``(n, *shape)``, its dtype kind, Discrete / MultiDiscrete / MultiBinary ranges, and real values
    finite in the leaf's own dtype. Returns one array per leaf, real leaves cast to their dtype.
    Backends that do not check calls themselves get actions through it; the native pool applies
    the same rules, with the same messages, in C++ (csrc/bindings/call_front.h)."""

    def __init__(self, space: spaces.Space[Any]) -> None:
        self.space = space
        self.leaves = leaves(space, "action", where="envhive")
        self.single = len(self.leaves) == 1 and not self.leaves[0].path

    def __call__(self, actions: Any, n: int, ids: np.ndarray | None) -> list[np.ndarray]:
        if actions is None:
            raise TypeError(message("actions_missing"))
        if self.single:
            return [check_leaf(self.leaves[0], actions, n, ids)]
        values = flat_values(self.space, actions, "actions")
        return [check_leaf(leaf, value, n, ids) for leaf, value in zip(self.leaves, values, strict=True)]


def check_leaf(leaf: Leaf, value: Any, n: int, ids: np.ndarray | None) -> np.ndarray:
    """One action leaf for ``n`` envs (``ids``: their env ids, None: 0..n-1), checked (ActionCheck)."""
    space = leaf.space
    arr = value if type(value) is np.ndarray else np.asarray(value)
    if arr.shape != (n, *leaf.shape):
        raise ValueError(message("action_shape", where=leaf.where, expected=(n, *leaf.shape), got=arr.shape))
    kind = arr.dtype.kind
    if isinstance(space, spaces.Box):
        if kind not in "iuf":
            raise TypeError(message("action_reals", dtype=arr.dtype))
        if leaf.dtype.kind == "f":
            if arr.dtype != leaf.dtype:
                with np.errstate(over="ignore", invalid="ignore"):
                    cast = arr.astype(leaf.dtype)
            else:
                cast = arr
            finite = np.isfinite(cast)
            if not finite.all():
                row = int(np.flatnonzero(~finite.reshape(n, -1).all(axis=1))[0])
                env = row if ids is None else int(ids[row])
                given = arr[row]
                if np.isfinite(given).all():
                    raise ValueError(message("action_overflows", env=env, dtype=leaf.dtype, value=given))
                raise ValueError(message("action_not_finite", env=env, value=given))
            return cast
        return arr
    if kind not in "iu" or arr.dtype == np.bool_ and not isinstance(space, spaces.MultiBinary):
        raise TypeError(message("action_integers", space=type(space).__name__, dtype=arr.dtype))
    if not arr.dtype.isnative:  # the other byte order: compare values, not bytes
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if isinstance(space, spaces.Discrete):
        low, high = int(space.start), int(space.start) + int(space.n)
        if n == 0 or _in_range(arr, low, high):
            return arr
        row = int(np.flatnonzero((arr < low) | (arr >= high))[0])
        env = row if ids is None else int(ids[row])
        start = f", start={low}" if low else ""
        raise ValueError(
            message("action_discrete", action=arr[row], env=env, n=int(space.n), start=start, low=low, high=high - 1)
        )
    low_b: Any = space.start if isinstance(space, spaces.MultiDiscrete) else 0
    high_b: Any = space.start + space.nvec if isinstance(space, spaces.MultiDiscrete) else 2
    bad = (arr < low_b) | (arr >= high_b)
    if bad.any():
        row = int(np.flatnonzero(bad.reshape(n, -1).any(axis=1))[0])
        env = row if ids is None else int(ids[row])
        raise ValueError(message("action_outside", action=arr[row], env=env, space=space))
    return arr


def _in_range(arr: np.ndarray, low: int, high: int) -> bool:
    """``low <= arr < high`` everywhere, with one reduction: viewed as unsigned, a value below
    ``low`` wraps around to a huge one."""
    shifted = arr if low == 0 else arr - low
    if shifted.dtype.kind == "i":
        shifted = shifted.view(f"u{shifted.dtype.itemsize}")
    return bool(shifted.max() < high - low)


AUTORESET_NAMES = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}
"""Each Gymnasium autoreset mode by its envhive name (what kwargs, native modules and messages use)."""


def autoreset_mode(value: Any) -> AutoresetMode:
    """``autoreset_mode=``: a Gymnasium ``AutoresetMode``, its envhive name (``"next_step"``,
    ``"same_step"``, ``"disabled"``; any case) or its Gymnasium value (``"NextStep"``, ...). The one
    parser every facade, backend and adapter uses."""
    if isinstance(value, AutoresetMode):
        return value
    if isinstance(value, str):
        for mode, name in AUTORESET_NAMES.items():
            if value.lower() == name or value == mode.value:
                return mode
    raise ValueError(f"unknown autoreset_mode {value!r}; valid: {', '.join(map(repr, AUTORESET_NAMES.values()))}")


def require_autoreset(given: Any, wanted: AutoresetMode, who: str, why: str, fix: str | None = None) -> None:
    """Refuse an autoreset mode other than ``wanted`` for a consumer that takes only that one (the
    dm_env facade, rollout workers, trainers). ``given``: the mode asked for in kwargs (an
    ``AutoresetMode`` or any name :func:`autoreset_mode` takes; None: not given, which is fine), or
    with ``fix`` (how to make a suitable pool) the mode of a pool made already."""
    if given is None or autoreset_mode(given) == wanted:
        return
    shown = AUTORESET_NAMES[given] if isinstance(given, AutoresetMode) else given
    if fix is not None:
        raise ValueError(message("autoreset_only_pool", who=who, wanted=wanted.name, given=shown, fix=fix))
    name = repr(AUTORESET_NAMES[wanted])
    raise ValueError(message("autoreset_only", who=who, wanted=wanted.name, why=why, name=name, given=repr(shown)))
