"""Write a built family module's task manifest (run by CMake after the module links).

    python write_task_manifest.py MODULE_FILE MODULE_NAME OUT_JSON

The manifest lists the module's task ids with the little Gymnasium registration needs, so
``import envhive`` knows every task without loading any family module: a module (and the library
it links, libmujoco or ALE) is loaded when one of its tasks is first used (see envhive.backends).
A module that cannot be imported here (e.g. ale-py, which holds the ROMs, is missing from the build
environment) gets no manifest and is then loaded at import, as before.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import sys
from pathlib import Path


def main(module_file: str, name: str, out: str) -> int:
    target = Path(out)
    target.unlink(missing_ok=True)  # never leave a manifest of an older build behind
    qualified = f"envhive.{name}"
    loader = importlib.machinery.ExtensionFileLoader(qualified, module_file)
    spec = importlib.util.spec_from_file_location(qualified, module_file, loader=loader)
    assert spec is not None
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except ImportError as e:
        print(f"envhive: no task manifest for {name} ({e}); it will be loaded at import", file=sys.stderr)
        return 0
    target.write_text(json.dumps({"module": name, "tasks": module.task_manifest()}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
