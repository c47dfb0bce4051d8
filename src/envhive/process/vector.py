"""ProcessVectorEnv: any Gymnasium env, in worker processes, behind envhive's vector-env surface.

The same surface as ``envhive.HiveVectorEnv``: sync ``step``; async ``send`` / ``recv`` (the
first ``batch_size`` envs to finish, with ``info["env_id"]``); NEXT_STEP, SAME_STEP and DISABLED
autoreset with ``final_obs`` / ``final_info`` as Gymnasium 1.4 defines them; ``reset(seed=,
options=)`` with ``options["reset_mask"]``; ``recv(timeout=)``; ``async_reset``; ``render()``
per env; ``close()``. Spaces are batched over the rows a call returns.
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envhive.catalog import TaskInfo
from envhive.checks import check_reset_mask, resolve_seeds
from envhive.errors import EnvError, ResetNeeded
from envhive.process.arena import Leaf, getter, leaves, nest
from envhive.process.factory import CallableFactory, GymnasiumFactory
from envhive.process.pool import ProcessPool, WorkerDiedError
from envhive.process.protocol import (
    AUTORESET_CODES,
    FLAG_ALL,
    FLAG_ERROR,
    FLAG_FINAL,
    FLAG_INFO,
    OP_OPTIONS,
    OP_RESET,
    OP_SEEDED,
    OP_STEP,
)
from envhive.registry import (
    AUTORESET_MODES,
    DEFAULT_SEED,
    PoolConfig,
    TaskSpec,
    resolve_pool,
)

MODE_NAMES = {mode: name for name, mode in AUTORESET_MODES.items()}
FAMILY = "process"  # the TaskInfo family of a task run by the process backend
# The process backend's own kwargs (beside the pool kwargs it shares with the native pool:
# num_envs, batch_size, seed, max_episode_steps, autoreset_mode), with their docs.
PROCESS_KWARGS: dict[str, str] = {
    "num_workers": "worker processes, each stepping a contiguous block of envs; default min(cores, num_envs)",
    "render_mode": "passed to each env (gymnasium.make or the factory); render() returns one frame per env",
    "start_method": "'fork', 'forkserver' or 'spawn' (default: multiprocessing's; forkserver from Python 3.14)",
    "restart_workers": "replace a worker that died (its envs start new episodes); default False",
    "spin_us": "the longest a waiter spins (yielding) before it blocks, while nothing else runs; default 200",
    "info_bytes": "per-env room for an info record in shared memory (bigger infos are pickled); default 256",
    "pin_workers": "pin worker i to one core (from thread_affinity_offset, else core 0); default None: pin "
    "when thread_affinity_offset >= 0 or when the workers cover every core this process may use",
}
START_METHODS = ("fork", "forkserver", "spawn")
NATIVE_ONLY = ("num_threads",)


def reset_seeds(seed: Any, num_envs: int) -> list[int | None] | None:
    """``reset(seed=)``: an int -> ``seed + i``; a sequence -> one per env, None entries allowed
    (that env is reset without a seed); None -> no seeds."""
    if seed is None:
        return None
    if isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str):
        if len(seed) != num_envs:
            raise ValueError(f"seed sequence must have num_envs={num_envs} entries, got {len(seed)}")
        given = [(i, s) for i, s in enumerate(seed) if s is not None]
        resolved = resolve_seeds([s for _, s in given], len(given)) or []
        out: list[int | None] = [None] * num_envs
        for (i, _), s in zip(given, resolved, strict=True):
            out[i] = s
        return out
    return list(resolve_seeds(seed, num_envs) or [])


def env_factory(
    env: str | Callable[..., Any], kwargs: dict[str, Any], max_episode_steps: int | None, render_mode: str | None
) -> GymnasiumFactory | CallableFactory:
    """What each worker calls to build one env."""
    if isinstance(env, str):
        # Resolve the id here: workers get the EnvSpec itself, so an env registered by a module
        # imported in this process needs no registration in a spawned worker.
        module, sep, name = env.partition(":")
        if sep:
            importlib.import_module(module)
        spec = gymnasium.spec(name if sep else env)
        make_kwargs = dict(kwargs)
        if max_episode_steps is not None:
            make_kwargs["max_episode_steps"] = max_episode_steps
        if render_mode is not None:
            make_kwargs["render_mode"] = render_mode
        return GymnasiumFactory(spec, make_kwargs)
    if callable(env):
        call_kwargs = dict(kwargs)
        if render_mode is not None:
            call_kwargs["render_mode"] = render_mode
        return CallableFactory(env, call_kwargs, max_episode_steps)
    raise TypeError(f"expected a Gymnasium env id or an env factory callable, got {env!r}")


class ProcessVectorEnv(VectorEnv):
    """``num_envs`` Gymnasium envs stepped by ``num_workers`` processes over shared memory.

    ``env``: a Gymnasium id (``"LunarLander-v3"``, ``"module:Id"``) or a callable returning a
    ``gymnasium.Env`` (called with the remaining kwargs). Pool kwargs as the native pool's
    (``num_envs``, ``batch_size`` -- below num_envs: async mode --, ``seed``,
    ``max_episode_steps``, ``autoreset_mode``; see ``envhive.registry.POOL_KWARGS``) and the
    backend's own (``PROCESS_KWARGS``: ``num_workers``, ``render_mode``, ``start_method``,
    ``restart_workers``, ``spin_us``, ``info_bytes``, ``pin_workers``). Any other kwarg goes to
    ``gymnasium.make`` (or the factory).
    """

    def __init__(
        self,
        env: str | Callable[..., Any],
        *,
        num_envs: int = 1,
        batch_size: int | None = None,
        num_workers: int | None = None,
        thread_affinity_offset: int | None = -1,
        seed: Any = DEFAULT_SEED,
        max_episode_steps: int | None = None,
        autoreset_mode: Any = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        start_method: str | None = None,
        restart_workers: bool = False,
        spin_us: float = 200.0,
        info_bytes: int = 256,
        pin_workers: bool | None = None,
        **env_kwargs: Any,
    ) -> None:
        native_only = sorted(set(NATIVE_ONLY) & set(env_kwargs))
        if native_only:
            raise TypeError(
                f"{native_only[0]!r} is a native-pool kwarg; the process backend runs num_workers worker processes"
            )
        pool_config = resolve_pool(
            {
                "num_envs": num_envs,
                "batch_size": batch_size,
                "num_threads": num_workers,
                "thread_affinity_offset": thread_affinity_offset,
                "seed": seed,
                "autoreset_mode": autoreset_mode,
            },
            threads_kwarg="num_workers",
        )
        if max_episode_steps is not None:
            if not isinstance(max_episode_steps, int | np.integer) or isinstance(max_episode_steps, bool):
                raise TypeError(f"max_episode_steps must be an int, got {max_episode_steps!r}")
            if max_episode_steps < 0:
                raise ValueError(f"max_episode_steps must be >= 0 (0: no limit), got {max_episode_steps}")
            max_episode_steps = int(max_episode_steps) or None
        if start_method is not None and start_method not in START_METHODS:
            raise ValueError(f"unknown start_method {start_method!r}; valid: {', '.join(START_METHODS)}")
        if not isinstance(restart_workers, bool):
            raise TypeError(f"restart_workers must be a bool, got {restart_workers!r}")
        if not isinstance(spin_us, int | float) or isinstance(spin_us, bool) or not 0 <= spin_us < 1e6:
            raise ValueError(f"spin_us must be a number of microseconds in [0, 1e6), got {spin_us!r}")
        if not isinstance(info_bytes, int) or isinstance(info_bytes, bool) or info_bytes < 0:
            raise ValueError(f"info_bytes must be an int >= 0, got {info_bytes!r}")
        if pin_workers is not None and not isinstance(pin_workers, bool):
            raise TypeError(f"pin_workers must be a bool or None, got {pin_workers!r}")
        affinity_offset = pool_config.thread_affinity_offset
        if pin_workers is False and affinity_offset >= 0:
            raise ValueError(f"pin_workers=False contradicts thread_affinity_offset={affinity_offset} (which pins)")
        if pin_workers or (pin_workers is None and pool_config.num_threads >= len(os.sched_getaffinity(0))):
            # Workers that cover every core: one (or as many as there are) per core. Left to the
            # scheduler, two of them often share a core while the parent spins alone on another.
            affinity_offset = max(affinity_offset, 0)
        mode = pool_config.autoreset_mode
        num_envs, batch = pool_config.num_envs, pool_config.batch_size

        self.env_name = env if isinstance(env, str) else getattr(env, "__qualname__", repr(env))
        self.num_envs = num_envs
        self.batch_size = batch
        self.num_workers = pool_config.num_threads
        self.autoreset_mode = mode
        self.restart_workers = restart_workers
        factory = env_factory(env, env_kwargs, max_episode_steps, render_mode)
        if max_episode_steps is None and isinstance(factory, GymnasiumFactory):
            max_episode_steps = factory.spec.max_episode_steps
        self._pool = ProcessPool(
            factory,
            num_envs,
            self.num_workers,
            AUTORESET_CODES[MODE_NAMES[mode]],
            start_method=start_method,
            spin_us=float(spin_us),
            info_bytes=info_bytes,
            seeds=pool_config.seeds,
            restart_workers=restart_workers,
            affinity_offset=affinity_offset,
        )
        pool = self._pool
        self.start_method = pool.start_method
        self.single_observation_space = pool.observation_space
        self.single_action_space = pool.action_space
        self.observation_space = batch_space(pool.observation_space, batch)
        self.action_space = batch_space(pool.action_space, batch)
        self.render_mode = pool.render_mode
        self.metadata = {
            "render_modes": list(pool.metadata.get("render_modes", [])),
            "render_fps": pool.metadata.get("render_fps"),
            "autoreset_mode": mode,
        }
        self.task_spec = TaskSpec(
            task=TaskInfo(
                id=self.env_name,
                module=__name__,
                family=FAMILY,
                doc=f"{self.env_name} in worker processes (the process backend)",
                max_episode_steps=max_episode_steps or 0,
                hidden=False,
                config=(),
                reset_options=(),
                default_spaces=None,
            ),
            config={"max_episode_steps": max_episode_steps or 0, **env_kwargs},
            observation_space=pool.observation_space,
            action_space=pool.action_space,
            info_fields={},
            pool=pool_config,
        )
        self._sync = batch == num_envs
        a = pool.arrays
        self._obs = [a[f"obs{i}"] for i in range(len(pool.obs_leaves))]
        self._final_obs = (
            [a[f"final_obs{i}"] for i in range(len(pool.obs_leaves))] if mode == AutoresetMode.SAME_STEP else []
        )
        self._objects = [leaf.is_object for leaf in pool.obs_leaves]
        self._any_objects = any(self._objects)
        self._acts = [a[f"act{i}"] for i in range(len(pool.act_leaves))]
        self._act_getters = _leaf_getters(pool.action_space)
        self._act_leaf = pool.act_leaves[0] if len(pool.act_leaves) == 1 and not pool.act_leaves[0].path else None
        self._reward = a["reward"]
        self._terminated = a["terminated"].view(np.bool_)
        self._truncated = a["truncated"].view(np.bool_)
        self._elapsed = a["elapsed"]
        self._status = a["status"]
        self._info_kind = a["info_kind"]
        self._seeds = a["seeds"]
        self._in_flight = np.zeros(num_envs, dtype=bool)
        self._ended = np.zeros(num_envs, dtype=bool)  # DISABLED: stepping needs a reset first
        self._never_reset = np.ones(num_envs, dtype=bool)  # stepping raises ResetNeeded
        self._all_reset = False
        self._disabled = mode == AutoresetMode.DISABLED
        self._all_ids = np.arange(num_envs, dtype=np.int32)
        self._flat_obs = len(self._obs) == 1 and not pool.obs_leaves[0].path and not self._objects[0]
        # The C++ sync step (envhive._procwire) serves sync pools of one action leaf, outside
        # DISABLED mode (whose "ended" check stays in Python).
        self._wire_ok = self._sync and self._act_leaf is not None and not self._disabled

    @property
    def pool_config(self) -> PoolConfig:
        """The pool's resolved kwargs (``task_spec.pool``)."""
        return self.task_spec.pool

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset envs and return ``(obs, info)``.

        ``seed``: an int seeds env i with ``seed + i``; a sequence gives one seed (or None) per
        env. ``options``: ``reset_mask`` (a bool array of shape (num_envs,)) resets only those
        envs -- in sync mode the others report their current observation; every other option is
        passed to each env's ``reset(options=...)``. In async mode ``reset`` restarts the masked
        (default: all) envs and returns the next batch.
        """
        pool = self._pool
        pool.enter()
        try:
            return self._reset(seed, options)
        finally:
            pool.leave()

    def _reset(self, seed: Any, options: dict[str, Any] | None) -> tuple[Any, dict[str, Any]]:
        pool = self._pool
        pool.check_usable()
        mask, env_options = self._split_options(options)
        seeds = reset_seeds(seed, self.num_envs)
        if mask is None:
            pool.discard_all()
            pool.check_usable()
            self._in_flight[:] = False
            ids = np.arange(self.num_envs)
        else:
            if self._sync and not self._all_reset and (self._never_reset & ~mask).any():
                env = int(np.flatnonzero(self._never_reset & ~mask)[0])
                raise ResetNeeded(
                    f"env {env} has not been reset: a partial reset of a sync pool reports every env, so reset "
                    "all envs first (reset() without a reset_mask)"
                )
            busy = np.arange(self.num_envs) if self._sync and pool.pending() else np.flatnonzero(mask & self._in_flight)
            if len(busy):
                raise ValueError(f"cannot reset env {busy[0]}: it is in flight; recv() it first")
            ids = np.flatnonzero(mask)
        self._queue_resets(ids, seeds, env_options)
        if self._sync:
            try:
                pool.wait_all()
            except WorkerDiedError as error:
                self._in_flight[:] = False
                self._after_death(error)
                raise
            self._in_flight[ids] = False
            obs, _, _, _, info = self._collect(self._all_ids, None if mask is None else ids)
            return obs, info
        obs, _, _, _, info = self._recv(None)
        return obs, info

    def step(self, actions: Any, env_id: Any = None) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step and return ``(obs, rewards, terminations, truncations, infos)``.

        Sync mode steps every env. Async mode sends ``actions`` to ``env_id`` (default: all
        envs) and returns the next ``batch_size`` envs to finish.
        """
        pool = self._pool
        pool.enter()
        try:
            # The common sync step, in C++ (which also checks that nothing is in flight)
            if env_id is None and self._wire_ok and self._all_reset and pool.broken is None and not pool.closing:
                flags = pool.wire_step(actions)
                if flags != -2:  # -2: not taken (another dtype or shape, a value out of range)
                    return self._wire_finish(pool, flags)
            self._send(actions, env_id)
            return self._recv(None)
        finally:
            pool.leave()

    def _wire_finish(
        self, pool: ProcessPool, flags: int
    ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The rest of a sync step the C++ path queued and spun for: block in Python if the
        spin ran out (dead workers, closing and Ctrl-C are handled there), collect."""
        if flags < 0:
            try:
                pool.wait_all(None, spin=False)
            except WorkerDiedError as error:  # the other workers' envs completed before the error was raised
                self._in_flight[:] = False
                self._after_death(error)
                raise
            flags = pool.flags()
        return self._collect(self._all_ids, flags=flags)

    # ------------------------------------------------------------------ EnvPool API
    def send(self, actions: Any, env_id: Any = None) -> None:
        """Queue ``actions`` for ``env_id`` (default: every env) and return at once."""
        pool = self._pool
        pool.enter()
        try:
            self._send(actions, env_id)
        finally:
            pool.leave()

    def _send(self, actions: Any, env_id: Any) -> None:
        pool = self._pool
        pool.check_usable()
        if env_id is None and self._sync:  # the sync step: every env, one command per worker
            if pool.pending():
                raise ValueError("env 0 is not awaiting an action: it is in flight (recv first)")
            self._check_reset(None)
            if self._disabled and self._ended.any():
                self._ended_error(int(np.flatnonzero(self._ended)[0]))
            leaf = self._act_leaf
            if leaf is not None:
                self._acts[0][...] = _check_leaf(leaf, actions, self.num_envs, None)
            else:
                for arr, value in zip(self._acts, self._check_actions(actions, self.num_envs, None), strict=True):
                    arr[...] = value
            pool.queue_block_steps()
            return
        ids = self._env_ids(env_id)
        n = self.num_envs if ids is None else len(ids)
        if self._sync and n != self.num_envs:
            raise ValueError(f"sync mode (batch_size == num_envs) steps every env: send {self.num_envs} actions")
        values = self._check_actions(actions, n, ids)
        if ids is None:
            if self._in_flight.any():
                first = int(np.flatnonzero(self._in_flight)[0])
                raise ValueError(f"env {first} is not awaiting an action: it is in flight (recv first)")
            self._check_reset(None)
            if self._disabled and self._ended.any():
                self._ended_error(int(np.flatnonzero(self._ended)[0]))
            for arr, value in zip(self._acts, values, strict=True):
                arr[...] = value
            self._in_flight[:] = True
            pool.queue_all(OP_STEP)
            return
        busy = self._in_flight[ids] if not self._sync else np.full(len(ids), pool.pending() > 0)
        if busy.any():
            raise ValueError(f"env {int(ids[np.flatnonzero(busy)[0]])} is not awaiting an action: it is in flight")
        self._check_reset(ids)
        if self._disabled:
            ended = self._ended[ids]
            if ended.any():
                self._ended_error(int(ids[np.flatnonzero(ended)[0]]))
        for arr, value in zip(self._acts, values, strict=True):
            arr[ids] = value
        if self._sync:  # every env, in some order
            pool.queue_block_steps()
            return
        self._in_flight[ids] = True
        pool.queue(ids, OP_STEP)

    def _check_reset(self, ids: np.ndarray | None) -> None:
        """ResetNeeded for an env that was never reset (as the native pool and Gymnasium refuse)."""
        if self._all_reset:
            return
        never = self._never_reset if ids is None else self._never_reset[ids]
        if never.any():
            env = int(np.flatnonzero(never)[0]) if ids is None else int(ids[np.flatnonzero(never)[0]])
            raise ResetNeeded(
                f"env {env} has not been reset: call reset() (or async_reset() and recv()) before stepping it"
            )

    def recv(self, timeout: float | None = None) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Wait for the next ``batch_size`` envs to finish; ``TimeoutError`` after ``timeout`` s."""
        pool = self._pool
        pool.enter()
        try:
            return self._recv(_check_timeout(timeout))
        finally:
            pool.leave()

    def _recv(self, timeout: float | None) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        pool = self._pool
        pool.check_usable()
        pending = pool.pending()
        if pending < self.batch_size:
            raise ValueError(
                f"recv needs {self.batch_size} env(s) in flight, but {pending} env(s) in flight: send actions first"
            )
        try:
            if self._sync:
                pool.wait_all(timeout)
                ids = self._all_ids
            else:
                ids = pool.wait_any(self.batch_size, timeout)
        except WorkerDiedError as error:
            if self._sync:  # the other workers' envs completed before the error was raised
                self._in_flight[:] = False
            self._after_death(error)
            raise
        if not self._sync:
            self._in_flight[ids] = False
        return self._collect(ids)

    def async_reset(self, seed: int | Sequence[int | None] | None = None) -> None:
        """Reset every env without waiting; collect the results with ``recv()``."""
        pool = self._pool
        pool.enter()
        try:
            pool.check_usable()
            seeds = reset_seeds(seed, self.num_envs)
            pool.discard_all()
            pool.check_usable()
            self._in_flight[:] = False
            self._queue_resets(np.arange(self.num_envs), seeds, None)
        finally:
            pool.leave()

    def render(self) -> tuple[Any, ...] | None:
        """One frame per env (``render_mode`` was given to ``make``), after pending steps."""
        pool = self._pool
        pool.enter()
        try:
            pool.check_usable()
            frames = pool.control(("render",))
        finally:
            pool.leave()
        return tuple(frame for block in frames for frame in block)

    def close_extras(self, **kwargs: Any) -> None:
        if hasattr(self, "_pool"):
            self._pool.close(self._drop_views)

    def _drop_views(self) -> None:
        """Drop this object's views of the arena (the pool calls it when no call is in flight)."""
        for name in ("_obs", "_final_obs", "_acts"):
            setattr(self, name, [])
        for name in ("_reward", "_terminated", "_truncated", "_elapsed", "_status", "_info_kind", "_seeds"):
            setattr(self, name, None)

    @property
    def closed(self) -> bool:
        return self._pool.closed if hasattr(self, "_pool") else True

    @closed.setter
    def closed(self, value: bool) -> None:  # VectorEnv.close() assigns it; the pool is the truth
        pass

    @property
    def worker_pids(self) -> list[int]:
        """The worker processes' pids (for monitoring; they change when a worker restarts)."""
        return self._pool.pids()

    def __repr__(self) -> str:
        mode = "sync" if self._sync else f"async, batch_size={self.batch_size}"
        return (
            f"ProcessVectorEnv({self.env_name}, num_envs={self.num_envs}, {mode}, "
            f"num_workers={self.num_workers}, start_method={self.start_method!r})"
        )

    # ------------------------------------------------------------------ helpers
    def _after_death(self, error: WorkerDiedError) -> None:
        ids = np.asarray(error.env_ids)
        was_in_flight = self._in_flight[ids].copy()
        self._in_flight[ids] = False
        if not error.restarted:
            return
        self._ended[ids] = self.autoreset_mode == AutoresetMode.DISABLED
        if not self._sync and was_in_flight.any():  # bring them back: a reset row each
            back = ids[was_in_flight]
            self._in_flight[back] = True
            self._pool.queue(back, OP_RESET)

    def _ended_error(self, env: int) -> None:
        raise ValueError(
            f"env {env} has ended its episode and autoreset_mode is 'disabled': reset it first with "
            "reset(options={'reset_mask': mask})"
        )

    def _split_options(self, options: dict[str, Any] | None) -> tuple[np.ndarray | None, dict[str, Any] | None]:
        if options is None:
            return None, None
        if not isinstance(options, Mapping):
            raise TypeError(f"options must be a dict, got {type(options).__name__}")
        rest = {k: v for k, v in options.items() if k != "reset_mask"}
        if "reset_mask" not in options:
            return None, rest
        return check_reset_mask(options["reset_mask"], self.num_envs).copy(), rest

    def _queue_resets(self, ids: np.ndarray, seeds: list[int | None] | None, options: dict[str, Any] | None) -> None:
        ops = np.full(len(ids), OP_RESET, dtype=np.int64)
        if seeds is not None:
            for k, i in enumerate(ids.tolist()):
                if seeds[i] is not None:
                    self._seeds[i] = seeds[i]
                    ops[k] |= OP_SEEDED
        if options is not None:
            ops |= OP_OPTIONS
            per_worker: dict[int, dict[int, Any]] = {}
            for i in ids.tolist():
                per_worker.setdefault(int(self._pool.worker_of[i]), {})[i] = options
            self._pool.send_options(per_worker)
        self._ended[ids] = False
        if not self._all_reset:
            self._never_reset[ids] = False
            self._all_reset = not self._never_reset.any()
        self._in_flight[ids] = True
        self._pool.queue(np.asarray(ids, dtype=np.int64), ops)

    def _env_ids(self, env_id: Any) -> np.ndarray | None:
        if env_id is None:
            return None
        ids = np.asarray(env_id)
        if ids.ndim == 0:
            ids = ids.reshape(1)
        if ids.ndim != 1 or not (np.issubdtype(ids.dtype, np.integer)) or ids.dtype == np.bool_:
            raise TypeError(f"env_id must be a 1-D array of integers, got dtype {ids.dtype} and shape {ids.shape}")
        ids = ids.astype(np.int64)
        bad = (ids < 0) | (ids >= self.num_envs)
        if bad.any():
            raise ValueError(f"env_id {int(ids[np.flatnonzero(bad)[0]])} is out of range [0, {self.num_envs})")
        if len(np.unique(ids)) != len(ids):
            values, counts = np.unique(ids, return_counts=True)
            raise ValueError(f"env_id {int(values[counts > 1][0])} appears twice")
        if self._sync and len(ids) == self.num_envs:
            return ids  # all envs, in some order
        return ids

    def _check_actions(self, actions: Any, n: int, ids: np.ndarray | None) -> list[np.ndarray]:
        leaves = self._pool.act_leaves
        if len(leaves) == 1 and not leaves[0].path:
            return [_check_leaf(leaves[0], actions, n, ids)]
        return [_check_leaf(leaf, get(actions), n, ids) for leaf, get in zip(leaves, self._act_getters, strict=True)]

    def _collect(
        self, ids: np.ndarray, info_ids: np.ndarray | None = None, flags: int | None = None
    ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The outputs of rows ``ids`` (env ids, in row order; ``_all_ids`` for every env). A
        masked sync reset passes ``info_ids``: only the envs it reset report infos. ``flags``:
        the workers' batch flags when the caller read them already."""
        pool = self._pool
        full = ids is self._all_ids
        if flags is None:
            flags = pool.flags() if full else FLAG_ALL  # a full sync batch: only what the workers flagged
        if full and not flags and self._flat_obs and not self._disabled:  # the common sync step: copies only
            return (
                self._obs[0].copy(),
                self._reward.copy(),
                self._terminated.copy(),
                self._truncated.copy(),
                {"env_id": self._all_ids.copy(), "elapsed_step": self._elapsed.copy()},
            )
        # (no local may hold a view of the arena when an exception leaves this frame: a traceback
        # kept by the caller would keep the mapping alive after close)
        if flags & FLAG_ERROR and (self._status.any() if full else self._status[ids].any()):
            pool.drain_all()
            self._raise_env_errors(ids[np.flatnonzero(self._status[ids])])
        if self._any_objects:
            id_list = ids.tolist()
            obs_parts = [
                pool.read_objects(f"obs{i}", id_list) if is_object else arr[ids]
                for i, (arr, is_object) in enumerate(zip(self._obs, self._objects, strict=True))
            ]
        if full:
            if not self._any_objects:
                obs_parts = [arr.copy() for arr in self._obs]
            reward = self._reward.copy()
            terminated = self._terminated.copy()
            truncated = self._truncated.copy()
            elapsed = self._elapsed.copy()
            kinds = self._info_kind.copy() if flags & FLAG_INFO else None
        else:
            if not self._any_objects:
                obs_parts = [arr[ids] for arr in self._obs]
            reward = self._reward[ids]
            terminated = self._terminated[ids]
            truncated = self._truncated[ids]
            elapsed = self._elapsed[ids]
            kinds = self._info_kind[ids]
        if info_ids is not None and kinds is not None:
            keep = np.zeros(self.num_envs, dtype=bool)
            keep[info_ids] = True
            kinds = np.where(keep[ids], kinds, 0)
        if self._disabled:
            self._ended[ids] = terminated | truncated
        obs = obs_parts[0] if self._flat_obs else nest(self.single_observation_space, obs_parts)
        infos: dict[str, Any] = {}
        if kinds is not None and kinds.any():
            pool.learn_layouts(kinds)
            infos = pool.infos.batch(0, ids, kinds, lambda e: pool.pickled_info(e, 0))
        if self._final_obs and flags & FLAG_FINAL:
            self._add_final(ids, infos)
        infos["env_id"] = self._all_ids.copy() if full else ids.astype(np.int32)
        infos["elapsed_step"] = elapsed
        return obs, reward, terminated, truncated, infos

    def _add_final(self, ids: np.ndarray, infos: dict[str, Any]) -> None:
        """SAME_STEP: ``final_obs`` / ``final_info`` of the envs whose episode ended in this call."""
        pool = self._pool
        has = pool.arrays["has_final"][ids].view(np.bool_)
        if not has.any():
            return
        size = len(ids)
        rows = np.flatnonzero(has)
        final_ids = ids[rows]
        final_obs = np.full(size, None, dtype=object)
        id_list = final_ids.tolist()
        parts = [
            pool.read_objects(f"final_obs{i}", id_list) if is_object else arr[final_ids]
            for i, (arr, is_object) in enumerate(zip(self._final_obs, self._objects, strict=True))
        ]
        for k, row in enumerate(rows.tolist()):
            final_obs[row] = (
                parts[0][k] if self._flat_obs else nest(self.single_observation_space, [p[k] for p in parts])
            )
        kinds = np.zeros(size, dtype=np.int32)
        kinds[rows] = pool.arrays["final_info_kind"][final_ids]
        final_info: dict[str, Any] = {}
        if kinds.any():
            pool.learn_layouts(kinds)
            final_info = pool.infos.batch(1, ids, kinds, lambda e: pool.pickled_info(e, 1))
        mask = has.copy()
        env_id = np.zeros(size, dtype=np.int32)
        env_id[rows] = final_ids
        elapsed = np.zeros(size, dtype=np.int32)
        elapsed[rows] = pool.arrays["final_elapsed"][final_ids]
        final_info["env_id"], final_info["_env_id"] = env_id, mask.copy()
        final_info["elapsed_step"], final_info["_elapsed_step"] = elapsed, mask.copy()
        infos["final_obs"], infos["_final_obs"] = final_obs, mask.copy()
        infos["final_info"], infos["_final_info"] = final_info, mask

    def _raise_env_errors(self, failed: np.ndarray) -> None:
        pool = self._pool
        failed_ids = [int(i) for i in failed]
        texts = [pool.errors.pop(i, "(no traceback came back)") for i in failed_ids]
        self._ended[failed] = True  # they start a new episode on their next step (DISABLED: need a reset)
        self._status[failed] = 0
        head = texts[0].strip().splitlines()[0] if texts[0].strip() else "error"
        names = ", ".join(map(str, failed_ids))
        raise EnvError(
            f"env {failed_ids[0]} raised: {head} (failed env(s): {names}; this batch is lost and the failed "
            f"envs start a new episode on their next step)\n{texts[0]}",
            failed_ids[0],
            failed_ids,
        )


def _check_timeout(timeout: Any) -> float | None:
    """recv(timeout=): seconds >= 0; None or inf: no deadline."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int | float | np.integer | np.floating):
        raise TypeError(f"timeout must be a number of seconds or None, got {timeout!r}")
    seconds = float(timeout)
    if math.isnan(seconds):
        raise ValueError("timeout must be a number of seconds, got nan")
    if seconds < 0:
        raise ValueError(f"timeout must be >= 0, got {seconds}")
    return None if math.isinf(seconds) else seconds


def _leaf_getters(space: spaces.Space[Any]) -> list[Callable[[Any], Any]]:
    return [getter(leaf.path) for leaf in leaves(space, "action")]


def _in_range(arr: np.ndarray, low: int, high: int) -> bool:
    """``low <= arr < high`` everywhere, with one reduction: viewed as unsigned, a value below
    ``low`` wraps around to a huge one."""
    shifted = arr if low == 0 else arr - low
    if shifted.dtype.kind == "i":
        shifted = shifted.view(f"u{shifted.dtype.itemsize}")
    return bool(shifted.max() < high - low)


def _check_leaf(leaf: Leaf, value: Any, n: int, ids: np.ndarray | None) -> np.ndarray:
    """Validate one action leaf for ``n`` envs; returns it as an array (the arena casts it)."""
    space = leaf.space
    arr = value if type(value) is np.ndarray else np.asarray(value)
    if arr.shape != (n, *leaf.shape):
        raise ValueError(f"actions must have shape {(n, *leaf.shape)}, got {arr.shape}")
    kind = arr.dtype.kind
    if isinstance(space, spaces.Box):
        if kind not in "iuf":
            raise TypeError(f"actions for a Box action space must be real numbers, got dtype {arr.dtype}")
        if kind == "f" and not np.isfinite(arr).all():
            row = int(np.flatnonzero(~np.isfinite(arr).reshape(n, -1).all(axis=1))[0])
            env = row if ids is None else int(ids[row])
            raise ValueError(f"action for env {env} is not finite: {arr[row]}")
        return arr
    if kind not in "iu":
        raise TypeError(f"actions for a {type(space).__name__} action space must be integers, got dtype {arr.dtype}")
    if isinstance(space, spaces.Discrete):
        low, high = int(space.start), int(space.start) + int(space.n)
        if n and _in_range(arr, low, high):
            return arr
    elif isinstance(space, spaces.MultiDiscrete):
        low, high = space.start, space.start + space.nvec  # type: ignore[assignment]
    else:
        low, high = 0, 2
    bad = (arr < low) | (arr >= high)
    if bad.any():
        row = int(np.flatnonzero(bad.reshape(n, -1).any(axis=1))[0])
        env = row if ids is None else int(ids[row])
        raise ValueError(f"action {arr[row]} for env {env} is outside the action space {space}")
    return arr
