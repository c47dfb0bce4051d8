"""EnvPool's conventions for a HiveVectorEnv's calls (``HiveVectorEnv.use_api``): what
``envhive.envpool.make_gym`` pools are -- envhive's one Gymnasium facade -- with EnvPool's manners.

Where EnvPool differs from Gymnasium: ``observation_space`` / ``action_space`` are the single-env
spaces; rewards are float32; ``info`` has ``players`` and EnvPool's dtypes (Atari's float32 ``reward``
and int32 ``terminated``, no ``discount``); ``reset(env_id)`` and ``step(action, env_id)`` take env
ids -- a subset too in sync mode, whose rows come back in env_id's order --; an env never reset is
reset by its first step (its action ignored); actions may be any numeric dtype (cast as EnvPool
casts them) or EnvPool's dict form; ``recv(reset=True)`` returns ``(obs, info)``; ``render(env_ids)``
stacks the frames of ``render_env_id`` by default.
"""

from __future__ import annotations

import pprint
import warnings
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from envhive.backend import Step
from envhive.call_rules import message
from envhive.envpool.errors import EnvPoolArgumentError
from envhive.envpool.spec import EnvSpec
from envhive.vector import HiveVectorEnv


class GymnasiumEnvPool(HiveVectorEnv, gymnasium.Env):  # type: ignore[misc]  # both Generic bases
    """EnvPool's gymnasium pool: envhive's one ``VectorEnv`` (nothing overridden: HiveVectorEnv's calls
    serve EnvPool's API through ``EnvPoolApi``), and a ``gymnasium.Env`` too, as EnvPool 1.2's pools
    are: ``gymnasium.Wrapper`` takes it (CleanRL's ``RecordEpisodeStatistics(gym.Wrapper)``)."""


class EnvPoolApi:
    """EnvPool's conventions over ``env``'s own calls (the module doc); ``env`` was made from
    ``spec.task_spec``."""

    attributes = frozenset({"config", "seed"})

    def __init__(self, env: HiveVectorEnv, spec: EnvSpec, render_mode: str | None, render_env_id: int = 0) -> None:
        self.env = env
        self.spec = spec
        self._n = env.num_envs
        self._async = env.is_async
        self._all_ids = np.arange(self._n, dtype=np.int32)
        if not 0 <= render_env_id < self._n:
            raise EnvPoolArgumentError(f"render_env_id {render_env_id} is not an env of this pool (0..{self._n - 1})")
        self._render_mode = render_mode
        self._render_env_id = render_env_id
        act = spec.task_spec.action_space
        self._discrete = isinstance(act, spaces.Discrete)
        # Arrays are cast to the pool's action dtype as EnvPool casts them (int64 is what the pool
        # converts Discrete actions to; EnvPool's float64 Box actions become the task's float32).
        self._act_dtype = np.dtype(np.int64) if self._discrete else np.dtype(act.dtype)
        self._act_kinds = "iu" if self._discrete else "fiu"  # what the pool converts itself
        self._casts = list(spec.casts.items())
        self._drop_discount = "discount" in spec.task_spec.info_fields
        self._pending_rows: np.ndarray | None = None  # a partial sync send(): the rows recv() returns
        # EnvPool resets an env on its first step when it was never reset: which envs were.
        self._started = np.zeros(self._n, dtype=np.bool_)
        self._all_started = False
        self._stashed: Step | None = None  # a sync send's first step
        self._initial: tuple[Any, dict[str, Any]] | None = None  # sync: the pool's first full reset
        self._fast_step = env._direct_step  # the env's own straight call, where it has one

    @classmethod
    def make(cls, spec: EnvSpec, render_mode: str | None = None, render_env_id: int = 0) -> GymnasiumEnvPool:
        """A HiveVectorEnv of ``spec``'s task serving EnvPool's API (``envpool.make_gym``)."""
        env = GymnasiumEnvPool(spec.task_spec)
        env.use_api(cls(env, spec, render_mode, render_env_id))
        env.spec = spec
        env.observation_space = env.single_observation_space
        env.action_space = env.single_action_space
        return env

    # --- EnvPool's attributes
    @property
    def config(self) -> dict[str, Any]:
        """EnvPool's config dict (``env.spec.config`` as a dict)."""
        return dict(self.spec.config._asdict())

    def seed(self, seed: int | list[int] | None = None) -> None:
        """EnvPool's abandoned ``seed()``: warns. Seed with ``make(..., seed=)`` or ``reset(seed=)``."""
        warnings.warn(
            "The `seed` function in envpool is abandoned. You can set seed by envpool.make(..., seed=seed) "
            "or reset(seed=seed) instead.",
            UserWarning,
            stacklevel=2,
        )

    def describe(self) -> str:
        config = ", ".join(f"{k}={pprint.pformat(v)}" for k, v in self.spec.config._asdict().items())
        return f"EnvPool({self.spec.id}, {config})"

    # --- the calls (VectorApi)
    def reset(
        self, env_id: Any = None, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the envs in ``env_id`` (default: all) and return ``(obs, info)`` of those envs (async
        mode: the next batch). ``seed`` reseeds them (env i gets seed + i; EnvPool ignores it);
        ``options={"reset_mask": mask}`` is the same as ``env_id=np.flatnonzero(mask)``."""
        obs, info, _ = self.reset_rows(env_id, seed, options)
        return obs, self.info(info)

    def step(self, actions: Any, env_id: Any = None, *, partial: bool = False) -> Step:
        """Step the envs in ``env_id`` (default: all); returns their rows in env_id's order (async
        mode: the next batch). Rewards are float32, as in EnvPool."""
        if (
            self._all_started
            and env_id is None
            and type(actions) is np.ndarray
            and actions.dtype.kind in self._act_kinds
        ):
            fast = self._fast_step  # the common case, kept short
            out = fast(actions, None) if fast is not None else self.env._step(actions, None, False)
            obs, reward, terminated, truncated, info = out
        else:
            obs, reward, terminated, truncated, info = self.step_rows(actions, env_id)
        return obs, reward.astype(np.float32), terminated, truncated, self.info(info)

    def send(self, actions: Any, env_id: Any = None, *, partial: bool = False) -> None:
        self.send_rows(actions, env_id)

    def recv(self, timeout: Any = None, *, reset: bool = False, return_info: bool = True) -> Any:
        """The next batch; ``(obs, info)`` when ``reset`` (EnvPool's convention), else the 5-tuple."""
        obs, reward, terminated, truncated, info = self.recv_rows(timeout)
        if reset:
            return obs, self.info(info)
        return obs, reward.astype(np.float32), terminated, truncated, self.info(info)

    def async_reset(self, seed: Any = None, *, reset_mask: Any = None) -> None:
        self._pending_rows = self._stashed = None
        self.env._async_reset(seed, reset_mask)
        self.mark_started(None if reset_mask is None else np.flatnonzero(reset_mask))

    def render(self, env_ids: Any = None, camera_id: int | None = None) -> np.ndarray:
        """EnvPool's ``render``: the frames of ``env_ids`` (default: ``render_env_id``) stacked into
        one ``(k, height, width, 3)`` uint8 array, drawn on the pool's threads."""
        if self._render_mode is None:
            raise RuntimeError("render_mode must be set to 'rgb_array' or 'human' when creating this env")
        if camera_id is not None and camera_id != self.spec.task_spec.config.get("camera_id", -1):
            raise ValueError(
                f"camera_id={camera_id}: envhive draws with the camera the env was made with; "
                "make it with render_camera_id"
            )
        ids = np.atleast_1d(np.asarray(self._render_env_id if env_ids is None else env_ids, dtype=np.int64))
        frames = self.env._render(ids)
        assert frames is not None
        return np.stack(frames)

    def xla_state(self, obs: Any, reward: Any, terminated: Any, truncated: Any, info: dict[str, Any]) -> Any:
        """What EnvPool's ``env.xla()`` ``recv`` / ``step`` return as the state (JAX arrays):
        ``(obs, reward, terminated, truncated, info)`` with float32 rewards and EnvPool's infos."""
        return obs, reward.astype(np.float32), terminated, truncated, self.info(info)

    # --- the rows of a call, EnvPool's way (shared with the dm facade)
    def info(self, info: dict[str, Any]) -> dict[str, Any]:
        """envhive's info as EnvPool reports it: ``players``, EnvPool's dtypes, no ``discount``."""
        info["players"] = {"env_id": info["env_id"]}
        for name, dtype in self._casts:
            info[name] = info[name].astype(dtype)
        if self._drop_discount:
            info.pop("discount", None)
        return info

    def step_rows(self, action: Any, env_id: Any) -> Step:
        action, env_id = self._from(action, env_id)
        fresh = self._fresh(env_id)
        if fresh is not None:
            if self._async:
                self._first_send(action, env_id, fresh)
                return self.env._recv(None)
            return self._first_step(action, env_id, fresh)
        rows = None if env_id is None or self._async else self._sync_rows(env_id)
        out = self.env._step(action, env_id, rows is not None)
        return out if rows is None else _take_rows(out, rows, self._n)

    def send_rows(self, action: Any, env_id: Any) -> None:
        action, env_id = self._from(action, env_id)
        fresh = self._fresh(env_id)
        if fresh is not None:
            if self._async:
                self._first_send(action, env_id, fresh)
            else:  # a sync pool's send is its step: done now, recv() returns it
                self._stashed = self._first_step(action, env_id, fresh)
            return
        rows = None if env_id is None or self._async else self._sync_rows(env_id)
        self.env._send(action, env_id, rows is not None)
        self._pending_rows = rows

    def recv_rows(self, timeout: Any) -> Step:
        if self._stashed is not None:
            out, self._stashed = self._stashed, None
            return out
        out = self.env._recv(timeout)
        rows, self._pending_rows = self._pending_rows, None
        return out if rows is None else _take_rows(out, rows, self._n)

    def reset_rows(
        self, env_id: Any, seed: Any, options: dict[str, Any] | None
    ) -> tuple[Any, dict[str, Any], np.ndarray | None]:
        """reset(env_id) as EnvPool has it: (obs, info, the rows it returned in sync mode)."""
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is not None:
            if env_id is not None:
                raise EnvPoolArgumentError("Pass either env_id or options['reset_mask'], not both.")
            mask = np.asarray(mask, dtype=np.bool_)
            if mask.shape != (self._n,):
                raise EnvPoolArgumentError(f"reset_mask must have shape ({self._n},), got {mask.shape}")
            env_id = np.flatnonzero(mask)
        self._pending_rows = self._stashed = None
        if env_id is None:
            obs, info = self.env._reset(None, seed, options or None)
            self.mark_started()
            if not self._async:
                self._initial = (obs, info)  # (only its being set matters from now on)
            return obs, info, None
        ids = np.asarray(env_id).reshape(-1).astype(np.intp)
        mask = np.zeros(self._n, dtype=np.bool_)
        mask[ids] = True
        if not self._async:
            # EnvPool's reset(env_id) of envs never reset gives their first reset. A sync pool
            # resets every env the first time; an env holds that reset until it is reset or stepped.
            first = self._reset_pool_once()
            if seed is None and not options:
                mask[ids] = ~self._started[ids]  # ids[~mask] still hold their first reset
                mask = ~mask & np.isin(self._all_ids, ids)
            if not mask.any():
                assert self._initial is not None
                obs, info = first if first is not None else self._initial
                self.mark_started(ids)
                return _take(obs, ids, self._n), _take(info, ids, self._n), ids
        obs, info = self.env._reset(None, seed, {"reset_mask": mask, **options})
        self.mark_started(ids)
        if self._async:
            return obs, info, None
        return _take(obs, ids, self._n), _take(info, ids, self._n), ids

    def mark_started(self, ids: Any = None) -> None:
        """The envs ``ids`` (default: all) were reset: their next step is a step."""
        if ids is None:
            self._started[:] = True
        else:
            self._started[np.asarray(ids, dtype=np.intp).reshape(-1)] = True
        self._all_started = bool(self._started.all())

    def forget_pending(self) -> None:
        """Drop what a sync send left for recv (the dm facade's async_reset)."""
        self._pending_rows = self._stashed = None

    # --- EnvPool's input forms
    def _from(self, action: Any, env_id: Any) -> tuple[Any, Any]:
        """EnvPool's action forms -> the pool's (:func:`from_envpool_actions`)."""
        if type(action) is np.ndarray and action.dtype.kind in self._act_kinds:
            return action, env_id  # the pool converts these itself
        return from_envpool_actions(action, env_id, self._discrete, self._act_kinds, self._act_dtype)

    def _sync_rows(self, env_id: Any) -> np.ndarray | None:
        """Sync mode with env_id: the rows to return, in env_id's order (None: all, in order)."""
        ids = np.asarray(env_id).reshape(-1)
        if ids.shape[0] == self._n and np.array_equal(ids, self._all_ids):
            return None
        return ids.astype(np.intp)

    # --- EnvPool's first step: an env never reset is reset by it (its action is ignored), as after
    # the end of an episode.
    def _fresh(self, env_id: Any) -> np.ndarray | None:
        """Which of the call's envs were never reset (a bool per env_id entry); None if none was."""
        if self._all_started:
            return None
        ids = self._all_ids if env_id is None else np.asarray(env_id).reshape(-1)
        if ids.dtype.kind not in "iu" or (ids.size and (ids.min() < 0 or ids.max() >= self._n)):
            return None  # the pool refuses these ids with its own message
        fresh = ~self._started[ids.astype(np.intp)]
        return fresh if fresh.any() else None

    def _ids(self, env_id: Any) -> np.ndarray:
        return self._all_ids.astype(np.intp) if env_id is None else np.asarray(env_id).reshape(-1).astype(np.intp)

    def _first_send(self, action: Any, env_id: Any, fresh: np.ndarray) -> None:
        """Async: the never-reset envs are reset, the others stepped; recv() returns them as they finish."""
        ids = self._ids(env_id)
        mask = np.zeros(self._n, dtype=np.bool_)
        mask[ids[fresh]] = True
        self._pending_rows = None
        self.env._async_reset(None, mask)
        self.mark_started(ids[fresh])
        if not fresh.all():
            self.env._send(np.asarray(action)[~fresh], ids[~fresh], False)

    def _first_step(self, action: Any, env_id: Any, fresh: np.ndarray) -> Step:
        """Sync: the never-reset envs report their first reset (reward 0, flags False), the others
        step. The pool resets every env the first time (a sync pool reports every env), and an env
        not stepped holds that reset until its own first step reports it."""
        ids = self._ids(env_id)
        self._pending_rows = None
        first = self._reset_pool_once()
        self.mark_started(ids[fresh])
        if fresh.all():
            assert self._initial is not None
            obs, info = first if first is not None else self._initial
            zeros = np.zeros(self._n, dtype=np.bool_)
            out: Step = (obs, np.zeros(self._n), zeros, zeros.copy(), info)
        else:  # the fresh envs are held by the partial step: their rows are their reset
            out = self.env._step(np.asarray(action)[~fresh], ids[~fresh], True)
        rows = None if env_id is None else self._sync_rows(ids)
        return out if rows is None else _take_rows(out, rows, self._n)

    def _reset_pool_once(self) -> tuple[Any, dict[str, Any]] | None:
        """Sync: reset every env of the pool if it never was (its output, else None); the rows of
        envs the user has not reset yet are kept for their first step or reset."""
        if self._initial is not None:
            return None
        obs, info = self.env._reset(None, None, None)
        self._initial = (_copy_tree(obs), _copy_tree(info))
        return obs, info


def from_envpool_actions(
    action: Any, env_id: Any, discrete: bool, act_kinds: str, act_dtype: np.dtype[Any]
) -> tuple[Any, Any]:
    """EnvPool's action forms -> the pool's: arrays of any numeric dtype (cast as EnvPool casts
    them: a float array to a Discrete space's integers, refused where NaN or infinite), and
    EnvPool's dict form (``action``, ``env_id``, ``players.env_id``)."""
    if isinstance(action, Mapping):
        flat = _flatten(action)
        unknown = sorted(set(flat) - {"action", "env_id", "players.env_id"})
        if unknown or "action" not in flat:
            raise RuntimeError(f"a dict action has the keys 'action', 'env_id', 'players.env_id'; got {sorted(flat)}")
        a = np.asarray(flat["action"])
        want = ("int32",) if discrete else ("float32", "float64")
        if a.dtype.name not in want:
            raise RuntimeError(f'Expected dtype {want[0]} with action "action", got {a.dtype}')
        if env_id is None and "env_id" in flat:
            env_id = np.asarray(flat["env_id"])
            if env_id.dtype != np.int32:
                raise RuntimeError(f'Expected dtype int32 with action "env_id", got {env_id.dtype}')
        action = a
    if isinstance(action, np.ndarray) and action.dtype.kind not in act_kinds:
        if action.dtype.kind == "f":  # a float array to a Discrete space's integers: no NaN or inf to cast
            finite = np.isfinite(action)
            if not finite.all():
                row = int(np.flatnonzero(~finite.reshape(len(action), -1).all(axis=1))[0])
                env = row if env_id is None else int(np.asarray(env_id).reshape(-1)[row])
                raise ValueError(message("action_not_finite", env=env, value=action[row]))
        action = action.astype(act_dtype)
    return action, env_id


def _flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in tree.items():
        if isinstance(v, Mapping):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _copy_tree(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy_tree(v) for k, v in value.items()}
    return value.copy() if isinstance(value, np.ndarray) else value


def _take(value: Any, rows: np.ndarray, n: int) -> Any:
    """Rows ``rows`` of a batch output (each array with n rows; dicts recursively)."""
    if isinstance(value, dict):
        return {k: _take(v, rows, n) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == n:
        return value[rows]
    return value


def _take_rows(out: Step, rows: np.ndarray, n: int) -> Step:
    obs, reward, terminated, truncated, info = (_take(v, rows, n) for v in out)
    return obs, reward, terminated, truncated, info
