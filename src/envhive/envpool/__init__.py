"""EnvPool's API on envhive's engine: ``import envhive.envpool as envpool`` runs EnvPool 1.2 user code.

    import envhive.envpool as envpool
    env = envpool.make("Pong-v5", env_type="gym", num_envs=8, batch_size=4, episodic_life=True)
    env.async_reset()
    obs, rew, term, trunc, info = env.recv()
    env.send(env.action_space.sample() * np.ones(4, dtype=np.int32), info["env_id"])

This module keeps EnvPool's conventions where they differ from Gymnasium's (``envhive.make`` stays
Gymnasium-correct): ``observation_space`` / ``action_space`` are the single-env spaces, rewards
are float32, ``info`` has ``players`` and Atari's ``ram`` / int32 ``terminated``, ``reset(env_id)``
and ``step(action, env_id)`` take env ids (a subset too, in sync mode), ``recv(reset, return_info)``,
``make(task_id, env_type, ...)`` / ``make_gym`` / ``make_gymnasium`` / ``make_dm`` / ``make_spec``
with EnvPool's spec object, EnvPool's task ids (``phys2d/CartPole-v1``, ``Ant-v3``, ``TicTacToe3d-v5``,
...) and kwargs (MuJoCo's ``healthy_z_min`` / ``healthy_z_max``, ``use_contact_force``, ...), and bad
arguments raise exceptions that are also ``AssertionError`` (what EnvPool raises). What still differs
is listed in docs/envpool-migration.md.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any, TypeAlias

from envhive.envpool.api import EnvPoolApi, GymnasiumEnvPool
from envhive.envpool.dm import dm_env_pool_class
from envhive.envpool.errors import EnvPoolArgumentError, EnvPoolUnknownTaskError
from envhive.envpool.kwargs import RENDER_KWARGS, check_render, list_all_envs
from envhive.envpool.spec import ArraySpec, EnvSpec, make_spec, spec_of

# The EnvPool release whose API this module follows (envhive's own version: envhive.__version__).
__version__ = "1.2.5"

EnvPool = GymnasiumEnvPool  # EnvPool's protocol name for its envs

if TYPE_CHECKING:
    DMEnvPool: TypeAlias = Any
elif importlib.util.find_spec("dm_env") is not None:
    DMEnvPool = dm_env_pool_class()  # EnvPool's dm facade class (dm-env is the optional [dm] extra)


def __getattr__(name: str) -> Any:
    if name == "DMEnvPool":  # dm-env is not installed: say so
        return dm_env_pool_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_gymnasium(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """EnvPool's gymnasium facade of ``task_id`` (EnvPool's kwargs, or envhive's): a HiveVectorEnv
    with EnvPool's conventions (single-env spaces, float32 rewards, ``players``, ``reset(env_id)``)."""
    render = {k: kwargs.pop(k) for k in RENDER_KWARGS if k in kwargs}
    mode, render_env_id = check_render(task_id, render, kwargs)
    return EnvPoolApi.make(spec_of(task_id, kwargs), render_mode=mode, render_env_id=render_env_id)


def make_gym(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """EnvPool 1.2's ``make_gym``: the gymnasium facade (EnvPool dropped the old gym API)."""
    return make_gymnasium(task_id, **kwargs)


def make_dm(task_id: str, **kwargs: Any) -> DMEnvPool:
    """EnvPool's dm_env facade of ``task_id`` (needs the ``[dm]`` extra)."""
    render = {k: kwargs.pop(k) for k in RENDER_KWARGS if k in kwargs}
    mode, render_env_id = check_render(task_id, render, kwargs)
    return dm_env_pool_class()(spec_of(task_id, kwargs), render_mode=mode, render_env_id=render_env_id)


def make(task_id: str, env_type: str, **kwargs: Any) -> Any:
    """EnvPool's ``make``: ``env_type`` is ``"gymnasium"`` / ``"gym"`` (the gymnasium facade) or ``"dm"``."""
    if env_type == "dm":
        return make_dm(task_id, **kwargs)
    if env_type in ("gym", "gymnasium"):
        return make_gymnasium(task_id, **kwargs)
    raise EnvPoolArgumentError("env_type should be one of 'dm', 'gym', or 'gymnasium'.")


__all__ = [  # EnvPool's order first
    "EnvSpec",
    "EnvPool",
    *(["DMEnvPool"] if importlib.util.find_spec("dm_env") is not None else []),
    "GymnasiumEnvPool",
    "EnvPoolArgumentError",
    "EnvPoolUnknownTaskError",
    "list_all_envs",
    "make",
    "make_dm",
    "make_gym",
    "make_gymnasium",
    "make_spec",
    "ArraySpec",
]
