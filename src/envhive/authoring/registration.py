"""Registering Python-written envs: under their id with Gymnasium when declared, and natively (the
compiled task) on first use. The tables here are this package's only state."""

from __future__ import annotations

import importlib
import threading
import types
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from envhive import catalog
from envhive.authoring.compiler import compile_glue
from envhive.authoring.declaration import FAMILY, Declaration, declaration, declaration_error

NATIVE_MODULE = "envhive._native"  # the family module that hosts Python envs
GYM_NAMESPACE = "envhive"

_LOCK = threading.RLock()
_DECLARED: dict[str, type] = {}  # task id -> the latest class declaring it
_REGISTERED: dict[str, type] = {}  # task id -> the class whose code the native registry runs


def announce(decl: Declaration) -> None:
    """Record a declared class under its id and register its Gymnasium id; nothing is compiled."""
    cls = decl.cls
    with _LOCK:
        builtin = catalog.find(decl.task_id)
        if builtin is not None and builtin.family != FAMILY:
            raise declaration_error(cls, f"id {decl.task_id!r} is already taken by a built-in task")
        _DECLARED[decl.task_id] = cls
    if decl.gym_id is None:
        return
    if decl.gym_id in gymnasium.registry:
        del gymnasium.registry[decl.gym_id]
    gymnasium.register(
        id=decl.gym_id,
        entry_point="envhive.authoring.twin:make_twin",
        vector_entry_point="envhive.vector:vector_entry_point",
        max_episode_steps=decl.max_episode_steps or None,
        kwargs={"task_id": decl.task_id},
    )


def declared_class(task_id: str) -> type | None:
    """The class whose code runs ``task_id`` (else the latest declaring it), or None."""
    with _LOCK:
        return _REGISTERED.get(task_id) or _DECLARED.get(task_id)


def resolve_task(task: str) -> str | None:
    """The envhive id for a task reference the catalog does not know yet: a declared PyEnv id
    (compiled now), or ``"module:id"`` (the module is imported first, as Gymnasium does). None
    when it names no Python env."""
    module, sep, name = task.partition(":")
    if sep:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name is None or not module.startswith(e.name):
                raise
            raise ModuleNotFoundError(
                f"{task!r}: module {module!r} is not importable here; install its package or put its folder on "
                f"PYTHONPATH (e.g. `PYTHONPATH=$PWD envhive bench {task}` in a source checkout)",
                name=e.name,
            ) from e
        task = name
    if task.startswith(GYM_NAMESPACE + "/"):
        task = task[len(GYM_NAMESPACE) + 1 :]
    with _LOCK:
        cls = _DECLARED.get(task)
    if cls is None:
        return None
    return register(cls)  # a no-op once this class is registered


def register(cls: type) -> str:
    """Compile a declared class (or load it from the cache) and register it natively, once;
    returns its task id. (envhive.authoring.compile_env checks it is a PyEnv first.)"""
    decl = declaration(cls)
    with _LOCK:
        if _REGISTERED.get(decl.task_id) is cls:
            return decl.task_id
        glue = compile_glue(decl)
        cls._envhive_glue = glue  # type: ignore[attr-defined]
        _register_native(decl, glue)
        _REGISTERED[decl.task_id] = cls
        _DECLARED.setdefault(decl.task_id, cls)
    return decl.task_id


def _native_space(native: types.ModuleType, space: spaces.Space[Any]) -> Any:
    if isinstance(space, spaces.Discrete):
        return native.SpaceSpec.discrete(int(space.n), int(space.start))
    assert isinstance(space, spaces.Box)
    return native.SpaceSpec.box(
        np.dtype(space.dtype).name,
        list(space.shape),
        np.asarray(space.low, dtype=np.float64).ravel().tolist(),
        np.asarray(space.high, dtype=np.float64).ravel().tolist(),
    )


def _register_native(decl: Declaration, glue: types.ModuleType) -> None:
    native = catalog.load(NATIVE_MODULE)
    config_layout: Mapping[str, tuple[Any, ...]] = decl.config_dtype.fields or {}
    state_layout: Mapping[str, tuple[Any, ...]] = decl.state_dtype.fields or {}
    config_fields = [native.ConfigField(f.name, f.default, f.doc) for f in decl.config_fields]
    config_offsets = [int(config_layout[f.name][1]) for f in decl.config_fields]
    infos, info_offsets = [], []
    for name in decl.infos:
        dtype, offset = state_layout[name][:2]
        infos.append(native.InfoSpec(name, (dtype.base if dtype.shape else dtype).name, list(dtype.shape)))
        info_offsets.append(int(offset))
    native.register_compiled_task(
        id=decl.task_id,
        family=FAMILY,
        doc=decl.doc,
        labels=[decl.labels["reset"], decl.labels["step"], decl.labels["observe"]],
        reset_fn=glue.reset_c.address,
        step_fn=glue.step_c.address,
        state_bytes=decl.state_dtype.itemsize,
        config_bytes=decl.config_dtype.itemsize,
        reset_randoms=decl.reset_randoms,
        step_randoms=decl.step_randoms,
        check_finite=decl.check_finite,
        max_episode_steps=decl.max_episode_steps,
        observation=_native_space(native, decl.observation_space),
        action=_native_space(native, decl.action_space),
        config=config_fields,
        config_offsets=config_offsets,
        infos=infos,
        info_offsets=info_offsets,
    )
    catalog.add(catalog.TaskInfo.from_module(native, decl.task_id))
