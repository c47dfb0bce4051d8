"""Where the C++ SDK lies in the installed package: what an out-of-tree family module builds from.

The build installs beside this file (``envhive/sdk/``):

- ``csrc/core/`` -- the engine: the task interface (``env.h``, ``task.h``, ``spec.h``, ``rng.h``,
  ``numpy_compat.h``, ...) and the pool's sources, compiled into each family module;
- ``csrc/bindings/`` -- the binding sources every family module compiles, and
  ``write_module_metadata.py`` (a module's task manifest and type stubs);
- ``cmake/`` -- the CMake package ``find_package(envhive CONFIG)`` finds, with
  ``envhive_add_family()``.

``python -m envhive --cmake-dir`` prints :func:`cmake_dir`; docs/cpp-envs.md is the guide.
"""

from __future__ import annotations

import sys
from pathlib import Path

CONFIG_FILE = "envhiveConfig.cmake"


def root() -> Path:
    """The SDK's folder (``.../envhive/sdk``); FileNotFoundError when this envhive was installed
    without it (a build without the Python modules)."""
    # An editable install keeps the build's files apart from the sources: look in every folder of
    # the package's search path.
    package = sys.modules[__name__.rpartition(".")[0]]  # envhive, always loaded before its submodules
    for folder in [*__path__, *(str(Path(p) / "sdk") for p in package.__path__)]:
        if (Path(folder) / "cmake" / CONFIG_FILE).is_file():
            return Path(folder).resolve()
    raise FileNotFoundError(f"envhive's SDK is not installed (no sdk/cmake/{CONFIG_FILE}); reinstall envhive")


def cmake_dir() -> Path:
    """The folder of envhive's CMake package: pass it as ``envhive_ROOT`` or ``envhive_DIR`` to
    ``find_package(envhive CONFIG)``."""
    return root() / "cmake"


def csrc_dir() -> Path:
    """The folder holding ``core/`` and ``bindings/`` (the include directory of a task's sources)."""
    return root() / "csrc"
