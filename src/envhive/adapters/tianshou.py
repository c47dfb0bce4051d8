"""Tianshou: any envhive pool as the vector env Tianshou's ``Collector`` steps.

    from tianshou.data import Collector, VectorReplayBuffer
    from envhive.adapters.tianshou import TianshouVecEnv, make_env

    train_envs = make_env("CartPole-v1", num_envs=8, seed=0)        # envhive.make's kwargs
    test_envs = TianshouVecEnv(envhive.make("CartPole-v1", num_envs=4, seed=100, backend="process"))
    collector = Collector(algorithm, train_envs, VectorReplayBuffer(20_000, len(train_envs)))

Tianshou steps two kinds of vector env: its own (``DummyVectorEnv``, ``SubprocVectorEnv``, ...) and
EnvPool's. ``envhive.envpool`` pools follow EnvPool's conventions and go to a ``Collector`` as they
are. A pool of ``envhive.make`` follows Gymnasium's vector API, which Tianshou does not take; this
wrapper gives it the calls Tianshou's EnvPool path makes, with EnvPool's answers: ``len(env)``;
``reset(env_id=ids)`` and ``step(actions, ids)`` return the rows of ``ids``, in that order (the
Collector resets each env whose episode ended, and steps fewer envs than the pool has while it
collects ``n_episode`` episodes); ``observation_space`` / ``action_space`` are one env's; ``info`` is
one dict per env, Tianshou's own form, holding the task's infos as Gymnasium's env reports them
(without envhive's ``env_id`` and ``elapsed_step``: Tianshou turns every non-empty info into a
``Batch`` at every step, which costs more than CartPole's step itself).

A backend that can step some envs of a sync pool and hold the others (``capabilities.partial_step``:
the native pool) steps only ``ids``. A backend that steps every env at once (the process backend,
Ray's) steps the others too, with the action of ``ids[0]``, and drops their rows: the Collector has
set those envs aside until its next reset of every env (it resets them all after an ``n_episode``
collect). Stepping such an env again before resetting it raises an error naming it.

Autoreset: Tianshou resets an env whose episode ended itself, at once, with ``reset(env_id=...)``,
as on EnvPool; a NEXT_STEP pool (``envhive.make``'s default) drops its pending autoreset there. A
SAME_STEP pool is refused (its step that ends an episode reports the next episode's first
observation in place of the last one), and so is DISABLED on a backend that steps every env at once
(an env stepped while set aside could end its episode and stop the pool). Seeding: ``make_env(seed=s)``
(env ``i`` gets ``s + i``), or ``seed(s)`` -- what Tianshou's scripts call -- at the next full reset.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envhive.adapters.common import MODE_NAMES, make_pool, require_full_batches, require_mode
from envhive.checks import check_env_ids
from envhive.vector import HiveVectorEnv

TRAINER = "Tianshou's Collector"
TianshouStep = tuple[Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""``(obs, reward, terminated, truncated, info)``, ``info`` one dict per env (an object array)."""
_POOL_INFOS = frozenset({"env_id", "elapsed_step"})  # envhive's own: not passed to Tianshou (module doc)


class TianshouVecEnv:
    """Tianshou's vector-env calls over a sync envhive pool of any backend (the module doc)."""

    def __init__(self, pool: HiveVectorEnv) -> None:
        if not isinstance(pool, HiveVectorEnv):
            raise TypeError(f"TianshouVecEnv wraps an envhive pool (envhive.make(...)), got {type(pool).__name__}")
        require_full_batches(
            pool, TRAINER, "make the pool without batch_size (Tianshou's AsyncCollector takes its own vector envs)"
        )
        self._partial = pool.capabilities.partial_step
        mode = pool.autoreset_mode
        if mode == AutoresetMode.SAME_STEP or (mode == AutoresetMode.DISABLED and not self._partial):
            held = "" if mode == AutoresetMode.SAME_STEP else " on a backend that steps every env at once"
            raise ValueError(
                f"{TRAINER} resets each env whose episode ended itself (reset(env_id=...)), so the pool must not "
                f"autoreset it first: make it with autoreset_mode='next_step' (envhive.make's default), not "
                f"{MODE_NAMES[mode]!r}{held}"
            )
        self.pool = pool
        self.env_num = pool.num_envs
        self.observation_space = pool.single_observation_space
        self.action_space = pool.single_action_space
        self.is_async = False
        self._all_ids = np.arange(self.env_num)
        self._set_aside = np.zeros(self.env_num, dtype=np.bool_)  # stepped unasked, not reset since
        self._pending_seed: int | Sequence[int | None] | None = None

    def __len__(self) -> int:
        return self.env_num

    def seed(self, seed: int | Sequence[int | None] | None = None) -> list[int | None]:
        """Seeds for the next full reset (env ``i`` gets ``seed + i``; a list: one per env); returns them."""
        self._pending_seed = seed
        if seed is None:
            return [None] * self.env_num
        if isinstance(seed, int | np.integer):
            return [int(seed) + i for i in range(self.env_num)]
        return list(seed)

    def reset(
        self, env_id: Any = None, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, np.ndarray]:
        """Reset the envs ``env_id`` (default: every env) and return their rows, in env_id's order."""
        if env_id is None:
            if seed is None:
                seed, self._pending_seed = self._pending_seed, None
            self._set_aside[:] = False
            obs, info = self.pool.reset(seed=seed, options=options)
            return obs, self._infos(info, None)
        ids = check_env_ids(env_id, self.env_num)
        assert ids is not None
        mask = np.zeros(self.env_num, dtype=np.bool_)
        mask[ids] = True
        obs, info = self.pool.reset(seed=seed, options={**(options or {}), "reset_mask": mask})
        self._set_aside[ids] = False
        return _rows(obs, ids, self.env_num), self._infos(info, ids)

    def step(self, action: Any, id: Any = None) -> TianshouStep:  # noqa: A002  (Tianshou's name for the env ids)
        """Step the envs ``id`` (default: every env) and return their rows, in id's order."""
        ids = check_env_ids(id, self.env_num)
        if ids is not None and len(ids) == self.env_num and np.array_equal(ids, self._all_ids):
            ids = None
        self._refuse_set_aside(ids)
        if ids is None:
            obs, reward, terminated, truncated, info = self.pool.step(action)
            return obs, reward, terminated, truncated, self._infos(info, None)
        action = np.asarray(action)
        if self._partial:
            out = self.pool.step(action, ids, partial=True)
        else:  # every env steps: the others with ids[0]'s action, their rows dropped
            everyone = np.repeat(action[:1], self.env_num, axis=0)
            everyone[ids] = action
            self._set_aside |= ~np.isin(self._all_ids, ids)
            out = self.pool.step(everyone)
        obs, reward, terminated, truncated = (_rows(part, ids, self.env_num) for part in out[:4])
        return obs, reward, terminated, truncated, self._infos(out[4], ids)

    def _infos(self, info: dict[str, Any], ids: np.ndarray | None) -> np.ndarray:
        """One dict per env of ``ids`` (None: every env) from the pool's dict of arrays: the task's
        infos, each where Gymnasium's row mask (``_key``) has it."""
        rows = np.arange(self.env_num) if ids is None else ids
        out = np.empty(len(rows), dtype=object)
        out[:] = [{} for _ in range(len(rows))]
        for key, value in info.items():
            if key.startswith("_") or key in _POOL_INFOS:
                continue
            mask = info.get("_" + key)
            for k, row in enumerate(rows.tolist()):
                if mask is None or mask[row]:
                    out[k][key] = _rows(value, row, self.env_num)
        return out

    def _refuse_set_aside(self, ids: np.ndarray | None) -> None:
        """Refuse to step an env set aside (``ids``: the envs of the call; None: every env)."""
        aside = self._set_aside if ids is None else self._set_aside[ids]
        if aside.any():
            row = int(np.flatnonzero(aside)[0])
            raise ValueError(
                f"env {row if ids is None else int(ids[row])} was stepped unasked while the others stepped (this "
                "pool's backend steps every env at once), so its state is not the one last reported: reset it "
                "(reset(env_id=...)) before stepping it"
            )

    def render(self, **kwargs: Any) -> Any:
        return self.pool.render()

    def close(self) -> None:
        self.pool.close()

    def __repr__(self) -> str:
        return f"TianshouVecEnv({self.pool!r})"


def make_env(task: Any, num_envs: int, **kwargs: Any) -> TianshouVecEnv:
    """``num_envs`` envs of ``task`` (``envhive.make``'s tasks, backends and kwargs) for Tianshou."""
    require_mode(kwargs, AutoresetMode.NEXT_STEP, TRAINER, "it resets each env whose episode ended itself")
    return TianshouVecEnv(make_pool(task, num_envs=num_envs, **kwargs))


def _rows(value: Any, ids: np.ndarray | int, n: int) -> Any:
    """Rows ``ids`` (or one row) of a batch value (arrays with ``n`` rows; dicts and tuples of them, nested)."""
    if isinstance(value, dict):
        return {k: _rows(v, ids, n) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_rows(v, ids, n) for v in value)
    if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == n:
        return value[ids]
    return value
