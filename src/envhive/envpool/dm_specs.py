"""The dm_env side of EnvPool's specs: what EnvPool's dm facade observes (its ``State`` namedtuple
of ``env_id``, ``players.env_id``, ``obs`` -- a Dict observation's keys in its place, as EnvPool's
DMC tasks have them -- and the task's infos) and acts on, as dm_env specs.
dm-env is the optional ``[dm]`` extra: imported when a spec is first asked for.
"""

from __future__ import annotations

import collections
import functools
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces

from envhive.errors import MissingExtraError


class Players(NamedTuple):
    env_id: Any


Players.__name__ = Players.__qualname__ = "players"  # EnvPool's name for it


def info_names(spec: Any) -> list[str]:
    """The task's info fields EnvPool reports (its dm facade has no ``discount`` field)."""
    return [name for name in spec.task_spec.info_fields if name != "discount"]


def obs_keys(spec: Any) -> list[str] | None:
    """The keys of a Dict observation (each a field of EnvPool's dm ``State``), else None."""
    obs = spec.observation_space
    return list(obs.spaces) if isinstance(obs, spaces.Dict) else None


def state_type(spec: Any) -> Any:
    """EnvPool's ``State`` namedtuple type of a spec's dm observation: env_id, players, obs (or a Dict
    observation's keys), the infos."""
    keys = obs_keys(spec)
    return collections.namedtuple("State", ["env_id", "players", *(keys or ["obs"]), *info_names(spec)])


@functools.cache
def dm_env_modules() -> Any:
    """``dm_env`` (with ``dm_env.specs``), or MissingExtraError naming the extra."""
    try:
        import dm_env
        import dm_env.specs
    except ImportError as e:
        raise MissingExtraError(f'the dm_env facade needs dm-env: pip install "envhive[dm]" ({e})') from e
    return dm_env


def _field_spec(name: str, s: Any) -> Any:
    dm_env = dm_env_modules()
    shape = tuple(d for d in s.shape if d != -1)
    if np.issubdtype(s.dtype, np.integer) and not shape and s.minimum == 0 and s.maximum < 2**20:
        return dm_env.specs.DiscreteArray(int(s.maximum) + 1, dtype=s.dtype, name=name)
    return dm_env.specs.BoundedArray(shape, s.dtype, s.minimum, s.maximum, name=name)


def observation_spec(spec: Any) -> Any:
    """dm_env specs of what the dm facade's ``TimeStep.observation`` holds."""
    arrays = spec.state_array_spec
    infos = {k[5:]: _field_spec(k[5:], v) for k, v in arrays.items() if k[5:] in info_names(spec)}
    keys = obs_keys(spec)
    obs = {k: _field_spec(k, arrays[f"obs:{k}"]) for k in keys} if keys else {"obs": _field_spec("obs", arrays["obs"])}
    return state_type(spec)(
        env_id=_field_spec("env_id", arrays["info:env_id"]),
        players=Players(_field_spec("env_id", arrays["info:players.env_id"])),
        **obs,
        **infos,
    )


def action_spec(spec: Any) -> Any:
    """The dm_env spec of one env's action."""
    dm_env = dm_env_modules()
    s = spec.action_array_spec["action"]
    if isinstance(spec.action_space, spaces.Discrete) and s.minimum == 0:
        return dm_env.specs.DiscreteArray(int(s.maximum) + 1, dtype=np.int32, name="action")
    return dm_env.specs.BoundedArray(tuple(s.shape[1:]), s.dtype, s.minimum, s.maximum, name="action")
