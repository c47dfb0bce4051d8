"""Build a family's single-thread C++ loop bench (csrc/core/loop_bench.h) for the benchmark scripts.

The executables sit behind -DENVHIVE_BUILD_BENCH=ON in a build folder of their own, so building
them never touches the installed package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def loop_bench_binary(target: str, build_dir: Path, path: Path | None, defines: tuple[str, ...] = ()) -> Path | None:
    """`target` (e.g. "mujoco_loop_bench"): `path` if given, else build_dir's, configured and built
    when missing. None (with the reason on stderr) when it cannot be built."""
    if path is not None:
        return path
    binary = build_dir / target
    if binary.exists():
        return binary
    bindir = Path(sys.executable).parent
    cmake = shutil.which("cmake") or str(bindir / "cmake")
    configure = [
        cmake,
        "-S",
        str(ROOT),
        "-B",
        str(build_dir),
        "-DCMAKE_BUILD_TYPE=Release",
        "-DENVHIVE_BUILD_BENCH=ON",
        *defines,
        f"-DPython_EXECUTABLE={sys.executable}",
    ]
    if shutil.which("ninja") or (bindir / "ninja").exists():
        configure += ["-G", "Ninja"]
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    print(f"building {binary} ...", file=sys.stderr)
    try:
        subprocess.run(configure, check=True, capture_output=True, text=True, env=env)
        build = [cmake, "--build", str(build_dir), "--target", target]
        subprocess.run(build, check=True, capture_output=True, text=True, env=env)
    except (OSError, subprocess.CalledProcessError) as e:
        out = getattr(e, "stderr", "") or ""
        print(f"could not build {target} ({e}){out[-2000:]}; limit from envhive instead", file=sys.stderr)
        return None
    return binary
