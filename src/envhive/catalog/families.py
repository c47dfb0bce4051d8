"""The family modules: the built-in ones (the modules the descriptors of ``envhive.families`` name),
and plug-ins found through the ``envhive.families`` entry point group (the entry point's value is
the module's import name)."""

from __future__ import annotations

import importlib.metadata
import json
import re
import shlex
import sys
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from envhive import families
from envhive.families.base import Resolver

# Plug-ins declare their family modules here: [project.entry-points."envhive.families"] mypkg = "mypkg._envs"
PLUGIN_GROUP = "envhive.families"
DISTRIBUTION = "envhive"  # the distribution of the built-in family modules
_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


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
    # Its families' resolvers of files built on demand, by family name (their descriptors')
    resolvers: Mapping[str, Resolver] = field(default_factory=dict)
    # Whether its task set may differ now from its manifest (its families' Family.tasks_vary); None:
    # the manifest lists every task, so an unknown id never loads the module.
    tasks_vary: Callable[[], bool] | None = None

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


def builtin_modules() -> tuple[FamilyModule, ...]:
    """The built-in family modules (envhive._native first), from the families' descriptors: a module's
    extra, requirement and preload are its families' (one family has them, where several share it)."""
    by_module: dict[str, list[families.Family]] = {"envhive._native": []}
    for family in families.builtin():
        by_module.setdefault(family.module, []).append(family)
    out = []
    for name, members in by_module.items():
        # the module's own family first (envhive._mujoco's is mujoco): its extra names the module's needs
        members.sort(key=lambda f: not name.endswith(f"._{f.name}"))
        needs = next((f for f in members if f.requires or f.preload), None)
        extra = next((f.extra for f in members if f.extra), None)
        out.append(
            FamilyModule(
                name,
                extra=needs.extra if needs else extra,
                requires=needs.requires if needs else None,
                preload=needs.preload if needs else None,
                resolvers={f.name: f.resolver for f in members if f.resolver is not None},
                tasks_vary=_any_varies([f.tasks_vary for f in members if f.tasks_vary is not None]),
            )
        )
    return tuple(out)


def _any_varies(checks: list[Callable[[], bool]]) -> Callable[[], bool] | None:
    if not checks:
        return None
    return lambda: any(check() for check in checks)


BUILTIN_MODULES: tuple[FamilyModule, ...] = builtin_modules()


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
