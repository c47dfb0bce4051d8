"""The catalog: every task id, what it is, and which family module runs it.

Every family module is a complete envhive engine for its own tasks (see docs/architecture.md).
``import envhive`` loads none of them: each built module ships a task manifest
(``<module>.tasks.json``, written by the build from the module itself, see
csrc/bindings/write_module_metadata.py) with each task's family, doc, time limit, config fields,
reset options and default spaces. So listing and describing tasks never loads a module; a module
-- with the library it links, libmujoco or ALE -- is loaded when one of its tasks is first used.
A module without a manifest is loaded to list its tasks. A module whose optional dependency is
missing raises :class:`~envhive.errors.MissingExtraError` naming the pip extra to install.

Out-of-tree family modules (plug-ins, built with the SDK: docs/cpp-envs.md) are found through the
``envhive.families`` entry point group, scanned at first use (the entry point's value is the
module's import name), and are then read, listed and loaded exactly like the built-in ones: their
manifest is found without importing the plug-in's package. A plug-in built for another envhive
(version, module protocol, nanobind major version or C++ runtime) is refused with
:class:`~envhive.errors.IncompatibleModuleError`, naming both builds, its distribution and the
command that rebuilds it; a task id that two modules define raises
:class:`~envhive.errors.TaskConflictError` naming both distributions, and neither runs.

Tasks registered at run time (environments written in Python) join through :func:`add`.

The parts: ``families`` (built-in modules and plug-in discovery), ``tasks`` (what a task is),
``manifests`` (a module's file and manifest, found without importing it), ``builds`` (loading a
module and checking it was built for this envhive) and ``index`` (the catalog itself); this
package is the process-wide catalog and its functions.
"""

from __future__ import annotations

from envhive.catalog.builds import PROTOCOL
from envhive.catalog.families import (
    BUILTIN_MODULES,
    DISTRIBUTION,
    PLUGIN_GROUP,
    FamilyModule,
    discover_plugins,
    rebuild_command,
)
from envhive.catalog.index import Catalog
from envhive.catalog.manifests import MANIFEST_SUFFIX
from envhive.catalog.tasks import DefaultSpaces, TaskInfo

__all__ = [
    "BUILTIN_MODULES",
    "DISTRIBUTION",
    "MANIFEST_SUFFIX",
    "PLUGIN_GROUP",
    "PROTOCOL",
    "Catalog",
    "DefaultSpaces",
    "FamilyModule",
    "TaskInfo",
    "add",
    "discover_plugins",
    "find",
    "get",
    "invalidate",
    "load",
    "module_for",
    "plugins",
    "problem",
    "problems",
    "rebuild_command",
    "refused_task_ids",
    "rescan",
    "task_ids",
]

_catalog = Catalog(BUILTIN_MODULES, plugins=discover_plugins)

task_ids = _catalog.task_ids
find = _catalog.find
add = _catalog.add
invalidate = _catalog.invalidate
rescan = _catalog.rescan
module_for = _catalog.module_for
load = _catalog.load
problem = _catalog.problem
refused_task_ids = _catalog.refused_task_ids
problems = _catalog.problems
plugins = _catalog.plugins


def get(task_id: str) -> TaskInfo:
    """The task's info (KeyError when no family has it; see registry for suggestions)."""
    info = find(task_id)
    if info is None:
        raise KeyError(task_id)
    return info
