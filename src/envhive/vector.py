"""HiveVectorEnv: the one Gymnasium ``VectorEnv`` of envhive, over any backend (``envhive.backend``).

Sync mode (``batch_size == num_envs``) is a drop-in Gymnasium vector env. Async mode
(``batch_size < num_envs``) adds EnvPool's ``send``/``recv``: ``recv`` returns the first
``batch_size`` envs to finish with ``info["env_id"]``, and ``send(actions, env_id)`` steps them.
The backend runs the envs: the native thread pool (``envhive.native``, the default for envhive task
ids), worker processes (``envhive.process``) or pools in Ray actors (``envhive.ray``). Every call's
arguments are checked once, here (``envhive.checks``), before a backend sees them; a backend that
checks actions and env ids itself says so in its capabilities (the native pool, in C++).

``render_mode="rgb_array"`` makes ``render()`` return every env's frame: a tuple of
``(height, width, 3)`` uint8 arrays, as Gymnasium's vector envs return them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from gymnasium import logger
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envhive.backend import Backend, Capabilities, Step
from envhive.checks import ActionCheck, check_env_ids, check_reset_mask, check_timeout, env_seeds
from envhive.errors import MissingExtraError
from envhive.families import task_methods
from envhive.leaves import text_leaves, with_final_text_decoded, with_text_decoded
from envhive.native import NativeBackend
from envhive.registry import PoolConfig, TaskSpec, make_spec

CALLS = ("reset", "step", "send", "recv", "async_reset", "render")
"""The public calls whose path a HiveVectorEnv picks when it is made (and at ``use_api``)."""


class VectorApi(Protocol):
    """Another library's conventions for the calls of a HiveVectorEnv (``envhive.envpool``'s
    EnvPool API): from :meth:`HiveVectorEnv.use_api` on, the env's public calls are the API's (same
    signatures); it serves them with the env's own Gymnasium calls (``_reset``, ``_step``,
    ``_send``, ``_recv``, ``_async_reset``, ``_render``)."""

    attributes: frozenset[str]

    def reset(
        self, env_id: Any = None, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]: ...

    def step(self, actions: Any, env_id: Any = None, *, partial: bool = False) -> Step: ...

    def send(self, actions: Any, env_id: Any = None, *, partial: bool = False) -> None: ...

    def recv(self, timeout: Any = None, *, reset: bool = False, return_info: bool = True) -> Any: ...

    def async_reset(self, seed: Any = None, *, reset_mask: Any = None) -> None: ...

    def render(self, env_ids: Any = None, camera_id: int | None = None) -> Any: ...

    def describe(self) -> str:
        """The env's repr under this API."""
        ...


class HiveVectorEnv(VectorEnv):
    """A batch of envs of one task. ``task``: an envhive task id (kwargs as for ``envhive.make``,
    run on the native pool), a resolved :class:`~envhive.registry.TaskSpec`, or a backend built
    already (``envhive.process.ProcessVectorEnv`` and ``envhive.ray.RayVectorEnv`` build theirs)."""

    is_vector_env = True

    def __init__(self, task: str | TaskSpec | Backend, **kwargs: Any) -> None:
        if not isinstance(task, str) and kwargs:
            raise TypeError("pass kwargs to make_spec() (or the backend) when giving a TaskSpec or a backend")
        if isinstance(task, str):
            task = make_spec(task, **kwargs)
        backend: Backend = NativeBackend(task) if isinstance(task, TaskSpec) else task
        self.backend = backend
        spec = self.task_spec = backend.spec
        pool = spec.pool
        self._num_envs = pool.num_envs
        self.batch_size = pool.batch_size
        self.autoreset_mode: AutoresetMode = pool.autoreset_mode
        self.metadata = {"render_modes": [], **backend.metadata, "autoreset_mode": pool.autoreset_mode}
        self.render_mode = pool.render_mode
        self.single_observation_space = spec.observation_space
        self.single_action_space = spec.action_space
        # Batched over the rows a call returns: num_envs in sync mode, batch_size in async mode.
        self.observation_space = batch_space(spec.observation_space, pool.batch_size)
        self.action_space = batch_space(spec.action_space, pool.batch_size)
        self.capabilities: Capabilities = backend.capabilities
        self._sync = not pool.is_async
        # Actions for a backend that does not check them itself (the native pool does, in C++).
        self._check_actions = None if backend.capabilities.checks_calls else ActionCheck(spec.action_space)
        # text_observations="str": Text leaves as Gymnasium batches them (tuples of str).
        self._text = text_leaves(spec.observation_space) if pool.text_observations == "str" else []
        # A backend that takes step and send as they come -- it checks them itself, steps part of
        # a sync pool, and nothing is decoded here (the native pool: the same signature, partial
        # included) -- serves them with no Python frame at all (~0.1 us a call).
        direct = backend.capabilities.checks_calls and backend.capabilities.partial_step and not self._text
        self._direct_step: Callable[..., Step] | None = backend.step if direct else None
        self._api: VectorApi | None = None
        self._use_paths()

    def use_api(self, api: VectorApi) -> None:
        """Serve every call with ``api``'s conventions from now on (``envhive.envpool`` makes its
        pools this way: EnvPool's API is this class with EnvPool's conventions)."""
        self._api = api
        self._use_paths()

    def _use_paths(self) -> None:
        """Each public call's one path, picked here (at construction and at ``use_api``): the API's
        own call when one is in use; else the backend's bound step and send where it takes them as
        they come; else the methods of this class (Gymnasium's way: checked, decoded)."""
        own = self.__dict__
        for name in CALLS:
            own.pop(name, None)
        if self._api is not None:
            own.update({name: getattr(self._api, name) for name in CALLS})
        elif self._direct_step is not None:
            own["step"] = self.backend.step
            own["send"] = self.backend.send

    @property
    def num_envs(self) -> int:
        return self._num_envs

    @num_envs.setter
    def num_envs(self, value: int) -> None:  # EnvPool scripts assign it (envs.num_envs = args.num_envs)
        if value != self._num_envs:
            raise ValueError(f"num_envs is fixed when the env is made ({self._num_envs}), got {value}")

    def __len__(self) -> int:
        """The number of envs (EnvPool's ``len(env)``; Tianshou reads it)."""
        return self._num_envs

    @property
    def all_env_ids(self) -> np.ndarray:
        """``0 .. num_envs - 1`` as int32 (EnvPool's)."""
        return np.arange(self._num_envs, dtype=np.int32)

    @property
    def is_async(self) -> bool:
        """Async mode: ``batch_size < num_envs`` (EnvPool's)."""
        return not self._sync

    @property
    def pool_config(self) -> PoolConfig:
        """The pool's resolved kwargs (``task_spec.pool``)."""
        return self.task_spec.pool

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self,
        env_id: Any = None,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Reset envs and return ``(obs, info)``.

        ``seed``: an int seeds env i with ``seed + i``; a sequence gives one seed (or None) per env.
        ``options={"reset_mask": mask}`` resets only the envs where the bool mask is True; in sync
        mode the others report their current observation. ``env_id`` (EnvPool's form) is the same
        as a mask of those envs. The task's other reset options go to the envs being reset. In
        async mode ``reset`` restarts the masked (default: all) envs and returns the next batch,
        like EnvPool.
        """
        return self._reset(env_id, seed, options)

    def step(self, actions: Any, env_id: Any = None, *, partial: bool = False) -> Step:
        """Step and return ``(obs, rewards, terminations, truncations, infos)``.

        Sync mode steps every env. Async mode sends ``actions`` to ``env_id`` (default: all
        envs) and returns the next ``batch_size`` envs to finish.

        ``partial=True`` lets a sync pool step only the envs in ``env_id``: every env's row still
        comes back, the others holding their state (their current observation, reward 0, both
        flags False), as ``reset(options={"reset_mask": ...})`` reports the envs it does not reset.
        """
        return self._step(actions, env_id, partial)

    def render(self, env_ids: Any = None, camera_id: int | None = None) -> Any:
        """Every env's frame (or those of ``env_ids``, in that order) as a tuple of
        ``(height, width, 3)`` uint8 arrays.

        Native pools draw on the pool's threads into one block this call hands over (no later call
        writes it). Envs in flight (async mode: sent, not yet received) cannot be drawn
        (``ValueError`` naming them; pass the ``env_id`` of the envs awaiting an action), nor envs
        never reset (``ResetNeeded``). ``RenderError`` when a frame cannot be drawn (no headless GL
        for MuJoCo, a bad camera); the envs are unaffected. With ``render_mode=None`` it warns and
        returns None, as Gymnasium. ``camera_id`` (EnvPool's): the camera is the one the env was
        made with (MuJoCo's ``camera_id`` kwarg).
        """
        if camera_id is not None:
            raise ValueError("render(camera_id=...): envhive draws with the camera the env was made with (camera_id=)")
        return self._render(env_ids)

    # ------------------------------------------------------------------ EnvPool API
    def send(self, actions: Any, env_id: Any = None, *, partial: bool = False) -> None:
        """Queue ``actions`` for ``env_id`` (default: every env) and return at once (``partial``:
        as for :meth:`step`)."""
        self._send(actions, env_id, partial)

    def recv(self, timeout: float | None = None, *, reset: bool = False, return_info: bool = True) -> Any:
        """Wait for the next ``batch_size`` envs to finish; ``TimeoutError`` after ``timeout`` s.
        ``reset=True`` (EnvPool's): return ``(obs, info)`` of a batch of resets."""
        out = self._recv(timeout)
        return (out[0], out[4]) if reset else out

    def async_reset(self, seed: int | Sequence[int | None] | None = None, *, reset_mask: Any = None) -> None:
        """Reset every env (or those ``reset_mask``, a bool array of shape ``(num_envs,)``, selects)
        without waiting; collect the results with ``recv()``."""
        self._async_reset(seed, reset_mask)

    # ------------------------------------------------------------------ the calls, Gymnasium's way
    def _reset(self, env_id: Any, seed: Any, options: dict[str, Any] | None) -> tuple[Any, dict[str, Any]]:
        mask, task_options = self._split_options(options)
        if env_id is not None:
            if mask is not None:
                raise ValueError("pass either env_id or options['reset_mask'], not both")
            mask = np.zeros(self._num_envs, dtype=bool)
            mask[check_env_ids(env_id, self._num_envs)] = True
        obs, info = self.backend.reset(mask, env_seeds(seed, self._num_envs, mask), task_options)
        return (with_text_decoded(obs, self._text) if self._text else obs), info

    def _step(self, actions: Any, env_id: Any, partial: bool) -> Step:
        ids, actions = self._checked(actions, env_id, partial)
        out = self.backend.step(actions, ids, partial=partial)
        return self._decoded(out) if self._text else out

    def _send(self, actions: Any, env_id: Any, partial: bool) -> None:
        ids, actions = self._checked(actions, env_id, partial)
        self.backend.send(actions, ids, partial=partial)

    def _recv(self, timeout: Any) -> Step:
        out = self.backend.recv(None if timeout is None else check_timeout(timeout))
        return self._decoded(out) if self._text else out

    def _async_reset(self, seed: Any, reset_mask: Any) -> None:
        mask = None if reset_mask is None else check_reset_mask(reset_mask, self._num_envs)
        self.backend.async_reset(mask, env_seeds(seed, self._num_envs, mask), None)

    def _render(self, env_ids: Any) -> tuple[np.ndarray, ...] | None:
        if self.render_mode is None:
            logger.warn(
                "You are calling render method without specifying any render mode. "
                f'You can specify the render_mode at initialization, e.g. envhive.make("{self.task_spec.id}", '
                'render_mode="rgb_array")'
            )
            return None
        if env_ids is not None and not self.capabilities.render_env_ids:
            raise ValueError(f"render(env_ids=...): this backend draws every env; {self._backend_name()} cannot pick")
        return tuple(self.backend.render(env_ids))

    # ------------------------------------------------------------------ JAX
    def xla(self) -> Any:
        """EnvPool's ``(handle, recv, send, step)``: this pool inside ``jax.jit`` / ``lax.scan`` /
        ``vmap`` through XLA FFI (see :mod:`envhive.xla`); needs the ``jax`` extra. Reset the pool
        (``reset()``, or ``async_reset()`` in async mode) before the compiled program runs."""
        if not self.capabilities.xla:
            raise ValueError(
                f"env.xla() runs envhive's native pools inside XLA programs; {self._backend_name()} has no XLA "
                "interface (make the env with the native backend)"
            )
        try:
            from envhive.xla import make_xla  # jax is an optional extra: imported on first use
        except ModuleNotFoundError as e:
            if e.name is not None and e.name.split(".")[0] in ("jax", "jaxlib"):
                raise MissingExtraError(f'env.xla() needs JAX: pip install "envhive[jax]" ({e})') from e
            raise
        return make_xla(self, getattr(self._api, "xla_state", None))

    # ------------------------------------------------------------------ life
    def close_extras(self, **kwargs: Any) -> None:
        if "backend" in self.__dict__:
            self.backend.close()

    @property
    def closed(self) -> bool:
        return self.backend.closed if "backend" in self.__dict__ else True

    @closed.setter
    def closed(self, value: bool) -> None:  # VectorEnv.close() assigns it; the backend is the truth
        pass

    def __getattr__(self, name: str) -> Any:
        """The backend's own public attributes (``worker_pids`` of the process backend, ``restarts``
        and ``shard_info`` of Ray's, ...), those of the API in use (EnvPool's ``config``) and the
        task's own methods (``envhive.families.task_methods``: a GoalEnv's ``compute_reward``)."""
        backend = self.__dict__.get("backend")
        if backend is not None and name in backend.attributes:
            return getattr(backend, name)
        api = self.__dict__.get("_api")
        if api is not None and name in api.attributes:
            return getattr(api, name)
        spec = self.__dict__.get("task_spec")  # the task's own methods (a GoalEnv's compute_reward)
        methods = task_methods(spec.family, spec.id, spec.config) if spec is not None else {}
        if name in methods:
            return methods[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        if self._api is not None:
            return self._api.describe()
        mode = "sync" if self._sync else f"async, batch_size={self.batch_size}"
        extra = self.backend.describe()
        return f"HiveVectorEnv({self.task_spec.id}, num_envs={self.num_envs}, {mode}{', ' + extra if extra else ''})"

    # ------------------------------------------------------------------ helpers
    def _backend_name(self) -> str:
        return f"its backend ({type(self.backend).__name__})"

    def _checked(self, actions: Any, env_id: Any, partial: bool) -> tuple[Any, Any]:
        """(env ids, actions) as the backend takes them: checked here unless the backend checks them."""
        if partial and not self.capabilities.partial_step:
            raise ValueError(f"step(partial=True): {self._backend_name()} steps every env of a sync pool at once")
        if self._check_actions is None:
            return env_id, actions
        ids = check_env_ids(env_id, self.num_envs)
        n = self.num_envs if ids is None else len(ids)
        leaves = self._check_actions(actions, n, ids)
        return ids, leaves[0] if self._check_actions.single else leaves

    def _decoded(self, out: Step) -> Step:
        if not self._text:
            return out
        obs, reward, terminated, truncated, info = out
        if "final_obs" in info:  # SAME_STEP: the ended episodes' last observations, one type per key
            info = {**info, "final_obs": with_final_text_decoded(info["final_obs"], self._text)}
        return with_text_decoded(obs, self._text), reward, terminated, truncated, info

    def _split_options(self, options: dict[str, Any] | None) -> tuple[np.ndarray | None, dict[str, Any] | None]:
        """(reset mask or None, the envs' own reset options: None when no options were given, as
        Gymnasium's vector envs pass them on)."""
        if options is None:
            return None, None
        if not isinstance(options, dict):
            raise TypeError(f"options must be a dict, got {type(options).__name__}")
        rest = {k: v for k, v in options.items() if k != "reset_mask"}
        if "reset_mask" not in options:
            return None, rest
        return check_reset_mask(options["reset_mask"], self.num_envs), rest


EnvhivePool = HiveVectorEnv
"""Every envhive pool is a HiveVectorEnv, whatever its backend (the name earlier versions gave the
shape native, process and Ray pools shared)."""


def vector_entry_point(task_id: str, **kwargs: Any) -> HiveVectorEnv:
    """Gymnasium's vector entry point of ``envhive/<id>`` (``gymnasium.make_vec``, ``render_mode``
    included)."""
    return HiveVectorEnv(task_id, **kwargs)
