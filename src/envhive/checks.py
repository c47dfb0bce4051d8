"""The checks of a call's arguments that every backend shares, written once: timeouts, reset masks,
seeds, env ids. The facade (``envhive.vector.HiveVectorEnv``) runs them before any backend sees a
call; a backend receives only values that passed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

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


def resolve_seeds(seed: Any, num_envs: int) -> list[int] | None:
    """int -> [seed + i]; sequence -> one per env; None -> None (fresh entropy)."""
    if seed is None:
        return None
    if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
        seeds = [int(seed) + i for i in range(num_envs)]
    elif isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str):
        if len(seed) != num_envs:
            raise ValueError(f"seed sequence must have num_envs={num_envs} entries, got {len(seed)}")
        seeds = list(seed)
        for s in seeds:
            if not isinstance(s, int | np.integer) or isinstance(s, bool):
                raise TypeError(f"seeds must be ints, got {s!r}")
        seeds = [int(s) for s in seeds]
    else:
        raise TypeError(f"seed must be an int, a sequence of num_envs ints or None, got {seed!r}")
    for s in seeds:
        if not 0 <= s < 2**64:
            raise ValueError(f"seeds must be in [0, 2**64), got {s}")
    return seeds


def reset_seeds(seed: Any, num_envs: int, mask: np.ndarray | None = None) -> dict[int, int]:
    """``reset(seed=)`` as {env id: seed}: an int seeds env i with ``seed + i``; a sequence gives
    one seed (or None: not reseeded) per env; None reseeds nothing. Only envs ``mask`` selects."""
    if seed is None:
        return {}
    if isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str):
        if len(seed) != num_envs:
            raise ValueError(f"seed sequence must have num_envs={num_envs} entries, got {len(seed)}")
        pairs = [(i, s) for i, s in enumerate(seed) if s is not None]
        resolved = resolve_seeds([s for _, s in pairs], len(pairs)) or []
        seeds = {i: s for (i, _), s in zip(pairs, resolved, strict=True)}
    else:
        seeds = dict(enumerate(resolve_seeds(seed, num_envs) or []))
    if mask is not None:
        seeds = {i: s for i, s in seeds.items() if mask[i]}
    return seeds
