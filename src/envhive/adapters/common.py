"""What the trainer adapters share: a pool from a task id or a PyEnv class, and the checks that
refuse a pool a trainer cannot consume, with the fix in the message."""

from __future__ import annotations

from typing import Any

from gymnasium.vector import AutoresetMode

from envhive.authoring import PyEnv, compile_env
from envhive.process import ProcessVectorEnv
from envhive.registry import EnvhivePool, backend_for
from envhive.vector import HiveVectorEnv

MODE_NAMES = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


def make_pool(task_id: str | type[PyEnv], **kwargs: Any) -> HiveVectorEnv | ProcessVectorEnv:
    """``envhive.make``: a pool of ``task_id`` (a PyEnv class is compiled and registered first;
    a Gymnasium id without a native task runs on the process backend)."""
    if isinstance(task_id, str) and backend_for(task_id) == "process":
        return ProcessVectorEnv(task_id, **kwargs)
    return HiveVectorEnv(task_id if isinstance(task_id, str) else compile_env(task_id), **kwargs)


def require_full_batches(pool: EnvhivePool, trainer: str, fix: str) -> None:
    """Refuse an async pool: every trainer here steps all of its envs each call."""
    if pool.batch_size != pool.num_envs:
        raise ValueError(
            f"{trainer} steps every env at once; an async pool (batch_size={pool.batch_size} < "
            f"num_envs={pool.num_envs}) cannot feed it: {fix}"
        )


def require_mode(kwargs: dict[str, Any], wanted: AutoresetMode, trainer: str, why: str) -> None:
    """Take ``autoreset_mode`` out of a trainer's pool kwargs, refusing any mode but ``wanted``."""
    mode = kwargs.pop("autoreset_mode", None)
    if mode is not None and mode != wanted and mode != MODE_NAMES[wanted]:
        raise ValueError(
            f"{trainer} consumes {wanted.name} autoreset ({why}), so this pool always runs "
            f"autoreset_mode={MODE_NAMES[wanted]!r}; got autoreset_mode={mode!r}: drop it"
        )
