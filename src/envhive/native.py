"""NativeBackend: envhive's C++ thread pool (a family module's ``NativePool``) as a backend of the
one Gymnasium facade. The pool checks every call itself in C++ (``csrc/bindings/call_front.h``,
with the facade's rules and messages) and returns its batches as numpy views; the facade calls the
pool's own ``step`` / ``send`` / ``recv``, so no Python runs between them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from envhive import catalog
from envhive.backend import Capabilities, Step
from envhive.registry import TaskSpec


class NativeBackend:
    """The native pool of a resolved task (``spec``)."""

    capabilities = Capabilities(
        checks_calls=True, partial_step=True, dm_step_types=True, xla=True, render_env_ids=True, text_bytes=True
    )
    attributes: frozenset[str] = frozenset()

    def __init__(self, spec: TaskSpec) -> None:
        self.spec = spec
        pool = spec.pool
        self.metadata: dict[str, Any] = {"render_modes": [] if spec.render is None else ["rgb_array"]}
        if spec.render is not None:
            self.metadata["render_fps"] = spec.render.fps
        self.module = module = catalog.module_for(spec.id)
        options = module.PoolOptions(
            num_envs=pool.num_envs,
            batch_size=pool.batch_size,
            num_threads=pool.num_threads,
            thread_affinity_offset=pool.thread_affinity_offset,
            autoreset_mode=module.AutoresetMode[pool.autoreset_mode.name],  # bound under Gymnasium's names
            max_episode_steps=spec.max_episode_steps,
            render=pool.render_mode is not None,
        )
        self.pool = module.NativePool(spec.id, spec.config, options, pool.seeds)
        # The pool's own calls, bound: the facade reaches C++ with no Python frame of this class.
        self.step: Callable[..., Step] = self.pool.step
        self.send: Callable[..., None] = self.pool.send
        self.recv: Callable[[float | None], Step] = self.pool.recv

    def reset(
        self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any] | None
    ) -> tuple[Any, dict[str, Any]]:
        per_env = self._reset_options(options, mask)
        return self.pool.reset(mask=None if mask is None else mask.tolist(), seeds=seeds, options=per_env)

    def async_reset(self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any] | None) -> None:
        per_env = self._reset_options(options, mask)
        self.pool.async_reset(mask=None if mask is None else mask.tolist(), seeds=seeds, options=per_env)

    def render(self, env_ids: Any) -> Sequence[np.ndarray]:
        return tuple(self.pool.render(env_ids))

    def close(self) -> None:
        self.pool.close()

    @property
    def closed(self) -> bool:
        return bool(self.pool.closed)

    def describe(self) -> str:
        return ""

    def dm_calls(
        self, timestep_type: type[tuple[Any, ...]]
    ) -> tuple[Callable[..., tuple[Any, Any]], Callable[..., tuple[Any, Any]]]:
        """The pool's dm_env calls ``(step_dm(actions, env_id), recv_dm(timeout))``, each returning
        ``(timestep, (info, terminated, truncated))``, step types and discounts computed in C++."""
        self.pool.timestep_type = timestep_type
        return self.pool.step_dm, self.pool.recv_dm

    def abi_ref(self) -> tuple[int, int, int]:
        """How XLA programs name the pool (``NativePool.abi_ref``)."""
        serial, address, call = self.pool.abi_ref()
        return int(serial), int(address), int(call)

    def _reset_options(
        self, options: dict[str, Any] | None, mask: np.ndarray | None
    ) -> dict[str, dict[int, list[float]]]:
        """Task reset options -> {name: {env id: values}} for the envs being reset. A value is a
        scalar (every env), an array of shape (num_envs,) (one scalar per env) or (num_envs, k) (k
        values per env)."""
        if not options:
            return {}
        task = self.spec.task
        valid = {name for name, _ in task.reset_options}
        unknown = sorted(set(options) - valid)
        if unknown:
            names = ", ".join(sorted({"reset_mask", *valid}))
            raise ValueError(f"{self.spec.id}: unsupported reset option(s) {unknown}; valid: {names}")
        n = self.spec.pool.num_envs
        out: dict[str, dict[int, list[float]]] = {}
        for name, value in options.items():
            arr = np.asarray(value, dtype=np.float64)
            if arr.ndim == 0:
                arr = np.full((n, 1), arr.item())
            elif arr.ndim == 1 and arr.shape[0] == n:
                arr = arr[:, None]
            elif arr.ndim != 2 or arr.shape[0] != n:
                raise ValueError(
                    f"reset option {name!r} must be a scalar or of shape (num_envs,) or (num_envs, k), got {arr.shape}"
                )
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"reset option {name!r} must be finite")
            out[name] = {i: arr[i].tolist() for i in range(n) if mask is None or mask[i]}
        return out
