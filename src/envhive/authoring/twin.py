"""The same functions run as ordinary Python: one env as a plain ``gymnasium.Env`` (the twin of a
pool's env, for debugging and comparisons), and replays of failed compiled calls."""

from __future__ import annotations

import ctypes
from typing import Any, NamedTuple

import gymnasium
import numpy as np

from envhive import catalog
from envhive.authoring.declaration import Declaration, class_name, declaration
from envhive.authoring.registration import NATIVE_MODULE, declared_class, register
from envhive.authoring.signatures import OBSERVE, OBSERVE_DISCRETE, RESET, STEP


def _record(dtype: np.dtype[Any], data: bytes | None = None) -> Any:
    arr = np.zeros(1, dtype) if data is None else np.frombuffer(bytearray(data), dtype=dtype, count=1)
    return arr.view(np.recarray)[0]


def _config_record(decl: Declaration, values: dict[str, Any]) -> Any:
    defaults = {f.name: f for f in decl.config_fields}
    unknown = sorted(set(values) - set(defaults))
    if unknown:
        raise TypeError(f"{class_name(decl.cls)}: unknown config {unknown}; valid: {sorted(defaults)}")
    rec = _record(decl.config_dtype)
    for f in decl.config_fields:
        value = values.get(f.name, f.default)
        if f.kind == "floats" and len(value) != f.length:
            raise ValueError(f"{class_name(decl.cls)}: config {f.name!r} must have {f.length} values")
        setattr(rec, f.name, value)
    return rec


def _call(
    decl: Declaration, name: str, state: Any, config: Any, action: Any = None, rand: Any = None, obs: Any = None
) -> Any:
    sig = {"reset": RESET, "step": STEP, "observe": OBSERVE_DISCRETE if decl.discrete_obs else OBSERVE}[name]
    args = sig.pick(decl.arity[name], state=state, config=config, action=action, rand=rand, obs=obs)
    return decl.functions[name](*args)


class PyEnvGymnasium(gymnasium.Env[Any, Any]):
    """A PyEnv as one plain ``gymnasium.Env``, for debugging and comparisons (see
    ``PyEnv.gymnasium_env``). Its draws come from ``self.np_random.random`` in the order the
    native env takes them, so equal seeds give equal trajectories."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's own declaration)

    def __init__(self, env_cls: type, jit: bool = False, **config: Any) -> None:
        decl = declaration(env_cls)
        self._decl = decl
        self.observation_space = decl.observation_space
        self.action_space = decl.action_space
        self._config = _config_record(decl, config)
        self._state = _record(decl.state_dtype)
        self._native = None
        if jit:  # the compiled C callables, called through ctypes
            register(env_cls)
            self._native = env_cls._envhive_glue  # type: ignore[attr-defined]

    def _draw(self, n: int) -> np.ndarray:
        return self.np_random.random(n) if n else np.zeros(0)

    def _obs_buffer(self) -> np.ndarray:
        d = self._decl
        if d.discrete_obs:
            return np.zeros(1, dtype=np.int64)
        return np.zeros(d.obs_shape, dtype=d.obs_dtype)

    def _native_result(self, status: int, name: str, obs: np.ndarray) -> Any:
        if status != 0:
            raise RuntimeError(f"{self._decl.labels[name if status == 1 else 'observe']} raised in compiled code")
        return int(obs[0]) if self._decl.discrete_obs else obs

    def _obs(self) -> Any:
        d = self._decl
        if d.discrete_obs:
            return int(_call(d, "observe", self._state, self._config))
        obs = self._obs_buffer()
        _call(d, "observe", self._state, self._config, obs=obs)
        return obs

    def _info(self) -> dict[str, Any]:
        return {name: np.copy(getattr(self._state, name)) for name in self._decl.infos}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        rand = self._draw(self._decl.reset_randoms)
        if self._native is not None:
            obs = self._obs_buffer()
            status = self._native.reset_c.ctypes(_addr(self._state), _fptr(rand), _addr(self._config), obs.ctypes.data)
            return self._native_result(status, "reset", obs), self._info()
        _call(self._decl, "reset", self._state, self._config, rand=rand)
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        d = self._decl
        rand = self._draw(d.step_randoms)
        if self._native is not None:
            a = np.array(action, dtype=np.int64 if d.discrete_action else d.action_dtype)
            out, obs = np.zeros(2), self._obs_buffer()
            status = self._native.step_c.ctypes(
                _addr(self._state), a.ctypes.data, _fptr(rand), _addr(self._config), _fptr(out), obs.ctypes.data
            )
            obs = self._native_result(status, "step", obs)
            return obs, float(out[0]), bool(out[1] != 0), False, self._info()
        action = int(action) if d.discrete_action else np.asarray(action, dtype=d.action_dtype).reshape(d.action_shape)
        reward, terminated = _call(d, "step", self._state, self._config, action=action, rand=rand)
        return self._obs(), float(reward), bool(terminated), False, self._info()


def _addr(record: Any) -> int:
    """The address of a record made by _record() (it views a 1-element array)."""
    return int(record.__array_interface__["data"][0])


def _fptr(arr: np.ndarray) -> Any:
    if arr.size == 0:
        arr = np.zeros(1)
    return arr.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


class FailureReplay(NamedTuple):
    """A failed call of a compiled env, replayed in Python without raising (see replay_failure)."""

    task_id: str
    env_id: int
    function: str
    message: str
    state: Any  # the state record the call started from
    action: Any
    rand: np.ndarray
    result: Any  # what the pure-Python call returned (for observe: the observation)


def last_failures() -> list[dict[str, Any]]:
    """The inputs of recent failed calls of compiled envs (oldest first, at most 32)."""
    return list(catalog.load(NATIVE_MODULE).compiled_failures(False))


def replay_failure(error: BaseException | None = None) -> FailureReplay:
    """Re-run a failed call in Python, from the exact inputs it had.

    ``error``: the ``envhive.EnvError`` (its first env is replayed); default the latest failure.
    If the Python call raises, that exception propagates, with its traceback into your code.
    Otherwise (e.g. a NaN observation) the inputs and the result are returned for inspection.
    """
    records = last_failures()
    env_id = getattr(error, "env_id", None)
    if env_id is not None:
        records = [r for r in records if r["env_id"] == env_id]
    if not records:
        raise LookupError(
            "no failure of a compiled Python env is recorded" + (f" for env {env_id}" if env_id is not None else "")
        )
    r = records[-1]
    cls = declared_class(r["task_id"])
    if cls is None:
        raise LookupError(f"task {r['task_id']!r} is not a Python env of this process")
    decl = declaration(cls)
    state = _record(decl.state_dtype, r["state"])
    config = _record(decl.config_dtype, r["config"])
    rand = np.asarray(r["rand"], dtype=np.float64)
    action: int | np.ndarray | None = None
    if r["function"] == "step":
        if decl.discrete_action:
            action = int(np.frombuffer(r["action"], dtype=np.int64)[0])
        else:
            action = np.frombuffer(r["action"], dtype=decl.action_dtype).reshape(decl.action_shape).copy()
    before = _record(decl.state_dtype, r["state"])
    obs = None
    if r["function"] == "observe" and not decl.discrete_obs:
        obs = np.zeros(decl.obs_shape, dtype=decl.obs_dtype)
    try:
        result = _call(decl, r["function"], state, config, action=action, rand=rand, obs=obs)
    except Exception as e:
        e.add_note(f"(envhive: replay of env {r['env_id']}'s failed {r['function']}() in Python: {r['message']})")
        raise
    if obs is not None:
        result = obs
    return FailureReplay(r["task_id"], r["env_id"], r["function"], r["message"], before, action, rand, result)


def make_twin(task_id: str, **config: Any) -> PyEnvGymnasium:
    """Gymnasium's entry point of a declared PyEnv id: its pure-Python twin (``gymnasium.make``)."""
    config.pop("render_mode", None)
    cls = declared_class(task_id)
    if cls is None:
        raise gymnasium.error.Error(f"no Python env declares the id {task_id!r} in this process")
    return PyEnvGymnasium(cls, **config)
