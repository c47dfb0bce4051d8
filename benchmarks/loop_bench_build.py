"""Build the single-thread C++ loop benches (csrc/core/loop_bench.h) that the harness's `cpp-loop`
engine runs, and point the harness at them ($ENVHIVE_LOOP_BENCH_DIR).

The executables sit behind -DENVHIVE_BUILD_BENCH=ON in a build folder of their own
(build/loop-bench), so building them never touches the installed package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from envhive.bench.engines import LOOP_BENCH_DIR_ENV

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "loop-bench"


def loop_bench_dir(*targets: str) -> Path | None:
    """Build `targets` (e.g. "mujoco_loop_bench") into build/loop-bench when missing and set
    $ENVHIVE_LOOP_BENCH_DIR for the harness's workers. None (with the reason on stderr) when they
    cannot be built: the cpp-loop rows then report the error. The folder is configured with every
    family (a target builds only what it needs)."""
    missing = [t for t in targets if not (BUILD / t).exists()]
    if missing:
        bindir = Path(sys.executable).parent
        cmake = shutil.which("cmake") or str(bindir / "cmake")
        configure = [
            cmake, "-S", str(ROOT), "-B", str(BUILD), "-DCMAKE_BUILD_TYPE=Release", "-DENVHIVE_BUILD_BENCH=ON",
            "-DENVHIVE_BUILD_MUJOCO=ON", "-DENVHIVE_BUILD_ATARI=ON", f"-DPython_EXECUTABLE={sys.executable}",
        ]  # fmt: skip
        if shutil.which("ninja") or (bindir / "ninja").exists():
            configure += ["-G", "Ninja"]
        env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
        print(f"building {', '.join(missing)} in {BUILD} ...", file=sys.stderr)
        try:
            subprocess.run(configure, check=True, capture_output=True, text=True, env=env)
            subprocess.run([cmake, "--build", str(BUILD), "--target", *missing], check=True, capture_output=True,
                           text=True, env=env)  # fmt: skip
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"could not build {missing} ({e}){(getattr(e, 'stderr', '') or '')[-2000:]}", file=sys.stderr)
            return None
    os.environ[LOOP_BENCH_DIR_ENV] = str(BUILD)
    return BUILD
