"""Finding a family module's file and its task manifest without importing it (or any package
above it: a plug-in's package is imported only when one of its tasks is made)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from envhive.catalog.builds import PROTOCOL

MANIFEST_SUFFIX = ".tasks.json"


def module_path(name: str) -> Path | None:
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
            spec = find_spec(qualified, search)
            locations = None if spec is None else spec.submodule_search_locations
        if spec is None:
            return None
        if depth < len(parts):
            if locations is None:
                return None
            search = list(locations)
    return Path(spec.origin) if spec is not None and spec.origin and spec.has_location else None


def find_spec(qualified: str, search: list[str] | None) -> Any:
    """What the import system would find for ``qualified`` (its parent's search path given), without importing."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        spec = find(qualified, search)
        if spec is not None:
            return spec
    return None


def package_folder(name: str) -> Path | None:
    """The folder of the package holding module ``name`` (found without importing it), or None."""
    package = name.rpartition(".")[0]
    init = module_path(package) if package else None
    return None if init is None else init.parent


def other_builds(folder: Path | None, name: str) -> str:
    """', found <file>' when the package folder holds builds of the module for another Python."""
    short = name.rpartition(".")[2]
    found = [] if folder is None else sorted(p.name for p in folder.glob(f"{short}.*") if p.suffix in (".so", ".pyd"))
    return f", found {', '.join(found)} (built for another Python)" if found else ""


def read_manifest(folder: Path, name: str) -> dict[str, Any] | None:
    """The manifest of module ``name`` in ``folder`` (beside the module), or None when there is
    none this package can read."""
    manifest = folder / (name.rpartition(".")[2] + MANIFEST_SUFFIX)
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def tasks_of(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """A manifest's tasks, or None when it was written by another envhive (the module is then
    loaded, and its check explains)."""
    if data is None or data.get("protocol") != PROTOCOL:
        return None
    tasks = data.get("tasks")
    return tasks if isinstance(tasks, dict) else None
