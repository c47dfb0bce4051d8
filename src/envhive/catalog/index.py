"""The catalog proper: the tasks of every family module, read from their manifests once.

A task id that two modules define is a conflict: it leaves the catalog, and making it raises
:class:`~envhive.errors.TaskConflictError` naming both distributions. Tasks registered at run time
(environments written in Python) join through :meth:`Catalog.add`.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

from envhive.call_rules import TEMPLATES
from envhive.catalog.builds import BuildCheck, import_family, refusal, register_families
from envhive.catalog.families import FamilyModule, rebuild_command
from envhive.catalog.manifests import module_path, other_builds, package_folder, read_manifest, tasks_of
from envhive.catalog.tasks import TASK_ID, TaskInfo
from envhive.errors import (
    EnvError,
    IncompatibleModuleError,
    PoolBusyError,
    PoolClosedError,
    RenderError,
    ResetNeeded,
    TaskConflictError,
)
from envhive.images import read_render_image


class Catalog:
    """The tasks of every family module, read from their manifests once (thread-safe).

    ``plugins`` discovers out-of-tree modules at first use (:func:`discover_plugins`; None: none)."""

    def __init__(
        self,
        modules: Iterable[FamilyModule],
        plugins: Callable[[], tuple[list[FamilyModule], list[str]]] | None = None,
    ) -> None:
        self._lock = threading.RLock()
        self._builtin = {m.name: m for m in modules}
        self._discover = plugins
        self._families = dict(self._builtin)
        self._tasks: dict[str, TaskInfo] = {}
        self._read = False
        self._loaded: dict[str, ModuleType] = {}
        self._unavailable: dict[str, Exception] = {}  # modules that failed to load -> why
        self._defined_by: dict[str, list[str]] = {}  # task id -> every module whose manifest lists it
        self._refused: dict[str, Exception] = {}  # task id -> why it cannot run (conflict, refused module)
        self._plugin_problems: list[str] = []  # entry points envhive cannot use
        self._builds = BuildCheck(self._native_build_abi)

    # --- what is known -------------------------------------------------------------------
    def task_ids(self, include_hidden: bool = False) -> list[str]:
        with self._lock:
            self._read_manifests()
            return [t for t, info in self._tasks.items() if include_hidden or not info.hidden]

    def find(self, task_id: str) -> TaskInfo | None:
        with self._lock:
            self._read_manifests()
            return self._tasks.get(task_id)

    def problem(self, task_id: str) -> Exception | None:
        """Why a task id that a module defines cannot run (a conflict, a refused plug-in), or None."""
        with self._lock:
            self._read_manifests()
            return self._refused.get(task_id)

    def refused_task_ids(self) -> list[str]:
        """The task ids that modules define but that cannot run (:meth:`problem` says why)."""
        with self._lock:
            self._read_manifests()
            return sorted(self._refused)

    def problems(self) -> list[str]:
        """What keeps installed plug-ins or their tasks from running, one message each."""
        with self._lock:
            self._read_manifests()
            out = list(self._plugin_problems)
            out += [str(e) for name, e in self._unavailable.items() if self._families[name].plugin is not None]
            out += [str(e) for e in dict.fromkeys(self._refused.values()) if isinstance(e, TaskConflictError)]
            return out

    def plugins(self) -> list[FamilyModule]:
        """The plug-in family modules installed (usable or not)."""
        with self._lock:
            self._read_manifests()
            return [f for f in self._families.values() if f.plugin is not None]

    def add(self, info: TaskInfo) -> None:
        """Add a task registered at run time, or replace the one with its id."""
        with self._lock:
            self._read_manifests()
            self._tasks[info.id] = info

    def invalidate(self) -> None:
        """Forget every manifest read and plug-in found (both are read again on next use); loaded
        modules stay."""
        with self._lock:
            self._tasks.clear()
            self._defined_by.clear()
            self._refused.clear()
            self._plugin_problems.clear()
            self._families = {**self._builtin, **{n: self._families[n] for n in self._loaded}}
            self._read = False

    def rescan(self) -> bool:
        """Add the tasks manifests miss from the modules whose task set may differ now from their
        manifest (``FamilyModule.tasks_vary``: ROMs added through ``$ALE_ROMS_DIR``), loading
        those modules only; True if any were added. An unknown id costs no module load otherwise."""
        added = False
        with self._lock:
            self._read_manifests()
            for name, family in self._families.items():
                if family.tasks_vary is None or not family.tasks_vary():
                    continue
                try:
                    module = self.load(name)
                except ImportError:  # not built, or its dependency is missing (kept in _unavailable)
                    continue
                added |= self._record(name, module.task_manifest())
        return added

    # --- modules ---------------------------------------------------------------------------
    def module_for(self, task_id: str) -> ModuleType:
        """The family module that runs ``task_id``, loaded on first use (KeyError: no such task)."""
        info = self.find(task_id)
        if info is None:
            raise KeyError(task_id)
        return self.load(info.module)

    def load(self, name: str) -> ModuleType:
        """Import family module ``name`` once, checking it was built for this envhive."""
        with self._lock:
            if name in self._loaded:
                return self._loaded[name]
            if name in self._unavailable:
                raise self._unavailable[name]
            family = self._families.get(name, FamilyModule(name))
            try:
                module = import_family(family)
                self._builds.check_module(family, module)
                module.set_error_types(
                    env_error=EnvError,
                    reset_needed=ResetNeeded,
                    pool_closed=PoolClosedError,
                    pool_busy=PoolBusyError,
                    render_error=RenderError,
                )
                module.set_call_messages(list(TEMPLATES.items()))  # the call rules' messages (envhive.call_rules)
                module.set_image_reader(read_render_image)  # render images (PNGs, pygame's font), read on first use
                register_families(family, module)  # its tasks, each family with its data
            except ImportError as e:
                self._unavailable[name] = e
                raise
            self._loaded[name] = module
            return module

    # --- internals ---------------------------------------------------------------------------
    def _read_manifests(self) -> None:
        if self._read:
            return
        if self._discover is not None:
            plugins, self._plugin_problems = self._discover()
            for family in plugins:
                self._families.setdefault(family.name, family)
        for name, family in list(self._families.items()):
            path = module_path(name)
            if path is None:
                if name == "envhive._native":
                    raise ImportError("envhive._native is not built: reinstall envhive (pip install .)")
                if family.plugin is not None:
                    folder = package_folder(name)
                    error = IncompatibleModuleError(
                        f"{family.describe()} is not importable by this Python ({sys.implementation.cache_tag})"
                        f"{other_builds(folder, name)}; rebuild it here: {rebuild_command(family)}"
                    )
                    self._unavailable[name] = error
                    stray = None if folder is None else read_manifest(folder, name)
                    for task_id in (stray or {}).get("tasks") or {}:  # its tasks say why they cannot run
                        self._refused.setdefault(str(task_id), error)
                else:
                    self._unavailable.setdefault(name, ImportError(f"{name} is not built"))
                continue
            data = read_manifest(path.parent, name)
            if name == "envhive._native" and data is not None:
                self._builds.own_abi = data.get("build_abi")
            if family.plugin is not None and data is not None:
                why = self._builds.incompatibility(
                    data.get("protocol"), data.get("envhive_version"), data.get("build_abi")
                )
                if why is not None:  # refused without running any of its code
                    error = IncompatibleModuleError(refusal(family, why))
                    self._unavailable[name] = error
                    for task_id in data.get("tasks") or {}:
                        self._refused.setdefault(str(task_id), error)
                    continue
            manifest = tasks_of(data)
            if manifest is None:
                try:
                    manifest = self.load(name).task_manifest()
                except ImportError:
                    if name == "envhive._native":
                        raise
                    continue
            self._record(name, manifest)
        self._read = True

    def _record(self, name: str, manifest: dict[str, Any]) -> bool:
        """Add a module's tasks; True if any were new. An id another module defines too is a
        conflict: it leaves the catalog and making it raises TaskConflictError."""
        family = self._families.get(name, FamilyModule(name))
        added = False
        for task_id, entry in manifest.items():
            owners = self._defined_by.setdefault(task_id, [])
            if name in owners:
                continue
            owners.append(name)
            if family.plugin is not None and not TASK_ID.fullmatch(task_id):
                self._refused.setdefault(
                    task_id,
                    IncompatibleModuleError(
                        f"task id {task_id!r} of {family.describe()} is not a valid Gymnasium id "
                        f"([namespace/]Name-vN, e.g. 'mypkg/MyTask-v0'); rename it in its registration"
                    ),
                )
                continue
            if len(owners) == 1:
                self._tasks[task_id] = TaskInfo.from_manifest(task_id, name, entry)
                added = True
                continue
            self._tasks.pop(task_id, None)
            defined = [self._families.get(o, FamilyModule(o)) for o in owners]
            uninstall = sorted({f.distribution for f in defined if f.plugin is not None})
            self._refused[task_id] = TaskConflictError(
                f"task id {task_id!r} is defined by {len(defined)} family modules: "
                + " and ".join(f.describe() for f in defined)
                + "; envhive runs none of them until only one is installed"
                + (f" (pip uninstall {' or '.join(uninstall)})" if uninstall else "")
            )
        return added

    def _native_build_abi(self) -> str | None:
        """envhive._native's BUILD_ABI (the reference build), None while it cannot be loaded."""
        if "envhive._native" not in self._families:
            return None
        try:
            return str(self.load("envhive._native").BUILD_ABI)
        except ImportError:
            return None
