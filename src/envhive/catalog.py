"""The catalog: every task id, what it is, and which family module runs it.

Every family module is a complete envhive engine for its own tasks (see docs/architecture.md).
``import envhive`` loads none of them: each built module ships a task manifest
(``<module>.tasks.json``, written by the build from the module itself, see
csrc/bindings/write_module_metadata.py) with each task's family, doc, time limit, config fields,
reset options and default spaces. So listing and describing tasks never loads a module; a module
-- with the library it links, libmujoco or ALE -- is loaded when one of its tasks is first used.
A module without a manifest is loaded to list its tasks. A module whose optional dependency is
missing raises :class:`~envhive.errors.MissingExtraError` naming the pip extra to install.

Tasks registered at run time (environments written in Python) join through :func:`add`.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from envhive._version import __version__
from envhive.errors import EnvError, MissingExtraError, PoolBusyError, PoolClosedError, RenderError, ResetNeeded
from envhive.images import read_png_rgba
from envhive.spaces import ConfigDecl, InfoDecl, RenderDecl, SpaceDecl

# The interface version between family modules and this package (csrc/bindings/protocol.h).
PROTOCOL = 2
MANIFEST_SUFFIX = ".tasks.json"


@dataclass(frozen=True)
class FamilyModule:
    """A module that carries task families."""

    name: str  # importable name, e.g. "envhive._mujoco"
    extra: str | None = None  # the pip extra with its runtime dependencies, e.g. "mujoco"
    requires: str | None = None  # the Python package that extra provides, e.g. "mujoco"
    # Imported first when the module cannot find its shared library by itself (its RPATH missed,
    # e.g. split site dirs): the module then shares the library that package loaded.
    preload: str | None = None


BUILTIN_MODULES: tuple[FamilyModule, ...] = (
    FamilyModule("envhive._native"),
    FamilyModule("envhive._mujoco", extra="mujoco", requires="mujoco", preload="mujoco"),
    FamilyModule("envhive._atari", extra="atari", requires="ale_py"),
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
    """The tasks of every family module, read from their manifests once (thread-safe)."""

    def __init__(self, modules: Iterable[FamilyModule]) -> None:
        self._lock = threading.RLock()
        self._families = {m.name: m for m in modules}
        self._tasks: dict[str, TaskInfo] = {}
        self._read = False
        self._loaded: dict[str, ModuleType] = {}
        self._unavailable: dict[str, Exception] = {}  # modules that failed to load -> why

    # --- what is known -------------------------------------------------------------------
    def task_ids(self, include_hidden: bool = False) -> list[str]:
        with self._lock:
            self._read_manifests()
            return [t for t, info in self._tasks.items() if include_hidden or not info.hidden]

    def find(self, task_id: str) -> TaskInfo | None:
        with self._lock:
            self._read_manifests()
            return self._tasks.get(task_id)

    def add(self, info: TaskInfo) -> None:
        """Add a task registered at run time, or replace the one with its id."""
        with self._lock:
            self._read_manifests()
            self._tasks[info.id] = info

    def invalidate(self) -> None:
        """Forget every manifest read (they are read again on next use); loaded modules stay."""
        with self._lock:
            self._tasks.clear()
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
                _check_build(module, name)
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
        for name in self._families:
            path = _module_path(name)
            if path is None:
                if name == "envhive._native":
                    raise ImportError("envhive._native is not built: reinstall envhive (pip install .)")
                self._unavailable.setdefault(name, ImportError(f"{name} is not built"))
                continue
            manifest = _manifest(path, name)
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
        added = False
        for task_id, entry in manifest.items():
            if task_id not in self._tasks:
                self._tasks[task_id] = TaskInfo.from_manifest(task_id, name, entry)
                added = True
        return added


def _module_path(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None
    return Path(spec.origin) if spec is not None and spec.origin else None


def _manifest(path: Path, name: str) -> dict[str, Any] | None:
    """The tasks of a module's manifest, or None when it has none this package can read."""
    manifest = path.with_name(name.rpartition(".")[2] + MANIFEST_SUFFIX)
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("protocol") != PROTOCOL:
        return None  # written by another envhive: load the module (whose check then explains)
    tasks = data.get("tasks")
    return tasks if isinstance(tasks, dict) else None


def _check_build(module: ModuleType, name: str) -> None:
    protocol = getattr(module, "PROTOCOL", None)
    version = getattr(module, "ENVHIVE_VERSION", None)
    if protocol == PROTOCOL and version == __version__:
        return
    raise ImportError(
        f"{name} was built for envhive {version} (module protocol {protocol}), but envhive {__version__} "
        f"(protocol {PROTOCOL}) is installed; rebuild it against this envhive: "
        f"pip install --force-reinstall --no-build-isolation <its package or source folder>"
    )


_catalog = _Catalog(BUILTIN_MODULES)

task_ids = _catalog.task_ids
find = _catalog.find
add = _catalog.add
invalidate = _catalog.invalidate
rescan = _catalog.rescan
module_for = _catalog.module_for
load = _catalog.load


def get(task_id: str) -> TaskInfo:
    """The task's info (KeyError when no family has it; see registry for suggestions)."""
    info = find(task_id)
    if info is None:
        raise KeyError(task_id)
    return info
