"""Loading a family module, and whether it was built for this envhive.

A module reports its module protocol, the envhive version and its build ABI (``PROTOCOL``,
``ENVHIVE_VERSION``, ``BUILD_ABI``; its manifest says the same, so a plug-in built for another
envhive is refused without running any of its code). The build ABI is compared with
envhive._native's (the reference, itself checked for version only). A built-in module whose
optional dependency is missing raises :class:`~envhive.errors.MissingExtraError` naming the pip
extra to install; a plug-in that cannot be loaded or was built for another envhive raises
:class:`~envhive.errors.IncompatibleModuleError` with the command that rebuilds it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from envhive._version import __version__
from envhive.catalog.families import FamilyModule, rebuild_command
from envhive.errors import IncompatibleModuleError, MissingExtraError

# The interface version between family modules and this package (csrc/bindings/protocol.h).
PROTOCOL = 4


def family_data(declarations: Iterable[tuple[str, str, str, str]]) -> dict[str, dict[str, str]]:
    """A module's DATA declarations ``(family, key, package, path)`` (envhive_add_family's DATA) as what
    each family's register function is handed: ``{family: {key: <package's folder>/<path>}}``. A key
    whose package is not installed is left out (the family says so if it needs it)."""
    out: dict[str, dict[str, str]] = {}
    for family, key, package, path in declarations:
        try:
            spec = importlib.util.find_spec(package)
        except ImportError:  # a dotted name whose parent is missing
            spec = None
        if spec is None:
            continue
        if spec.submodule_search_locations:
            folder = Path(next(iter(spec.submodule_search_locations)))
        elif spec.origin:
            folder = Path(spec.origin).parent
        else:
            continue
        out.setdefault(family, {})[key] = str(folder / path)
    return out


def register_families(family: FamilyModule, module: ModuleType) -> None:
    """Hand a loaded module its families' data and resolvers, which registers their tasks."""
    module.register_families(family_data(module.DATA_DECLARATIONS), dict(family.resolvers))


def import_family(family: FamilyModule) -> ModuleType:
    """Import a family module (its ``preload`` package first when it cannot find its library)."""
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


class BuildCheck:
    """Compares what a module reports with this envhive. ``native_abi`` gives envhive._native's
    build ABI (loading it) when its manifest did not say; asked once."""

    def __init__(self, native_abi: Callable[[], str | None]) -> None:
        self.own_abi: str | None = None  # envhive's build (envhive._native's BUILD_ABI)
        self._native_abi = native_abi

    def incompatibility(self, protocol: Any, version: Any, abi: Any, check_abi: bool = True) -> str | None:
        """Why a module reporting these is not built for this envhive, or None."""
        if protocol != PROTOCOL or version != __version__:
            return (
                f"it was built for envhive {version} (module protocol {protocol}), but envhive {__version__} "
                f"(protocol {PROTOCOL}) is installed"
            )
        if not check_abi:
            return None
        if self.own_abi is None:
            self.own_abi = self._native_abi()
        own = self.own_abi
        if not isinstance(abi, str) or own is None:
            return None if own is None else f"it reports no build ABI, envhive was built with {own}"
        mine, theirs = _abi_parts(own), _abi_parts(abi)
        differs = [key for key in ("nanobind major", "C++ runtime") if mine.get(key) != theirs.get(key)]
        if differs:
            return f"it was built with {abi}, envhive {__version__} with {own} (another {' and '.join(differs)})"
        return None

    def check_module(self, family: FamilyModule, module: ModuleType) -> None:
        """Raise IncompatibleModuleError when a loaded module was built for another envhive."""
        why = self.incompatibility(
            getattr(module, "PROTOCOL", None),
            getattr(module, "ENVHIVE_VERSION", None),
            getattr(module, "BUILD_ABI", None),
            check_abi=family.name != "envhive._native",
        )
        if why is not None:
            raise IncompatibleModuleError(refusal(family, why))


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


def refusal(family: FamilyModule, why: str) -> str:
    return f"{family.describe()} cannot be used: {why}. Rebuild it against this envhive: {rebuild_command(family)}"
