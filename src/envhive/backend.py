"""What a backend is: the protocol every pool implementation gives the one Gymnasium facade
(:class:`envhive.vector.HiveVectorEnv`).

A backend runs ``num_envs`` envs of one resolved task (``spec``: the task, its config and spaces,
the pool config) and answers the calls below with plain arrays: the observation (one array per
leaf, nested as the space), rewards, flags and the info dict of Gymnasium's vector convention
(``env_id``, ``elapsed_step``, the task's info columns, SAME_STEP's ``final_obs`` / ``final_info``).
The facade checks every argument once before a backend sees it (``envhive.checks``); what a backend
can or cannot do it says in its :class:`Capabilities`, never by its type. Three implement it:
``envhive.native.NativeBackend`` (the thread pool), ``envhive.process.ProcessBackend`` (worker
processes) and ``envhive.ray.RayBackend`` (pools in Ray actors). docs/architecture.md says how to add
one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from envhive.registry import TaskSpec

Step = tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]
"""One batch: ``(obs, reward, terminated, truncated, info)``."""


@dataclass(frozen=True)
class Capabilities:
    """What a backend does beyond the protocol's calls."""

    checks_calls: bool = False
    """It checks actions and env ids itself, with the facade's rules and messages (the native pool,
    in C++); otherwise the facade checks them (``envhive.checks``) before ``send`` / ``step``."""
    partial_step: bool = False
    """``step(..., partial=True)``: a sync pool steps only some envs; the others report their state."""
    dm_step_types: bool = False
    """``dm_calls``: it computes dm_env's step types and discounts with the batch."""
    xla: bool = False
    """``abi_ref``: its pool can be called from XLA programs (``env.xla()``)."""
    render_env_ids: bool = False
    """``render(env_ids)`` draws only those envs; otherwise it draws every env."""
    text_bytes: bool = False
    """A Text observation leaf comes as a numpy ``S<max_length>`` array (zero-padded UTF-8, the
    native pool's, unless ``text_observations="str"``); otherwise as ``str`` values, whatever the
    space (the process backend returns what its envs return: minigrid's ``MissionSpace`` too)."""


@runtime_checkable
class Backend(Protocol):
    """A pool of envs behind the facade. Calls arrive checked: ``seeds`` map env ids to seeds,
    ``mask`` is a bool array of ``num_envs`` with a True, ``options`` are the envs' own reset options
    (None when the caller gave none), ``timeout`` is seconds or None; unless the
    backend ``checks_calls`` itself, ``env_ids`` are in range and distinct (or None: every env) and
    ``actions`` hold one valid action per env (``envhive.checks.ActionCheck``)."""

    spec: TaskSpec
    capabilities: Capabilities
    metadata: dict[str, Any]
    """Gymnasium's metadata: ``render_modes``, ``render_fps``."""
    attributes: frozenset[str]
    """Names of its own public attributes the facade also answers (``env.worker_pids``, ...)."""

    def reset(
        self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any] | None
    ) -> tuple[Any, dict[str, Any]]: ...

    def async_reset(self, mask: np.ndarray | None, seeds: dict[int, int], options: dict[str, Any] | None) -> None: ...

    def send(self, actions: Any, env_ids: Any, *, partial: bool = False) -> None: ...

    def recv(self, timeout: float | None) -> Step: ...

    def step(self, actions: Any, env_ids: Any, *, partial: bool = False) -> Step: ...

    def render(self, env_ids: Any) -> Sequence[np.ndarray]: ...

    def close(self) -> None: ...

    @property
    def closed(self) -> bool: ...

    def describe(self) -> str:
        """The backend's part of the env's repr (e.g. ``num_workers=4, start_method='fork'``)."""
        ...


class XlaPool(Protocol):
    """What a backend with the ``xla`` capability adds: how XLA programs reach its pool."""

    module: Any
    """The family module whose C interface (``POOL_ABI``, csrc/bindings/pool_abi.h) serves the pool."""

    def abi_ref(self) -> tuple[int, int, int]:
        """``(serial, address, next call number)`` of the pool in its module."""
        ...


class DmStepTypes(Protocol):
    """What a backend with the ``dm_step_types`` capability adds."""

    def dm_calls(
        self, timestep_type: type[tuple[Any, ...]]
    ) -> tuple[Callable[..., tuple[Any, Any]], Callable[..., tuple[Any, Any]]]:
        """``(step_dm(actions, env_id), recv_dm(timeout))``, each returning ``(timestep, (info,
        terminated, truncated))`` with the step types and discounts computed by the backend."""
        ...
