"""What the trainer adapters share: pools made the one way (``envhive.pools.make_pool``), and the
checks that refuse a pool a trainer cannot consume, with the fix in the message."""

from __future__ import annotations

from typing import Any

from gymnasium.vector import AutoresetMode

from envhive.checks import AUTORESET_NAMES, require_autoreset
from envhive.pools import make_pool
from envhive.vector import HiveVectorEnv

__all__ = ["MODE_NAMES", "make_pool", "require_full_batches", "require_mode"]

MODE_NAMES = AUTORESET_NAMES  # each mode by its envhive name


def require_full_batches(pool: HiveVectorEnv, trainer: str, fix: str) -> None:
    """Refuse an async pool: every trainer here steps all of its envs each call."""
    if pool.batch_size != pool.num_envs:
        raise ValueError(
            f"{trainer} steps every env at once; an async pool (batch_size={pool.batch_size} < "
            f"num_envs={pool.num_envs}) cannot feed it: {fix}"
        )


def require_mode(kwargs: dict[str, Any], wanted: AutoresetMode, trainer: str, why: str) -> None:
    """Take ``autoreset_mode`` out of a trainer's pool kwargs, refusing any mode but ``wanted``."""
    require_autoreset(kwargs.pop("autoreset_mode", None), wanted, trainer, why)
