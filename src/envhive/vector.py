"""HiveVectorEnv: a gymnasium.vector.VectorEnv over the native pool.

Sync mode (``batch_size == num_envs``) is a drop-in Gymnasium vector env. Async mode
(``batch_size < num_envs``) adds EnvPool's ``send``/``recv``: ``recv`` returns the first
``batch_size`` envs to finish with ``info["env_id"]``, and ``send(actions, env_id)`` steps them.

``render_mode="rgb_array"`` makes ``render()`` return every env's frame (Gymnasium's frames, drawn on
the pool's threads): a tuple of ``(height, width, 3)`` uint8 arrays, as Gymnasium's vector envs
return them (``gymnasium.wrappers.vector.RecordVideo`` works on it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import logger
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envhive import catalog
from envhive.checks import check_reset_mask, check_timeout, resolve_seeds
from envhive.errors import MissingExtraError
from envhive.registry import TaskSpec, make_spec

# Gymnasium's autoreset modes by the names the native modules bind them under.
_NATIVE_AUTORESET = {
    AutoresetMode.NEXT_STEP: "next_step",
    AutoresetMode.SAME_STEP: "same_step",
    AutoresetMode.DISABLED: "disabled",
}


class HiveVectorEnv(VectorEnv):
    """A batch of envs of one task, stepped by envhive's native thread pool."""

    def __init__(self, task: str | TaskSpec, **kwargs: Any) -> None:
        spec = task if isinstance(task, TaskSpec) else make_spec(task, **kwargs)
        if isinstance(task, TaskSpec) and kwargs:
            raise TypeError("pass kwargs to make_spec() when giving a TaskSpec")
        self.task_spec = spec
        pool = spec.pool
        self.num_envs = pool.num_envs
        self.batch_size = pool.batch_size
        self.autoreset_mode = pool.autoreset_mode
        # Gymnasium's metadata: the modes this task renders, its frame rate, the autoreset mode.
        self.metadata = {"render_modes": [], "autoreset_mode": pool.autoreset_mode}
        if spec.render is not None:
            self.metadata["render_modes"] = ["rgb_array"]
            self.metadata["render_fps"] = spec.render.fps
        self.render_mode = pool.render_mode
        self.single_observation_space = spec.observation_space
        self.single_action_space = spec.action_space
        # Batched over the rows a call returns: num_envs in sync mode, batch_size in async mode.
        self.observation_space = batch_space(spec.observation_space, pool.batch_size)
        self.action_space = batch_space(spec.action_space, pool.batch_size)
        module = catalog.module_for(spec.id)
        options = module.PoolOptions(
            num_envs=pool.num_envs,
            batch_size=pool.batch_size,
            num_threads=pool.num_threads,
            thread_affinity_offset=pool.thread_affinity_offset,
            autoreset_mode=getattr(module.AutoresetMode, _NATIVE_AUTORESET[pool.autoreset_mode]),
            max_episode_steps=spec.max_episode_steps,
            render=pool.render_mode is not None,
        )
        self._pool = module.NativePool(spec.id, spec.config, options, pool.seeds or [])
        self._sync = not pool.is_async

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset envs and return ``(obs, info)``.

        ``seed``: an int seeds env i with ``seed + i``; a sequence gives one seed (or None) per env.
        ``options={"reset_mask": mask}`` resets only the envs where the bool mask is True; in sync
        mode the others report their current observation. In async mode ``reset`` restarts the
        masked (default: all) envs and returns the next batch, like EnvPool.
        """
        mask = self._reset_mask(options)
        seeds = self._seed_map(seed, mask)
        per_env = self._reset_options(options, mask)
        return self._pool.reset(mask=None if mask is None else mask.tolist(), seeds=seeds, options=per_env)

    def step(
        self, actions: Any, env_id: Any = None, *, partial: bool = False
    ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step and return ``(obs, rewards, terminations, truncations, infos)``.

        Sync mode steps every env. Async mode sends ``actions`` to ``env_id`` (default: all
        envs) and returns the next ``batch_size`` envs to finish.

        ``partial=True`` lets a sync pool step only the envs in ``env_id``: every env's row still
        comes back, the others holding their state (their current observation, reward 0, both
        flags False), as ``reset(options={"reset_mask": ...})`` reports the envs it does not reset.
        """
        if partial:
            return self._pool.step(actions, env_id, partial=True)
        return self._pool.step(actions, env_id)

    def render(self, env_ids: Any = None) -> tuple[np.ndarray, ...] | None:
        """Every env's frame (or those of ``env_ids``, in that order) as a tuple of
        ``(height, width, 3)`` uint8 arrays, drawn on the pool's threads.

        The frames are views into one block this call hands over: no later call writes them. Envs
        in flight (async mode: sent, not yet received) cannot be drawn (``ValueError`` naming them;
        pass the ``env_id`` of the envs awaiting an action), nor envs never reset (``ResetNeeded``).
        ``RenderError`` when a frame cannot be drawn (no headless GL for MuJoCo, a bad camera);
        the envs are unaffected. With ``render_mode=None`` it warns and returns None, as Gymnasium.
        """
        if self.render_mode is None:
            logger.warn(
                "You are calling render method without specifying any render mode. "
                f'You can specify the render_mode at initialization, e.g. envhive.make("{self.task_spec.id}", '
                'render_mode="rgb_array")'
            )
            return None
        return tuple(self._pool.render(env_ids))

    # ------------------------------------------------------------------ EnvPool API
    def send(self, actions: Any, env_id: Any = None, *, partial: bool = False) -> None:
        """Queue ``actions`` for ``env_id`` (default: every env) and return at once (``partial``:
        as for :meth:`step`)."""
        if partial:
            self._pool.send(actions, env_id, partial=True)
        else:
            self._pool.send(actions, env_id)

    def recv(self, timeout: float | None = None) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Wait for the next ``batch_size`` envs to finish; ``TimeoutError`` after ``timeout`` s."""
        return self._pool.recv(check_timeout(timeout))

    def async_reset(self, seed: int | Sequence[int | None] | None = None, *, reset_mask: Any = None) -> None:
        """Reset every env (or those ``reset_mask``, a bool array of shape ``(num_envs,)``, selects)
        without waiting; collect the results with ``recv()``."""
        if reset_mask is None:
            self._pool.async_reset(seeds=self._seed_map(seed, None))
            return
        mask = self._reset_mask({"reset_mask": reset_mask})
        assert mask is not None
        self._pool.async_reset(mask=mask.tolist(), seeds=self._seed_map(seed, mask))

    # ------------------------------------------------------------------ dm_env
    def dm_calls(
        self, timestep_type: type[tuple[Any, ...]]
    ) -> tuple[Callable[..., tuple[Any, Any]], Callable[..., tuple[Any, Any]]]:
        """The native pool's dm_env calls ``(step_dm(actions, env_id), recv_dm(timeout))``, each
        returning ``(timestep, (info, terminated, truncated))``: ``timestep`` a ``timestep_type``
        (``dm_env.TimeStep``) of ``(step_type, reward, discount, observation)``, step types and
        discounts computed natively as :class:`envhive.dm.HiveDmEnv` defines them."""
        self._pool.timestep_type = timestep_type
        return self._pool.step_dm, self._pool.recv_dm

    # ------------------------------------------------------------------ JAX
    def xla(self) -> Any:
        """EnvPool's ``(handle, recv, send, step)``: this pool inside ``jax.jit`` / ``lax.scan`` /
        ``vmap`` through XLA FFI (see :mod:`envhive.xla`); needs the ``jax`` extra. Reset the pool
        (``reset()``, or ``async_reset()`` in async mode) before the compiled program runs."""
        try:
            from envhive.xla import make_xla  # jax is an optional extra: imported on first use
        except ModuleNotFoundError as e:
            if e.name is not None and e.name.split(".")[0] in ("jax", "jaxlib"):
                raise MissingExtraError(f'env.xla() needs JAX: pip install "envhive[jax]" ({e})') from e
            raise
        return make_xla(self)

    def close_extras(self, **kwargs: Any) -> None:
        self._pool.close()

    @property
    def closed(self) -> bool:
        return bool(self._pool.closed) if hasattr(self, "_pool") else True

    @closed.setter
    def closed(self, value: bool) -> None:  # VectorEnv.close() assigns it; the pool is the truth
        pass

    def __repr__(self) -> str:
        mode = "sync" if self._sync else f"async, batch_size={self.batch_size}"
        return f"HiveVectorEnv({self.task_spec.id}, num_envs={self.num_envs}, {mode})"

    # ------------------------------------------------------------------ helpers
    def _reset_mask(self, options: dict[str, Any] | None) -> np.ndarray | None:
        if not options:
            return None
        valid = {"reset_mask", *(name for name, _ in self.task_spec.task.reset_options)}
        unknown = sorted(set(options) - valid)
        if unknown:
            raise ValueError(
                f"{self.task_spec.id}: unsupported reset option(s) {unknown}; valid: {', '.join(sorted(valid))}"
            )
        if "reset_mask" not in options:
            return None
        return check_reset_mask(options["reset_mask"], self.num_envs)

    def _reset_options(
        self, options: dict[str, Any] | None, mask: np.ndarray | None
    ) -> dict[str, dict[int, list[float]]]:
        """Task reset options -> {name: {env id: values}} for the envs being reset.

        A value is a scalar (every env), an array of shape (num_envs,) (one scalar per env) or
        (num_envs, k) (k values per env).
        """
        out: dict[str, dict[int, list[float]]] = {}
        for name, value in (options or {}).items():
            if name == "reset_mask":
                continue
            arr = np.asarray(value, dtype=np.float64)
            if arr.ndim == 0:
                arr = np.full((self.num_envs, 1), arr.item())
            elif arr.ndim == 1 and arr.shape[0] == self.num_envs:
                arr = arr[:, None]
            elif arr.ndim != 2 or arr.shape[0] != self.num_envs:
                raise ValueError(
                    f"reset option {name!r} must be a scalar or of shape (num_envs,) or (num_envs, k), got {arr.shape}"
                )
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"reset option {name!r} must be finite")
            out[name] = {i: arr[i].tolist() for i in range(self.num_envs) if mask is None or mask[i]}
        return out

    def _seed_map(self, seed: Any, mask: np.ndarray | None) -> dict[int, int]:
        if seed is None:
            return {}
        if isinstance(seed, Sequence | np.ndarray) and not isinstance(seed, str):
            if len(seed) != self.num_envs:
                raise ValueError(f"seed sequence must have num_envs={self.num_envs} entries, got {len(seed)}")
            pairs = [(i, s) for i, s in enumerate(seed) if s is not None]
            resolved = resolve_seeds([s for _, s in pairs], len(pairs)) or []
            seeds = {i: s for (i, _), s in zip(pairs, resolved, strict=True)}
        else:
            seeds = dict(enumerate(resolve_seeds(seed, self.num_envs) or []))
        if mask is not None:
            seeds = {i: s for i, s in seeds.items() if mask[i]}
        return seeds


def vector_entry_point(task_id: str, **kwargs: Any) -> HiveVectorEnv:
    """Gymnasium's vector entry point of ``envhive/<id>`` (``gymnasium.make_vec``, ``render_mode``
    included)."""
    return HiveVectorEnv(task_id, **kwargs)
