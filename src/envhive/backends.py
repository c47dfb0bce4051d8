"""The native family modules, and which one carries each task.

Every family module is a complete envhive engine for its own tasks (see docs/architecture.md).
``import envhive`` loads none of them: each built module ships a task manifest
(``<module>.tasks.json``, written by the build from the module itself, see
csrc/bindings/write_task_manifest.py), so the task ids are known up front and a module -- with the
library it links, libmujoco or ALE -- is loaded when one of its tasks is first used. A module
without a manifest is loaded to list its tasks. Optional modules that are not built are skipped;
one whose library cannot load raises an ImportError with the reason when its task is used.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

from envhive.errors import EnvError

# Module name -> the Python package that loads the shared library the module links, imported only
# when the module cannot find that library by itself (importing `mujoco` costs ~24 MB of RSS).
FAMILY_MODULES: dict[str, str | None] = {"_native": None, "_mujoco": "mujoco", "_atari": None}
MANIFEST_SUFFIX = ".tasks.json"
unavailable: dict[str, str] = {}
"""Family modules that are not built or failed to load -> why."""

_lock = threading.RLock()
_tasks: dict[str, tuple[str, int]] = {}  # task id -> (module name, default max_episode_steps)
_cataloged = False


def _module_path(name: str) -> Path | None:
    spec = importlib.util.find_spec(f"envhive.{name}")
    return Path(spec.origin) if spec is not None and spec.origin else None


@functools.cache
def load(name: str) -> ModuleType:
    """Import family module ``envhive.<name>`` (once); ImportError says why it cannot load."""
    if name in unavailable:
        raise ImportError(f"envhive.{name} is unavailable: {unavailable[name]}")
    preload = FAMILY_MODULES.get(name)
    try:
        try:
            module = importlib.import_module(f"envhive.{name}")
        except ImportError:
            if not preload:
                raise
            # The module's RPATH missed its library (e.g. split site dirs): load it through its
            # Python package, whose copy the module then shares (same soname).
            importlib.import_module(preload)
            module = importlib.import_module(f"envhive.{name}")
    except ImportError as e:
        unavailable[name] = str(e)
        raise ImportError(f"envhive.{name} cannot be loaded: {e}") from e
    module.set_error_type(EnvError)
    return module


def _manifest(path: Path, name: str) -> dict[str, Any] | None:
    manifest = path.with_name(name + MANIFEST_SUFFIX)
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return None
    tasks = data.get("tasks") if isinstance(data, dict) else None
    return tasks if isinstance(tasks, dict) else None


def _record(name: str, manifest: dict[str, Any]) -> bool:
    """Add module ``name``'s tasks from a manifest (the file's, or the loaded module's
    task_manifest()) that are not known yet; True if any were new. Caller holds _lock."""
    added = False
    for task_id, entry in manifest.items():
        if task_id not in _tasks:
            _tasks[task_id] = (name, int(entry.get("max_episode_steps", 0)))
            added = True
    return added


def _catalog() -> dict[str, tuple[str, int]]:
    global _cataloged
    with _lock:
        if _cataloged:
            return _tasks
        for name in FAMILY_MODULES:
            path = _module_path(name)
            if path is None:
                if name == "_native":
                    raise ImportError("envhive._native is not built: reinstall envhive (pip install .)")
                unavailable[name] = "not built"
                continue
            manifest = _manifest(path, name)
            if manifest is None:
                try:
                    manifest = load(name).task_manifest()
                except ImportError:
                    if name == "_native":
                        raise
                    continue
            _record(name, manifest)
        _cataloged = True
        return _tasks


def task_ids() -> list[str]:
    """Every task id, in registration order (families in FAMILY_MODULES order)."""
    return list(_catalog())


def default_max_episode_steps(task_id: str) -> int:
    return _catalog()[task_id][1]


def task_module(task_id: str) -> ModuleType:
    """The family module that runs ``task_id``, loaded on first use (KeyError: no such task)."""
    return load(_catalog()[task_id][0])


def rescan() -> bool:
    """Load every module and add the tasks their manifests miss (e.g. ROMs added through
    ``$ALE_ROMS_DIR``, or tasks registered at run time); True if any were added."""
    added = False
    with _lock:
        _catalog()
        for name in FAMILY_MODULES:
            try:
                manifest = load(name).task_manifest()
            except ImportError:  # not built, or its library cannot load (kept in `unavailable`)
                continue
            added |= _record(name, manifest)
    return added


def add_task(task_id: str, module: str, max_episode_steps: int) -> None:
    """Record a task a module registered at run time (a compiled Python env)."""
    with _lock:
        _catalog()[task_id] = (module, max_episode_steps)
