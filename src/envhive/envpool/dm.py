"""EnvPool's dm_env facade (``make_dm``): batched TimeSteps whose ``observation`` is EnvPool's
``State`` namedtuple (``obs``, ``env_id``, ``players.env_id``, the task's infos), float32 rewards
and discounts, over a HiveVectorEnv with EnvPool's conventions (``EnvPoolApi``). ``discount`` is 0
where an episode terminated (and on a lost life with ``zero_discount_on_life_loss``) and 1 where the
time limit truncated it (EnvPool: 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envhive.envpool.api import EnvPoolApi
from envhive.envpool.dm_specs import Players, action_spec, dm_env_modules, observation_spec, state_type
from envhive.envpool.errors import EnvPoolArgumentError
from envhive.envpool.spec import EnvSpec

_FIRST, _MID, _LAST = 0, 1, 2  # dm_env.StepType's values


class _DMEnvPool:
    """The body of EnvPool's ``DMEnvPool``; :func:`dm_env_pool_class` makes it a
    ``dm_env.Environment`` once dm-env is importable (the optional ``[dm]`` extra)."""

    def __init__(self, spec: EnvSpec, render_mode: str | None = None, render_env_id: int = 0) -> None:
        if spec.task_spec.pool.autoreset_mode != AutoresetMode.NEXT_STEP:
            raise EnvPoolArgumentError("the dm_env facade follows dm_env's own autoreset: omit autoreset_mode")
        self._dm_env = dm_env_modules()
        self.env = EnvPoolApi.make(spec, render_mode, render_env_id)
        api = self.env._api
        assert isinstance(api, EnvPoolApi)
        self._api = api
        self.spec = spec
        self._n = self.env.num_envs
        self._state = state_type(spec)
        self._ended = np.zeros(self._n, dtype=bool)  # each env's last row ended its episode

    # --- EnvPool's attributes
    @property
    def config(self) -> dict[str, Any]:
        return self._api.config

    def __len__(self) -> int:
        return self._n

    @property
    def all_env_ids(self) -> np.ndarray:
        return self.env.all_env_ids

    @property
    def is_async(self) -> bool:
        return self.env.is_async

    def seed(self, seed: int | list[int] | None = None) -> None:
        self._api.seed(seed)

    def xla(self) -> Any:
        """EnvPool's ``(handle, recv, send, step)`` whose states are this facade's TimeSteps (JAX
        arrays; step types from the flags and ``elapsed_step``, as the pool's own dm calls)."""
        from envhive.xla import make_xla  # jax is an optional extra: imported on first use

        return make_xla(self.env, self._xla_timestep)

    def _xla_timestep(self, obs: Any, reward: Any, terminated: Any, truncated: Any, info: dict[str, Any]) -> Any:
        ended = terminated | truncated
        step_type = (ended * _LAST + (~ended & (info["elapsed_step"] != 0)) * _MID).astype(np.int32)
        discount = (1 - terminated).astype(np.float32)
        if "discount" in info:  # the task's own (Atari's zero_discount_on_life_loss)
            discount = discount.clip(None, info["discount"].astype(np.float32))
        return self._dm_env.TimeStep(
            step_type=step_type,
            reward=reward.astype(np.float32),
            discount=discount,
            observation=self._observation(obs, info),
        )

    def render(self, env_ids: Any = None, camera_id: int | None = None) -> np.ndarray:
        return self._api.render(env_ids, camera_id)

    def close(self, **kwargs: Any) -> None:
        self.env.close()

    def __repr__(self) -> str:
        return self._api.describe().replace("EnvPool(", "DMEnvPool(", 1)

    __str__ = __repr__

    # --- dm_env
    def reset(self, env_id: Any = None) -> Any:
        obs, info, _ = self._api.reset_rows(env_id, None, None)
        self._ended[np.asarray(info["env_id"])] = False
        rows = len(info["env_id"])
        return self._dm_env.TimeStep(
            step_type=np.full(rows, _FIRST, dtype=np.int32),
            reward=np.zeros(rows, dtype=np.float32),
            discount=np.ones(rows, dtype=np.float32),
            observation=self._observation(obs, info),
        )

    def step(self, action: Any, env_id: Any = None) -> Any:
        return self._timestep(*self._api.step_rows(action, env_id))

    def send(self, action: Any, env_id: Any = None) -> None:
        self._api.send_rows(action, env_id)

    def recv(self, reset: bool = False, return_info: bool = True, timeout: float | None = None) -> Any:
        return self._timestep(*self._api.recv_rows(timeout))

    def async_reset(self) -> None:
        self._api.forget_pending()
        self._ended[:] = False
        self.env._async_reset(None, None)
        self._api.mark_started()

    def observation_spec(self) -> Any:
        return observation_spec(self.spec)

    def action_spec(self) -> Any:
        return action_spec(self.spec)

    def _observation(self, obs: Any, info: dict[str, Any]) -> Any:
        info = self._api.info(info)
        env_ids = info["env_id"]
        extra = {k: v for k, v in info.items() if k in self._state._fields and k not in ("env_id", "players")}
        fields = obs if isinstance(obs, dict) else {"obs": obs}  # a Dict observation: its keys (EnvPool's DMC)
        return self._state(env_id=env_ids, players=Players(env_ids), **fields, **extra)

    def _timestep(
        self, obs: Any, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray, info: dict[str, Any]
    ) -> Any:
        ids = np.asarray(info["env_id"])
        ended = terminated | truncated
        restarted = self._ended[ids] | ((info["elapsed_step"] == 0) & ~ended)
        self._ended[ids] = ended
        step_type = np.where(ended, _LAST, np.where(restarted, _FIRST, _MID)).astype(np.int32)
        discount = np.where(terminated, 0.0, 1.0).astype(np.float32)
        if "discount" in info:  # the task's own (Atari's zero_discount_on_life_loss)
            discount = np.minimum(discount, info["discount"]).astype(np.float32)
        return self._dm_env.TimeStep(
            step_type=step_type,
            reward=reward.astype(np.float32),
            discount=discount,
            observation=self._observation(obs, info),
        )


def dm_env_pool_class() -> type:
    """EnvPool's ``DMEnvPool``: the facade above as a ``dm_env.Environment`` (needs dm-env)."""
    global _CLASS
    if _CLASS is None:
        dm_env = dm_env_modules()
        _CLASS = type(
            "DMEnvPool", (_DMEnvPool, dm_env.Environment), {"__doc__": __doc__, "__module__": "envhive.envpool"}
        )
    return _CLASS


_CLASS: type | None = None
