"""dm_env.Environment facades over the same native pool.

:class:`HiveDmEnv` is batched: ``step_type``, ``reward`` and ``discount`` are arrays with one entry
per returned env, ``observation`` the batched observation. dm_env's own convention drives
autoreset: the step after a LAST starts a new episode (FIRST, reward 0), so the pool runs in
NEXT_STEP mode. ``discount`` is 0 when an episode terminated and 1 when it was truncated, so
time limits stay visible and bootstrapping stays correct; a task that reports a ``discount``
info lowers it further (Atari's ``zero_discount_on_life_loss``: 0 on a step that lost a life,
which stays a MID step, as in EnvPool's dm_env mode). ``last_info`` keeps the flags, env ids
and task infos of the latest call.

:class:`HiveSingleDmEnv` is one env as a plain, unbatched ``dm_env.Environment`` (what Acme's
``EnvironmentLoop`` and dm_env's ``EnvironmentTestMixin`` expect): ``StepType`` members, scalar
reward and discount, ``None`` for both on FIRST steps, and ``step()`` on a fresh env or after a
LAST starts a new episode (the action is ignored).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import dm_env
import dm_env.specs
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from envhive.backend import DmStepTypes
from envhive.checks import check_timeout, require_autoreset
from envhive.errors import EnvError
from envhive.leaves import rows, text_leaves, with_text_decoded
from envhive.pools import make_pool
from envhive.registry import TaskSpec
from envhive.vector import HiveVectorEnv

_FIRST, _MID, _LAST = (int(t) for t in (dm_env.StepType.FIRST, dm_env.StepType.MID, dm_env.StepType.LAST))
assert (_FIRST, _MID, _LAST) == (0, 1, 2)  # the native pool writes these values (native_pool.cc)
_TimeStep = dm_env.TimeStep
_STEP_TYPES = (dm_env.StepType.FIRST, dm_env.StepType.MID, dm_env.StepType.LAST)  # by value
_new = tuple.__new__  # builds a TimeStep without the namedtuple's Python-level __new__ (hot path)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


DM_FACADE = "the dm_env facade"
DM_AUTORESET = "dm_env's own: the step after a LAST is the next episode's FIRST"


def _dm_pool(task_id: Any, kwargs: dict[str, Any]) -> HiveVectorEnv:
    """The vector env under a dm facade: built from a task (kwargs and ``backend`` as for
    envhive.make), or any envhive pool built already (native, process backend or
    ``envhive.ray.RayVectorEnv``; in NEXT_STEP mode, without kwargs)."""
    require_autoreset(kwargs.pop("autoreset_mode", None), AutoresetMode.NEXT_STEP, DM_FACADE, DM_AUTORESET)
    backend = kwargs.pop("backend", None)
    if isinstance(task_id, HiveVectorEnv):
        if kwargs or backend is not None:
            raise ValueError("the dm_env facade wraps a vector env as it was made: pass no kwargs with it")
        require_autoreset(
            task_id.autoreset_mode, AutoresetMode.NEXT_STEP, DM_FACADE, "", "make it without autoreset_mode"
        )
        return task_id
    if isinstance(task_id, VectorEnv):
        raise TypeError(f"the dm_env facade wraps envhive pools (envhive.make, ...), not {task_id!r}")
    return make_pool(task_id, backend, **kwargs)


def _check_discount_info(task_spec: TaskSpec) -> None:
    """A task's own ``discount`` info lowers each env's discount: it must be one number per env."""
    field = task_spec.info_fields.get("discount")
    if field is not None and field[1] != ():
        raise ValueError(
            f"{task_spec.id}: its 'discount' info has shape {field[1]}; the dm_env facades lower each env's "
            "discount by a 'discount' info of one number per env (shape ())"
        )


def to_dm_spec(space: spaces.Space[Any], name: str, strings: bool = False) -> Any:
    """The dm_env spec of one env's observation or action (Dict -> dict, Tuple -> tuple of specs).
    ``strings``: the pool returns text leaves as ``str`` (the process backend, or
    ``text_observations="str"``): a Text leaf, or any space of ``str`` values (minigrid's
    ``MissionSpace``), is a ``StringArray``; otherwise a Text leaf is one ``S<max_length>`` value."""
    if isinstance(space, spaces.Discrete):
        if int(space.start) == 0:
            return dm_env.specs.DiscreteArray(int(space.n), dtype=np.int64, name=name)
        low, high = int(space.start), int(space.start) + int(space.n) - 1
        return dm_env.specs.BoundedArray((), np.int64, low, high, name=name)
    if isinstance(space, spaces.Dict):
        return {key: to_dm_spec(sub, f"{name}/{key}", strings) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(to_dm_spec(sub, f"{name}/{i}", strings) for i, sub in enumerate(space.spaces))
    if isinstance(space, spaces.MultiDiscrete):
        return dm_env.specs.BoundedArray(space.shape, space.dtype, space.start, space.start + space.nvec - 1, name=name)
    if isinstance(space, spaces.MultiBinary):
        return dm_env.specs.BoundedArray(space.shape, space.dtype, 0, 1, name=name)
    if strings and (isinstance(space, spaces.Text) or (space.dtype is not None and space.dtype.kind == "U")):
        return dm_env.specs.StringArray((), string_type=str, name=name)
    if isinstance(space, spaces.Text):  # zero-padded UTF-8 bytes, one numpy bytes value per env
        return dm_env.specs.Array((), np.dtype(f"S{space.max_length}"), name=name)
    if isinstance(space, spaces.Box):
        return dm_env.specs.BoundedArray(space.shape, space.dtype, space.low, space.high, name=name)
    raise TypeError(f"no dm_env spec for {space!r}")


def _text_as_str(vec: HiveVectorEnv) -> bool:
    """Whether ``vec`` returns its Text observation leaves as ``str`` (else ``S<n>`` bytes)."""
    return not vec.capabilities.text_bytes or vec.task_spec.pool.text_observations == "str"


def _derive_timestep(
    obs: Any, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray, info: dict[str, Any]
) -> dm_env.TimeStep:
    """The batched TimeStep of a step from a pool that does not compute step types (process
    backend, Ray) -- the native pool's rule (``write_dm_columns`` in native_pool.cc): LAST where
    the episode ended, FIRST where ``elapsed_step`` is 0, MID elsewhere; discount 0 on termination,
    lowered by the task's own ``discount`` info."""
    done = terminated | truncated
    step_type = np.where(done, _LAST, np.where(info["elapsed_step"] == 0, _FIRST, _MID)).astype(np.int8)
    discount = np.where(terminated, 0.0, 1.0).astype(np.float32)
    if "discount" in info:  # the task's own discount (e.g. 0 on a lost life)
        discount = np.minimum(discount, info["discount"]).astype(np.float32)
    return _new(_TimeStep, (_read_only(step_type), reward, _read_only(discount), obs))


def _xla_timestep(obs: Any, reward: Any, terminated: Any, truncated: Any, info: dict[str, Any]) -> dm_env.TimeStep:
    """The batched TimeStep of an XLA call's outputs (JAX arrays), by ``_derive_timestep``'s rule."""
    done = terminated | truncated
    step_type = (done * _LAST + (~done & (info["elapsed_step"] != 0)) * _MID).astype(np.int8)
    discount = (1 - terminated).astype(np.float32)
    if "discount" in info:  # the task's own (e.g. 0 on a lost life)
        discount = discount.clip(None, info["discount"].astype(np.float32))
    return _TimeStep(step_type, reward, discount, obs)


def _dm_calls(vec: HiveVectorEnv) -> tuple[Callable[..., tuple[Any, Any]], Callable[..., tuple[Any, Any]]]:
    """``(step(actions, env_id), recv(timeout))`` over ``vec``, each returning ``(batched
    TimeStep, (info, terminated, truncated))``: the backend's own dm calls where it computes step
    types (``capabilities.dm_step_types``: the native pool), else the pool's step / recv with the
    step types derived from their flags."""
    if vec.capabilities.dm_step_types:
        native_step, native_recv = cast(DmStepTypes, vec.backend).dm_calls(_TimeStep)
        paths = text_leaves(vec.task_spec.observation_space) if vec.task_spec.pool.text_observations == "str" else []
        if not paths:
            return native_step, native_recv

        def decoded(out: tuple[Any, Any]) -> tuple[Any, Any]:  # text_observations="str": Text leaves as str
            timestep, last = out
            return timestep._replace(observation=with_text_decoded(timestep.observation, paths)), last

        def step_decoded(action: Any, env_id: Any = None) -> tuple[Any, Any]:
            return decoded(native_step(action, env_id))

        def recv_decoded(timeout: float | None = None) -> tuple[Any, Any]:
            return decoded(native_recv(timeout))

        return step_decoded, recv_decoded
    vec_step, vec_recv = vec.step, vec.recv

    def derived(out: tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]) -> tuple[Any, Any]:
        obs, reward, terminated, truncated, info = out
        return _derive_timestep(obs, reward, terminated, truncated, info), (info, terminated, truncated)

    def step(action: Any, env_id: Any = None) -> tuple[Any, Any]:
        return derived(vec_step(action, env_id))

    def recv(timeout: float | None = None) -> tuple[Any, Any]:
        return derived(vec_recv(timeout))

    return step, recv


class HiveDmEnv(dm_env.Environment):
    """Batched dm_env over ``num_envs`` envs (``batch_size`` per call in async mode).

    ``step_type`` (int8) and ``discount`` (float32) are read-only arrays (copy them to modify them
    in place). On a native pool the pool computes them with the batch, in the same block as the
    other outputs, so a call costs about what the Gymnasium facade's does; over other pools (the
    process backend, Ray) this facade derives them by the same rule.
    """

    def __init__(self, task_id: Any, **kwargs: Any) -> None:
        """``task_id``: a task (kwargs and ``backend`` as for envhive.make), or an envhive pool built
        already (in NEXT_STEP mode, without kwargs)."""
        self._vec = _dm_pool(task_id, kwargs)
        self.task_spec = self._vec.task_spec
        self.num_envs = self._vec.num_envs
        self.batch_size = self._vec.batch_size
        n = self.batch_size
        _check_discount_info(self.task_spec)
        # A native pool computes step types and discounts itself (one pass over the batch in C++);
        # over other pools (process backend, Ray) _derive_timestep derives them.
        self._step_dm, self._recv_dm = _dm_calls(self._vec)
        self._first = _read_only(np.full(n, _FIRST, dtype=np.int8))
        self._ones = _read_only(np.ones(n, dtype=np.float32))
        self._zero_reward = _read_only(np.zeros(n, dtype=np.float64))
        # The latest call's (info, terminated, truncated); last_info builds its dict on demand.
        self._last: tuple[dict[str, Any], np.ndarray | None, np.ndarray | None] = ({}, None, None)
        self._last_info: tuple[Any, dict[str, Any]] = (None, {})

    @property
    def last_info(self) -> dict[str, Any]:
        """Env ids, elapsed steps and task infos of the latest call, plus its ``terminated`` and
        ``truncated`` flags (after a step)."""
        last = self._last
        if self._last_info[0] is not last:
            info, terminated, truncated = last
            full = info if terminated is None else dict(info, terminated=terminated, truncated=truncated)
            self._last_info = (last, full)
        return self._last_info[1]

    def reset(self) -> dm_env.TimeStep:
        obs, info = self._vec.reset()
        self._last = (info, None, None)
        return _new(_TimeStep, (self._first, self._zero_reward, self._ones, obs))

    def step(self, action: Any, env_id: Any = None) -> dm_env.TimeStep:
        timestep, self._last = self._step_dm(action, env_id)
        return timestep

    def send(self, action: Any, env_id: Any = None) -> None:
        self._vec.send(action, env_id)

    def recv(self, timeout: float | None = None) -> dm_env.TimeStep:
        timestep, self._last = self._recv_dm(check_timeout(timeout))
        return timestep

    def async_reset(self) -> None:
        self._vec.async_reset()

    def observation_spec(self) -> Any:
        return to_dm_spec(self._vec.single_observation_space, "observation", _text_as_str(self._vec))

    def action_spec(self) -> Any:
        return to_dm_spec(self._vec.single_action_space, "action")

    def xla(self) -> Any:
        """EnvPool's ``(handle, recv, send, step)`` (see :meth:`envhive.HiveVectorEnv.xla`) whose
        states are this facade's batched TimeSteps of JAX arrays: step types and discounts by the
        same rule as :meth:`step` (native pools only: ``capabilities.xla``)."""
        if not self._vec.capabilities.xla:
            return self._vec.xla()  # raises, naming the backend
        from envhive.xla import make_xla  # jax is an optional extra: imported on first use

        return make_xla(self._vec, _xla_timestep)

    def reward_spec(self) -> Any:
        return dm_env.specs.Array((), np.float64, name="reward")

    def discount_spec(self) -> Any:
        return dm_env.specs.BoundedArray((), np.float32, 0.0, 1.0, name="discount")

    def close(self) -> None:
        self._vec.close()

    def __repr__(self) -> str:
        mode = "sync" if not self.task_spec.pool.is_async else f"async, batch_size={self.batch_size}"
        return f"HiveDmEnv({self.task_spec.id}, num_envs={self.num_envs}, {mode})"


class HiveSingleDmEnv(dm_env.Environment):
    """One env of ``task_id`` as an unbatched ``dm_env.Environment``.

    Takes the task's kwargs and ``seed`` / ``max_episode_steps`` like :func:`envhive.make_dm`;
    ``num_envs`` and ``batch_size`` are fixed at 1. Observations are the env's own arrays
    (shape ``observation_spec().shape``), rewards float64 scalars, discounts float32 scalars
    (0 on termination, 1 on truncation, lowered by a task's ``discount`` info).
    """

    def __init__(self, task_id: str, **kwargs: Any) -> None:
        for name in ("num_envs", "batch_size"):
            if kwargs.pop(name, 1) not in (1, None):
                raise ValueError(f"HiveSingleDmEnv runs one env; drop {name} (use envhive.make_dm for a batch)")
        self._vec = _dm_pool(task_id, kwargs)
        self.task_spec = self._vec.task_spec
        _check_discount_info(self.task_spec)
        self._step_batch = _dm_calls(self._vec)[0]  # step types by the batched facade's rule
        self._discrete = self.task_spec.action_space.shape == ()
        self._obs_space = self.task_spec.observation_space
        self._needs_reset = True
        self.last_info: dict[str, Any] = {}

    def reset(self) -> dm_env.TimeStep:
        obs, info = self._vec.reset()
        self._needs_reset = False
        self.last_info = {k: v[0] for k, v in info.items()}
        return _TimeStep(dm_env.StepType.FIRST, None, None, self._row(obs))

    def step(self, action: Any) -> dm_env.TimeStep:
        if self._needs_reset:  # a fresh env: dm_env's step() then acts as reset()
            return self.reset()
        batch = np.asarray(action)[None] if not self._discrete else [action]
        try:
            ts, (info, terminated, truncated) = self._step_batch(batch, None)
        except EnvError:
            self._needs_reset = True  # a later step() or reset() starts a new episode
            raise
        self.last_info = {k: v[0] for k, v in info.items()}
        self.last_info.update(terminated=bool(terminated[0]), truncated=bool(truncated[0]))
        step_type = _STEP_TYPES[ts.step_type[0]]
        if step_type is dm_env.StepType.FIRST:  # the step after a LAST restarted the env (NEXT_STEP)
            return _TimeStep(step_type, None, None, self._row(ts.observation))
        return _TimeStep(step_type, ts.reward[0], ts.discount[0], self._row(ts.observation))

    def _row(self, batch: Any) -> Any:
        """The env's observation out of a batch of one (a dict / tuple per Dict / Tuple space)."""
        return batch[0] if isinstance(batch, np.ndarray) else rows(self._obs_space, batch, 1)[0]

    def observation_spec(self) -> Any:
        return to_dm_spec(self.task_spec.observation_space, "observation", _text_as_str(self._vec))

    def action_spec(self) -> Any:
        return to_dm_spec(self.task_spec.action_space, "action")

    def reward_spec(self) -> Any:
        return dm_env.specs.Array((), np.float64, name="reward")

    def discount_spec(self) -> Any:
        return dm_env.specs.BoundedArray((), np.float32, 0.0, 1.0, name="discount")

    def close(self) -> None:
        self._vec.close()

    def __repr__(self) -> str:
        return f"HiveSingleDmEnv({self.task_spec.id})"
