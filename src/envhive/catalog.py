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
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import re
import shlex
import sys
import threading
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from envhive._version import __version__
from envhive.errors import (
    EnvError,
    IncompatibleModuleError,
    MissingExtraError,
    PoolBusyError,
    PoolClosedError,
    RenderError,
    ResetNeeded,
    TaskConflictError,
)
from envhive.images import read_png_rgba
from envhive.spaces import ConfigDecl, InfoDecl, RenderDecl, SpaceDecl

# The interface version between family modules and this package (csrc/bindings/protocol.h).
PROTOCOL = 3
MANIFEST_SUFFIX = ".tasks.json"
# Plug-ins declare their family modules here: [project.entry-points."envhive.families"] mypkg = "mypkg._envs"
PLUGIN_GROUP = "envhive.families"
DISTRIBUTION = "envhive"  # the distribution of the built-in family modules
_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
# Gymnasium's grammar of an environment id ([namespace/]name[-vN]); every listed task is registered
# with Gymnasium, so a plug-in's ids must follow it.
_TASK_ID = re.compile(r"(?:[\w:-]+/)?[\w:.-]+?(?:-v\d+)?")


@dataclass(frozen=True)
class FamilyModule:
    """A module that carries task families."""

    name: str  # importable name, e.g. "envhive._mujoco"
    extra: str | None = None  # the pip extra with its runtime dependencies, e.g. "mujoco"
    requires: str | None = None  # the Python package that extra provides, e.g. "mujoco"
    # Imported first when the module cannot find its shared library by itself (its RPATH missed,
    # e.g. split site dirs): the module then shares the library that package loaded.
    preload: str | None = None
    plugin: str | None = None  # a plug-in's entry point name (None: a built-in family)
    distribution: str = DISTRIBUTION  # the installed distribution that provides the module
    dist_version: str | None = None

    def describe(self) -> str:
        """The module and where it comes from, for messages."""
        if self.plugin is None:
            return f"{self.name} (a family module of the envhive package)"
        return f"{self.name} (plug-in {self.plugin!r} of distribution {self.distribution} {self.dist_version})"


def discover_plugins() -> tuple[list[FamilyModule], list[str]]:
    """The family modules installed distributions declare in the ``envhive.families`` entry point
    group, and a message for each declaration envhive cannot use."""
    modules: dict[str, FamilyModule] = {}
    problems = []
    for ep in importlib.metadata.entry_points(group=PLUGIN_GROUP):
        dist = ep.dist
        family = FamilyModule(
            ep.value.strip(),
            plugin=ep.name,
            distribution=dist.name if dist is not None else "<unknown distribution>",
            dist_version=dist.version if dist is not None else None,
        )
        if not _MODULE_NAME.fullmatch(family.name) or family.name.split(".")[0] == "envhive":
            problems.append(
                f"plug-in {ep.name!r} of distribution {family.distribution}: entry point value {ep.value!r} is not "
                f"the import name of its family module (e.g. 'mypkg._envs', outside the envhive package)"
            )
        elif family.name in modules:
            problems.append(
                f"{family.name} is declared by both {modules[family.name].describe()} and {family.describe()}; "
                f"the first is used"
            )
        else:
            modules[family.name] = family
    return list(modules.values()), problems


BUILTIN_MODULES: tuple[FamilyModule, ...] = (
    FamilyModule("envhive._native"),
    FamilyModule("envhive._mujoco", extra="mujoco", requires="mujoco", preload="mujoco"),
    FamilyModule("envhive._atari", extra="atari", requires="ale_py"),
    # dm_control is needed only to build a task's model (envhive.dmc_assets raises MissingExtraError).
    FamilyModule("envhive._dmc", extra="dmc", requires="mujoco", preload="mujoco"),
    FamilyModule("envhive._minigrid"),
)


@dataclass(frozen=True)
class DefaultSpaces:
    """A task's spaces (and frames) for its default config."""

    observation: SpaceDecl
    action: SpaceDecl
    infos: tuple[InfoDecl, ...]
    render: RenderDecl | None = None  # None: the task has no renderer


@dataclass(frozen=True)
class TaskInfo:
    """What a task is, independent of any pool."""

    id: str
    module: str
    family: str
    doc: str
    max_episode_steps: int  # the default time limit; 0: none
    hidden: bool  # an engine test task: makeable, but not listed nor registered with Gymnasium
    config: tuple[ConfigDecl, ...]  # every kwarg, max_episode_steps included
    reset_options: tuple[tuple[str, str], ...]  # per-env reset(options=...) names and docs
    default_spaces: DefaultSpaces | None  # None: known only by loading the module

    @property
    def defaults(self) -> dict[str, Any]:
        return {f.name: f.default for f in self.config}

    @property
    def config_docs(self) -> dict[str, str]:
        return {f.name: f.doc for f in self.config}

    @classmethod
    def from_module(cls, module: ModuleType, task_id: str) -> TaskInfo:
        """A loaded module's own account of a task (what its manifest says, for a built-in one)."""
        t = module.task_info(task_id)
        s = module.task_spaces(task_id, {})
        return cls(
            id=t.id,
            module=module.__name__,
            family=t.family,
            doc=t.doc,
            max_episode_steps=t.max_episode_steps,
            hidden=t.hidden,
            config=tuple(ConfigDecl(f.name, f.default, f.doc) for f in t.config),
            reset_options=tuple((n, d) for n, d in t.reset_options),
            default_spaces=DefaultSpaces(
                SpaceDecl.of(s.observation),
                SpaceDecl.of(s.action),
                tuple(InfoDecl.of(i) for i in s.infos),
                RenderDecl.of(s.render),
            ),
        )

    @classmethod
    def from_manifest(cls, task_id: str, module: str, entry: dict[str, Any]) -> TaskInfo:
        spaces = entry.get("spaces")
        return cls(
            id=task_id,
            module=module,
            family=str(entry["family"]),
            doc=str(entry.get("doc", "")),
            max_episode_steps=int(entry.get("max_episode_steps", 0)),
            hidden=bool(entry.get("hidden", False)),
            config=tuple(ConfigDecl(str(n), d, str(doc)) for n, d, doc in entry.get("config", ())),
            reset_options=tuple((str(n), str(doc)) for n, doc in entry.get("reset_options", ())),
            default_spaces=None
            if spaces is None
            else DefaultSpaces(
                SpaceDecl.from_json(spaces["observation"]),
                SpaceDecl.from_json(spaces["action"]),
                tuple(InfoDecl.from_json(i) for i in spaces["infos"]),
                RenderDecl.from_json(spaces.get("render")),
            ),
        )


class _Catalog:
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
        self._own_abi: str | None = None  # envhive's build (envhive._native's BUILD_ABI)

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
        """Load every module and add the tasks their manifests miss (e.g. ROMs added through
        ``$ALE_ROMS_DIR``); True if any were added."""
        added = False
        with self._lock:
            self._read_manifests()
            for name in self._families:
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
                module = self._import(family)
                self._check_build(family, module)
            except ImportError as e:
                self._unavailable[name] = e
                raise
            module.set_error_types(
                env_error=EnvError,
                reset_needed=ResetNeeded,
                pool_closed=PoolClosedError,
                pool_busy=PoolBusyError,
                render_error=RenderError,
            )
            module.set_image_reader(read_png_rgba)  # render images (Pendulum's arrow), read on first use
            self._loaded[name] = module
            return module

    # --- internals ---------------------------------------------------------------------------
    @staticmethod
    def _import(family: FamilyModule) -> ModuleType:
        if family.plugin is not None:
            try:
                return importlib.import_module(family.name)
            except ImportError as e:  # e.g. a C++ runtime older than the one it was built with
                raise IncompatibleModuleError(
                    f"{family.describe()} cannot be loaded: {e}. Rebuild it against the envhive installed here: "
                    f"{rebuild_command(family)}"
                ) from e
        try:
            try:
                return importlib.import_module(family.name)
            except ImportError:
                if family.preload is None or importlib.util.find_spec(family.preload) is None:
                    raise
                importlib.import_module(family.preload)
                return importlib.import_module(family.name)
        except ImportError as e:
            if family.requires is not None and importlib.util.find_spec(family.requires) is None:
                raise MissingExtraError(
                    f"{family.name} needs the {family.requires!r} package, which is not installed: "
                    f'pip install "envhive[{family.extra}]"'
                ) from e
            raise ImportError(f"{family.name} cannot be loaded: {e}") from e

    def _read_manifests(self) -> None:
        if self._read:
            return
        if self._discover is not None:
            plugins, self._plugin_problems = self._discover()
            for family in plugins:
                self._families.setdefault(family.name, family)
        for name, family in list(self._families.items()):
            path = _module_path(name)
            if path is None:
                if name == "envhive._native":
                    raise ImportError("envhive._native is not built: reinstall envhive (pip install .)")
                if family.plugin is not None:
                    folder = _package_folder(name)
                    error = IncompatibleModuleError(
                        f"{family.describe()} is not importable by this Python ({sys.implementation.cache_tag})"
                        f"{_other_builds(folder, name)}; rebuild it here: {rebuild_command(family)}"
                    )
                    self._unavailable[name] = error
                    stray = None if folder is None else _read_manifest(folder, name)
                    for task_id in (stray or {}).get("tasks") or {}:  # its tasks say why they cannot run
                        self._refused.setdefault(str(task_id), error)
                else:
                    self._unavailable.setdefault(name, ImportError(f"{name} is not built"))
                continue
            data = _read_manifest(path.parent, name)
            if name == "envhive._native" and data is not None:
                self._own_abi = data.get("build_abi")
            if family.plugin is not None and data is not None:
                why = self._incompatibility(data.get("protocol"), data.get("envhive_version"), data.get("build_abi"))
                if why is not None:  # refused without running any of its code
                    error = IncompatibleModuleError(_refusal(family, why))
                    self._unavailable[name] = error
                    for task_id in data.get("tasks") or {}:
                        self._refused.setdefault(str(task_id), error)
                    continue
            manifest = _tasks_of(data)
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
            if family.plugin is not None and not _TASK_ID.fullmatch(task_id):
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

    def _incompatibility(self, protocol: Any, version: Any, abi: Any, check_abi: bool = True) -> str | None:
        """Why a module reporting these is not built for this envhive, or None. Its build ABI is
        compared with envhive._native's (the reference, itself checked for version only)."""
        if protocol != PROTOCOL or version != __version__:
            return (
                f"it was built for envhive {version} (module protocol {protocol}), but envhive {__version__} "
                f"(protocol {PROTOCOL}) is installed"
            )
        if not check_abi:
            return None
        own = self._own_build_abi()
        if not isinstance(abi, str) or own is None:
            return None if own is None else f"it reports no build ABI, envhive was built with {own}"
        mine, theirs = _abi_parts(own), _abi_parts(abi)
        differs = [key for key in ("nanobind major", "C++ runtime") if mine.get(key) != theirs.get(key)]
        if differs:
            return f"it was built with {abi}, envhive {__version__} with {own} (another {' and '.join(differs)})"
        return None

    def _own_build_abi(self) -> str | None:
        if self._own_abi is None and "envhive._native" in self._families:
            try:
                self._own_abi = str(self.load("envhive._native").BUILD_ABI)
            except ImportError:
                return None
        return self._own_abi

    def _check_build(self, family: FamilyModule, module: ModuleType) -> None:
        why = self._incompatibility(
            getattr(module, "PROTOCOL", None),
            getattr(module, "ENVHIVE_VERSION", None),
            getattr(module, "BUILD_ABI", None),
            check_abi=family.name != "envhive._native",
        )
        if why is not None:
            raise IncompatibleModuleError(_refusal(family, why))


def _module_path(name: str) -> Path | None:
    """The file module ``name`` would load from, found without importing it or any package above
    it (a plug-in's package is imported only when one of its tasks is made)."""
    parts = name.split(".")
    search: list[str] | None = None
    spec = None
    for depth in range(1, len(parts) + 1):
        qualified = ".".join(parts[:depth])
        module = sys.modules.get(qualified)
        if module is not None:
            spec = module.__spec__
            locations = getattr(module, "__path__", None)
        else:
            spec = _find_spec(qualified, search)
            locations = None if spec is None else spec.submodule_search_locations
        if spec is None:
            return None
        if depth < len(parts):
            if locations is None:
                return None
            search = list(locations)
    return Path(spec.origin) if spec is not None and spec.origin and spec.has_location else None


def _find_spec(qualified: str, search: list[str] | None) -> Any:
    """What the import system would find for ``qualified`` (its parent's search path given), without importing."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        spec = find(qualified, search)
        if spec is not None:
            return spec
    return None


def _package_folder(name: str) -> Path | None:
    """The folder of the package holding module ``name`` (found without importing it), or None."""
    package = name.rpartition(".")[0]
    init = _module_path(package) if package else None
    return None if init is None else init.parent


def _other_builds(folder: Path | None, name: str) -> str:
    """', found <file>' when the package folder holds builds of the module for another Python."""
    short = name.rpartition(".")[2]
    found = [] if folder is None else sorted(p.name for p in folder.glob(f"{short}.*") if p.suffix in (".so", ".pyd"))
    return f", found {', '.join(found)} (built for another Python)" if found else ""


def _read_manifest(folder: Path, name: str) -> dict[str, Any] | None:
    """The manifest of module ``name`` in ``folder`` (beside the module), or None when there is
    none this package can read."""
    manifest = folder / (name.rpartition(".")[2] + MANIFEST_SUFFIX)
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _tasks_of(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """A manifest's tasks, or None when it was written by another envhive (the module is then
    loaded, and its check explains)."""
    if data is None or data.get("protocol") != PROTOCOL:
        return None
    tasks = data.get("tasks")
    return tasks if isinstance(tasks, dict) else None


def _abi_parts(abi: str) -> dict[str, str]:
    """The parts of a BUILD_ABI ("gcc-12.2 nanobind-2.15 libstdcxx-abi1", csrc/bindings/protocol.h)
    that must match envhive's own: a module keeps its own static nanobind in its own domain, and no
    C++ object crosses between modules, but one process holds one C++ runtime and envhive's
    bindings are written for one nanobind major version."""
    parts: dict[str, str] = {}
    for token in abi.split():
        if token.startswith("nanobind-"):
            parts["nanobind major"] = token.removeprefix("nanobind-").split(".")[0]
        elif token.startswith(("libstdcxx", "libc++")):
            parts["C++ runtime"] = token
    return parts


def _refusal(family: FamilyModule, why: str) -> str:
    return f"{family.describe()} cannot be used: {why}. Rebuild it against this envhive: {rebuild_command(family)}"


def rebuild_command(family: FamilyModule) -> str:
    """The command that rebuilds a family module's distribution against the envhive installed here:
    from its source folder when it was installed from one (PEP 610's direct_url.json), else from
    its source distribution on the index."""
    pip = f"{shlex.quote(sys.executable)} -m pip install --no-build-isolation --force-reinstall --no-deps"
    name = family.distribution
    version: str | None
    try:
        dist = importlib.metadata.distribution(name)
        version = dist.version
        direct = json.loads(dist.read_text("direct_url.json") or "null")
    except (importlib.metadata.PackageNotFoundError, ValueError):
        version, direct = family.dist_version, None
    if isinstance(direct, dict) and str(direct.get("url", "")).startswith("file:"):
        source = urllib.request.url2pathname(urllib.parse.urlparse(direct["url"]).path)
        info = direct.get("dir_info")
        if isinstance(info, dict):
            return f"{pip} {'-e ' if info.get('editable') else ''}{shlex.quote(source)}"
    pinned = f"{name}=={version}" if version else name
    return f"{pip} --no-binary {shlex.quote(name)} {shlex.quote(pinned)}"


_catalog = _Catalog(BUILTIN_MODULES, plugins=discover_plugins)

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
