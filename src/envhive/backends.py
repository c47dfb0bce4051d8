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

# Module name -> the Python package that loads the shared library the module links, imported only
# when the module cannot find that library by itself (importing `mujoco` costs ~24 MB of RSS).
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
            try:
                module = importlib.import_module(f"envhive.{name}")
            except ImportError:
                if not preload:
                    raise
                # The module's RPATH missed its library (e.g. split site dirs): load it through
                # its Python package, whose copy the module then shares (same soname).
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
