"""Write what a built family module tells envhive without being loaded (run by CMake after it links).

    python write_module_metadata.py MODULE_FILE QUALIFIED_NAME OUT_DIR

QUALIFIED_NAME is the module's import name (``envhive._native``, ``mypkg._envs`` for a plug-in).

- ``<name>.tasks.json``, the task manifest: every task's id, family, doc, time limit, config fields,
  reset options and spaces for its default config, so ``import envhive``, ``envhive list`` and
  ``envhive info`` know every task without loading any family module (and the library it links,
  libmujoco or ALE). See envhive.catalog.
- ``<name>.pyi``, the module's type stubs (nanobind's stub generator), shipped with ``py.typed``.

The module is registered as envhive registers it when it loads (``register_families``): each
family with its DATA, the folders of installed packages, found here the way envhive.catalog finds
them (a family's Python resolver is envhive's only: tasks whose spaces need it are listed without
spaces, and envhive loads the module for them). A built-in module that cannot be registered here
(e.g. ale-py, which holds the ROMs, is missing from the build environment) gets neither file:
envhive then loads it to list its tasks. A plug-in's module must load and register where it builds
(a bad task declaration or registration fails its build).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import sys
from pathlib import Path


def family_data(declarations: list[tuple[str, str, str, str]]) -> dict[str, dict[str, str]]:
    """DATA ``(family, key, package, path)`` -> ``{family: {key: <package's folder>/<path>}}``, as
    envhive.catalog.builds.family_data (this script runs before envhive is importable)."""
    out: dict[str, dict[str, str]] = {}
    for family, key, package, path in declarations:
        try:
            spec = importlib.util.find_spec(package)
        except ImportError:
            spec = None
        folders = [] if spec is None else list(spec.submodule_search_locations or [])
        if not folders and spec is not None and spec.origin:
            folders = [str(Path(spec.origin).parent)]
        if folders:
            out.setdefault(family, {})[key] = str(Path(folders[0]) / path)
    return out


def main(module_file: str, qualified: str, out_dir: str) -> int:
    name = qualified.rpartition(".")[2]
    out = Path(out_dir)
    manifest = out / f"{name}.tasks.json"
    stub = out / f"{name}.pyi"
    for stale in (manifest, stub):  # never leave the files of an older build behind
        stale.unlink(missing_ok=True)
    loader = importlib.machinery.ExtensionFileLoader(qualified, module_file)
    spec = importlib.util.spec_from_file_location(qualified, module_file, loader=loader)
    assert spec is not None
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        module.register_families(family_data(module.DATA_DECLARATIONS), {})
    except ImportError as e:
        if not qualified.startswith("envhive."):  # a plug-in: its tasks must register where it builds
            print(f"envhive: {qualified} cannot be loaded to write its task manifest: {e}", file=sys.stderr)
            return 1
        print(f"envhive: no task manifest for {name} ({e}); it will be loaded at import", file=sys.stderr)
        return 0
    tasks = module.task_manifest()
    unknown = {t: e["spaces_unknown"] for t, e in tasks.items() if e.get("spaces_unknown")}
    if unknown:
        task, why = next(iter(unknown.items()))
        print(
            f"envhive: {len(unknown)} task(s) of {name} without spaces in its manifest ({task}: {why})", file=sys.stderr
        )
    data = {
        "module": qualified,
        "protocol": module.PROTOCOL,
        "envhive_version": module.ENVHIVE_VERSION,
        "build_abi": module.BUILD_ABI,
        "tasks": tasks,
    }
    manifest.write_text(json.dumps(data, indent=1) + "\n")
    try:
        from nanobind.stubgen import StubGen
    except ImportError as e:  # a nanobind without its stub generator: the package still works, untyped
        print(f"envhive: no type stubs for {name} ({e})", file=sys.stderr)
        return 0
    sys.modules[qualified] = module
    gen = StubGen(module=module, quiet=True, output_file=stub)
    gen.put(module)
    stub.write_text(gen.get())
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
