"""TorchRL: a native ``EnvBase`` over envhive's pool.

    from torchrl.collectors import Collector
    from envhive.adapters.torchrl import make_env

    env = make_env("CartPole-v1", num_envs=8, seed=0)      # batch_size=[8]
    collector = Collector(env, policy=None, frames_per_batch=256, total_frames=10_000)

Why not ``GymWrapper``: it reads a Gymnasium vector env through per-step Python conversion and
refuses NEXT_STEP pools. This env hands the pool's arrays to torch without copying them
(``torch.from_numpy``: observations, done flags and task infos -- under ``"info"`` -- share the
pool's memory; rewards become float32, TorchRL's convention) and works with a pool in any autoreset mode:

- DISABLED (what :func:`make_env` builds): TorchRL resets ended envs itself, through a partial
  ``reset`` (its ``"_reset"`` mask) that becomes the pool's ``reset(options={"reset_mask": ...})``.
- NEXT_STEP: the same partial reset, which also cancels the pool's pending autoreset.
- SAME_STEP: the pool already restarted the ended envs inside the step; the step returns their
  terminal observations as ``("next", "observation")`` and the following partial reset hands
  back the observations the pool restarted them with, without another pool call.

An env whose step raised :class:`envhive.EnvError` starts a new episode on its next step in
every mode (DISABLED pools need a partial reset for it: the next ``step`` does that first).

Discrete actions are one-hot by default, like ``GymWrapper`` (``categorical_action_encoding=True``
for integer actions). ``set_seed(s)`` seeds env ``i`` with ``s + i`` at the next reset.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import torch
from gymnasium.vector import AutoresetMode
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Bounded, Categorical, Composite, OneHot, Unbounded
from torchrl.envs import EnvBase

from envhive.adapters.common import make_pool, require_full_batches
from envhive.authoring import PyEnv
from envhive.errors import EnvError
from envhive.vector import HiveVectorEnv

_TORCH_DTYPES = {
    np.dtype(np.float32): torch.float32,
    np.dtype(np.float64): torch.float64,
    np.dtype(np.uint8): torch.uint8,
    np.dtype(np.int8): torch.int8,
    np.dtype(np.int16): torch.int16,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.int64): torch.int64,
    np.dtype(np.bool_): torch.bool,
}


def make_env(
    task_id: str | type[PyEnv],
    num_envs: int = 1,
    *,
    categorical_action_encoding: bool = False,
    **kwargs: Any,
) -> TorchRLEnv:
    """Build a pool of ``task_id`` for TorchRL (``envhive.make`` kwargs; DISABLED autoreset unless
    ``autoreset_mode`` says otherwise)."""
    kwargs.setdefault("autoreset_mode", "disabled")
    pool = make_pool(task_id, num_envs=num_envs, **kwargs)
    return TorchRLEnv(pool, categorical_action_encoding=categorical_action_encoding)


def _torch_dtype(dtype: np.dtype[Any]) -> torch.dtype:
    return _TORCH_DTYPES[np.dtype(dtype)]


def _box_spec(space: gymnasium.spaces.Box, batch: int) -> Bounded | Unbounded:
    shape = (batch, *space.shape)
    dtype = _torch_dtype(space.dtype)
    low, high = np.asarray(space.low), np.asarray(space.high)
    if np.issubdtype(space.dtype, np.floating) and not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        return Unbounded(shape=shape, dtype=dtype)
    low_t = torch.as_tensor(np.broadcast_to(low, space.shape).copy()).expand(shape).clone()
    high_t = torch.as_tensor(np.broadcast_to(high, space.shape).copy()).expand(shape).clone()
    return Bounded(low=low_t, high=high_t, shape=shape, dtype=dtype)


class TorchRLEnv(EnvBase):
    """A TorchRL env of ``batch_size=[num_envs]`` over a sync envhive pool (see the module doc)."""

    def __init__(self, pool: HiveVectorEnv, *, categorical_action_encoding: bool = False) -> None:
        if not isinstance(pool, HiveVectorEnv):
            raise TypeError(
                f"TorchRLEnv wraps an envhive pool (envhive.make(...), envhive.ray.RayVectorEnv(...)), "
                f"got {type(pool).__name__}; "
                "use envhive.adapters.torchrl.make_env(task_id, num_envs=...)"
            )
        require_full_batches(pool, "TorchRL", "build it with batch_size=num_envs (the default)")
        super().__init__(batch_size=torch.Size([pool.num_envs]), device=None)
        self.pool = pool
        self._mode = pool.metadata["autoreset_mode"]
        spec = pool.task_spec
        n = pool.num_envs
        discrete = isinstance(pool.single_action_space, gymnasium.spaces.Discrete)
        self._one_hot = discrete and not categorical_action_encoding
        self._info_keys = list(spec.info_fields)
        act = pool.single_action_space
        if isinstance(act, gymnasium.spaces.Discrete):
            self._action_start = int(act.start)
            if categorical_action_encoding:
                self.action_spec = Categorical(int(act.n), shape=(n,), dtype=torch.int64)
            else:
                self.action_spec = OneHot(int(act.n), shape=(n, int(act.n)), dtype=torch.bool)
        else:
            assert isinstance(act, gymnasium.spaces.Box)
            self._action_start = 0
            self.action_spec = _box_spec(act, n)
        obs = pool.single_observation_space
        assert isinstance(obs, gymnasium.spaces.Box)
        observation: dict[str, Any] = {"observation": _box_spec(obs, n)}
        if spec.info_fields:  # under "info": task infos may share names with TorchRL's keys ("terminated")
            infos = {
                k: Unbounded(shape=(n, *shape), dtype=_torch_dtype(dt)) for k, (dt, shape) in spec.info_fields.items()
            }
            observation["info"] = Composite(infos, shape=(n,))
        self.observation_spec = Composite(observation, shape=(n,))
        self.reward_spec = Unbounded(shape=(n, 1), dtype=torch.float32)
        self.done_spec = Composite(
            done=Categorical(2, shape=(n, 1), dtype=torch.bool),
            terminated=Categorical(2, shape=(n, 1), dtype=torch.bool),
            truncated=Categorical(2, shape=(n, 1), dtype=torch.bool),
            shape=(n,),
        )
        self._pending_seed: int | None = None
        # SAME_STEP: the observations the pool restarted ended envs with, for the next partial reset.
        self._restarted: tuple[np.ndarray, Any, dict[str, Any]] | None = None
        # DISABLED: envs whose last step raised EnvError, reset before the next step unless a reset came first.
        self._failed: np.ndarray | None = None

    # ------------------------------------------------------------------ EnvBase
    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        reset = None if tensordict is None else tensordict.get("_reset", None)
        mask = None if reset is None else reset.reshape(self.pool.num_envs, -1).any(-1).numpy()
        if mask is not None and mask.all():
            mask = None
        if self._failed is not None:
            self._failed = None if mask is None or not (self._failed & ~mask).any() else self._failed & ~mask
        seed, self._pending_seed = self._pending_seed, None
        restarted, self._restarted = self._restarted, None
        if mask is not None and seed is None and restarted is not None and not (mask & ~restarted[0]).any():
            _, obs, info = restarted  # SAME_STEP: these envs already restarted inside the last step
        elif mask is None:
            obs, info = self.pool.reset(seed=seed)
        else:
            obs, info = self.pool.reset(seed=seed, options={"reset_mask": mask})
        no_flags = np.zeros(self.pool.num_envs, dtype=bool)  # fresh: torch may write into what it gets
        return self._output(obs, info, no_flags, no_flags.copy(), None)

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        action = tensordict.get("action")
        if self._one_hot:  # one-hot rows -> indices; argmax takes no bools: view those as bytes (no copy)
            action = (action.view(torch.uint8) if action.dtype == torch.bool else action).argmax(-1)
        actions = action.numpy()
        if self._action_start:
            actions = actions + self._action_start
        self._restarted = None
        if self._failed is not None:
            failed, self._failed = self._failed, None
            self.pool.reset(options={"reset_mask": failed})
        try:
            obs, reward, terminated, truncated, info = self.pool.step(actions)
        except EnvError as e:
            if self._mode == AutoresetMode.DISABLED:
                self._failed = np.zeros(self.pool.num_envs, dtype=bool)
                self._failed[e.env_ids] = True
            raise
        if self._mode == AutoresetMode.SAME_STEP and "_final_obs" in info:
            ended = info["_final_obs"]
            self._restarted = (ended, obs, info)
            obs = obs.copy()  # the step reports each ended env's terminal observation
            final = info["final_obs"]
            final_info = info["final_info"]
            info = dict(info)
            for key in self._info_keys:
                info[key] = np.where(ended.reshape(-1, *([1] * (info[key].ndim - 1))), final_info[key], info[key])
            for i in np.flatnonzero(ended).tolist():
                obs[i] = final[i]
        return self._output(obs, info, terminated, truncated, reward)

    def _output(
        self,
        obs: np.ndarray,
        info: dict[str, Any],
        terminated: np.ndarray,
        truncated: np.ndarray,
        reward: np.ndarray | None,
    ) -> TensorDictBase:
        # numpy first, then torch.from_numpy (no copy): torch ops on tiny tensors cost microseconds each.
        out: dict[str, torch.Tensor] = {
            "observation": torch.from_numpy(obs),
            "done": torch.from_numpy((terminated | truncated)[:, None]),
            "terminated": torch.from_numpy(terminated[:, None]),
            "truncated": torch.from_numpy(truncated[:, None]),
        }
        if self._info_keys:
            infos = {key: torch.from_numpy(np.asarray(info[key])) for key in self._info_keys}
            out["info"] = TensorDict._new_unsafe(infos, batch_size=self.batch_size)
        if reward is not None:
            out["reward"] = torch.from_numpy(reward.astype(np.float32)[:, None])
        return TensorDict._new_unsafe(out, batch_size=self.batch_size)

    def _set_seed(self, seed: int | None) -> None:
        self._pending_seed = seed

    def close(self, *, raise_if_closed: bool = True) -> None:
        self.pool.close()
        super().close(raise_if_closed=raise_if_closed)

    def __repr__(self) -> str:
        return f"TorchRLEnv({self.pool!r}, autoreset_mode={self._mode.value})"
