"""The package's imports go one way: each module imports only from the layers below it (or its own
layer without a cycle), and no function hides an import of envhive to dodge a cycle.

Layers, bottom up (docs/architecture.md):
  0 errors, spaces, images, _version, sdk, _procwire, call_rules, checks, leaves -- exceptions,
                                    declarations, render images, the C++ SDK, the process backend's
                                    C++ sync step, the call rules and their messages, argument
                                    checks, the space walker
  1 catalog                         -- task ids, families, family modules
  2 authoring.*                     -- environments written in Python (its own order below)
  3 registry, backend, native, vector -- kwargs into a resolved task and pool config; the backend
                                    protocol, the native backend and the one Gymnasium VectorEnv
  4 process, pools                  -- the process backend; the one way a pool is made
  5 facades: dm, single, envpool, ... -- the other APIs users hold, over the VectorEnv
  6 adapters.*, ray.*               -- trainers' APIs over the facades; Ray's backend
  7 cli, bench.*, testing, the package -- entry points; envhive.testing (the contract suite)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import envhive

PACKAGE = Path(envhive.__file__).resolve().parent

LAYERS: dict[str, int] = {
    "envhive._version": 0,
    "envhive._procwire": 0,
    "envhive.errors": 0,
    "envhive.call_rules": 0,
    "envhive.checks": 0,
    "envhive.leaves": 0,
    "envhive.families": 1,
    "envhive.spaces": 0,
    "envhive.sdk": 0,
    "envhive.images": 0,
    "envhive.catalog": 1,
    "envhive.authoring": 2,
    "envhive.registry": 3,
    "envhive.backend": 3,
    "envhive.native": 3,
    "envhive.vector": 3,
    "envhive.process": 4,
    "envhive.pools": 4,
    "envhive.dm": 5,
    "envhive.single": 5,
    "envhive.envpool": 5,
    "envhive.episodes": 5,
    "envhive.xla": 5,
    "envhive.multiagent": 5,
    "envhive.adapters": 6,
    "envhive.ray": 6,
    "envhive.cli": 7,
    "envhive.__main__": 7,
    "envhive.bench": 7,
    "envhive.testing": 7,
    "envhive": 7,
}
# Inside authoring, bottom up.
AUTHORING = ["signatures", "declaration", "fingerprint", "compiler", "registration", "twin", "pyenv", "__init__"]

DM_CONTROL_REFERENCE = (
    "dm_control's reference (Gymnasium and dm_control) is imported only in its engine's worker process"
)
TRAINER_ENGINE = "a trainer (an optional extra) is imported only in its engine's worker process"
MEASURED_ENGINE = "a measured engine is imported only in its own worker process"
# Function-level imports of envhive modules that are not cycle dodges: (importer, imported) -> why.
LAZY_ALLOWED = {
    ("envhive", "envhive.dm"): "dm-env is the optional [dm] extra, imported on first make_dm",
    ("envhive.testing", "envhive.testing.contract"): (
        "PoolContract is a pytest class: the lock-step harness beside it works without pytest"
    ),
    ("envhive.vector", "envhive.xla"): "jax is an optional extra, imported on first env.xla()",
    ("envhive.envpool.dm", "envhive.xla"): "jax is an optional extra, imported on first env.xla()",
    ("envhive.dm", "envhive.xla"): "jax is an optional extra, imported on first env.xla()",
    ("envhive.bench.engines.hive", "envhive"): "a measured engine is imported only in its own worker process",
    ("envhive.bench.engines.hive", "envhive.families"): MEASURED_ENGINE,
    ("envhive.bench.engines.hive", "envhive.catalog.builds"): MEASURED_ENGINE,
    ("envhive.bench.engines.reference", "envhive.families"): MEASURED_ENGINE,
    ("envhive.bench.engines.hive", "envhive.catalog"): "a measured engine is imported only in its own worker process",
    ("envhive.bench.engines.trainers", "envhive.adapters.sb3"): TRAINER_ENGINE,
    ("envhive.bench.engines.trainers", "envhive.adapters.rl_games"): TRAINER_ENGINE,
    ("envhive.bench.engines.trainers", "envhive.adapters.torchrl"): TRAINER_ENGINE,
    ("envhive.bench.engines.trainers", "envhive.adapters.rllib"): TRAINER_ENGINE,
    ("envhive.bench.engines.trainers", "envhive.adapters.tianshou"): TRAINER_ENGINE,
    ("envhive.bench.engines.trainers", "envhive.pools"): "a measured engine is imported only in its own worker process",
    ("envhive.bench.engines.ppo", "envhive.adapters.rl_games"): TRAINER_ENGINE,
    ("envhive.bench.engines.ppo", "envhive.adapters.torchrl"): TRAINER_ENGINE,
    ("envhive.bench.engines.ppo", "envhive.adapters.rllib"): TRAINER_ENGINE,
    (
        "envhive.bench.engines.reference",
        "envhive.catalog",
    ): "a measured engine is imported only in its own worker process",
    **{
        (f"envhive.bench.engines.{engine}", "envhive.bench.dm_control_env"): DM_CONTROL_REFERENCE
        for engine in ("reference", "dmc")
    },
}


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (PACKAGE.parent / rel).with_suffix(".py").exists() or (PACKAGE.parent / rel / "__init__.py").exists()


def targets(node: ast.Import | ast.ImportFrom, importer: str) -> list[str]:
    """The envhive modules an import statement loads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "envhive"]
    if node.level:  # relative: resolve against the importer's package
        base = importer.split(".")
        if not (PACKAGE / Path(*base[1:]) / "__init__.py").exists():
            base = base[:-1]
        base = base[: len(base) - node.level + 1]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    if module.split(".")[0] != "envhive":
        return []
    out = []
    for alias in node.names:
        sub = f"{module}.{alias.name}"
        out.append(sub if is_module(sub) else module)
    return out


def layer(name: str) -> tuple[int, int]:
    """(layer, rank inside authoring) of a module, by its longest prefix in LAYERS."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in LAYERS:
            sub = 0
            if prefix == "envhive.authoring":
                last = parts[2] if len(parts) > 2 else "__init__"
                sub = AUTHORING.index(last)
            return LAYERS[prefix], sub
    raise AssertionError(f"module {name} has no layer: add it to LAYERS in tests/test_layers.py")


def imports() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """Module-level import edges, and function-level envhive imports (importer, imported, line)."""
    edges: dict[str, set[str]] = {}
    lazy: list[tuple[str, str, int]] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        tree = ast.parse(path.read_text(), str(path))
        edges.setdefault(name, set())
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in targets(node, name):
                if target == name:
                    continue
                if node in tree.body or _in_module_level_block(tree, node):
                    edges[name].add(target)
                else:
                    lazy.append((name, target, node.lineno))
    return edges, lazy


def _in_module_level_block(tree: ast.Module, node: ast.AST) -> bool:
    """True for imports in module-level if/try blocks (e.g. `if TYPE_CHECKING:`)."""
    for stmt in tree.body:
        if isinstance(stmt, ast.If | ast.Try) and any(n is node for n in ast.walk(stmt)):
            return not any(
                isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and any(n is node for n in ast.walk(f))
                for f in ast.walk(stmt)
            )
    return False


EDGES, LAZY = imports()


def test_every_module_has_a_layer() -> None:
    for name in EDGES:
        layer(name)


@pytest.mark.parametrize("importer", sorted(EDGES))
def test_imports_go_down(importer: str) -> None:
    for target in sorted(EDGES[importer]):
        if importer.startswith(target + ".") and target != "envhive":
            continue  # a subpackage importing its own package's __init__ is a cycle, checked below
        assert layer(target) <= layer(importer), (
            f"{importer} (layer {layer(importer)}) imports {target} ({layer(target)})"
        )


def test_no_import_cycles() -> None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        stack.append(name)
        for target in sorted(EDGES.get(name, ())):
            if state.get(target) == 1:
                cycle = stack[stack.index(target) :] + [target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if state.get(target) is None:
                visit(target)
        stack.pop()
        state[name] = 2

    for name in sorted(EDGES):
        if state.get(name) is None:
            visit(name)


def test_no_function_level_import_dodges_a_cycle() -> None:
    bad = [
        f"{importer} imports {target} inside a function (line {line})"
        for importer, target, line in LAZY
        if (importer, target) not in LAZY_ALLOWED
    ]
    assert not bad, "\n".join(bad)


def test_the_allowed_lazy_imports_are_still_there() -> None:
    """An allowance nobody needs any more is removed, so the list stays an honest account."""
    used = {(importer, target) for importer, target, _ in LAZY}
    assert set(LAZY_ALLOWED) <= used, set(LAZY_ALLOWED) - used
