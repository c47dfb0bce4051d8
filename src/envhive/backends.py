"""The native family modules, and which one carries each task.

Every family module is a complete envhive engine for its own tasks (see docs/architecture.md);
optional ones that are not built, or whose library cannot load, are skipped and the reason kept.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from types import ModuleType

from envhive.errors import EnvError

# Module name -> Python package to import first (it loads the shared library the module links).
FAMILY_MODULES: dict[str, str | None] = {"_native": None, "_mujoco": "mujoco", "_atari": None}
unavailable: dict[str, str] = {}


@functools.cache
def modules() -> tuple[ModuleType, ...]:
    loaded = []
    for name, preload in FAMILY_MODULES.items():
        if name != "_native" and importlib.util.find_spec(f"envhive.{name}") is None:
            unavailable[name] = "not built"
            continue
        try:
            if preload:
                importlib.import_module(preload)
            module = importlib.import_module(f"envhive.{name}")
        except ImportError as e:
            if name == "_native":
                raise
            unavailable[name] = str(e)
            continue
        module.set_error_type(EnvError)
        loaded.append(module)
    return tuple(loaded)


@functools.cache
def task_index() -> dict[str, ModuleType]:
    """Task id -> the module that runs it, in registration order."""
    index: dict[str, ModuleType] = {}
    for module in modules():
        for task_id in module.task_ids():
            index.setdefault(task_id, module)
    return index
