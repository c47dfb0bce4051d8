"""numpy's own kernels as the C++ tasks call them (csrc/core/numpy_kernels.h) equal numpy, bit for
bit, on the running CPU and on the other dispatch paths numpy and OpenBLAS would take on another
CPU (AVX2, the x86-64 baseline), forced with NPY_DISABLE_CPU_FEATURES and OPENBLAS_CORETYPE.

numpy's float64 exp, log1p, tanh, arcsinh ... are SIMD kernels of its own on AVX-512 CPUs (libm's
elsewhere), its float32 sin/cos are its own wherever FMA3 exists, and np.dot / np.linalg.norm /
v.dot(M) / A.dot(B) on float64 go through OpenBLAS, whose kernels differ per CPU: the same
reference gives other last bits on another machine. The tasks call the same functions with the
arguments numpy passes, so their lock-step tests are bit-exact on every CPU.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import envhive  # noqa: F401  (registers the family modules)

# numpy's name -> libm's (math module) name, and a domain to draw arguments from.
UNARY = {
    "exp": ("exp", (-700.0, 700.0)),
    "log": ("log", (1e-300, 1e3)),
    "log1p": ("log1p", (-0.99, 1e3)),
    "expm1": ("expm1", (-50.0, 50.0)),
    "tanh": ("tanh", (-20.0, 20.0)),
    "cosh": ("cosh", (-700.0, 700.0)),
    "sinh": ("sinh", (-700.0, 700.0)),
    "sin": ("sin", (-1e4, 1e4)),
    "cos": ("cos", (-1e4, 1e4)),
    "tan": ("tan", (-10.0, 10.0)),
    "arcsin": ("asin", (-1.0, 1.0)),
    "arccos": ("acos", (-1.0, 1.0)),
    "arctan": ("atan", (-1e3, 1e3)),
    "arcsinh": ("asinh", (-1e3, 1e3)),
    "arccosh": ("acosh", (1.0, 1e3)),
    "arctanh": ("atanh", (-1.0, 1.0)),
}
# CPU dispatch paths to force: (NPY_DISABLE_CPU_FEATURES, OPENBLAS_CORETYPE).
DISPATCH = {
    "avx2": ("X86_V4 AVX512_ICL AVX512_SPR", "Haswell"),
    "baseline": ("X86_V3 X86_V4 AVX512_ICL AVX512_SPR", "Nehalem"),
}


def _differ(got, expected) -> int:
    """How many elements differ bitwise (float64, or float32 when both are float32)."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.dtype == np.float32:
        return int(np.sum(got.view(np.int32) != expected.astype(np.float32).view(np.int32)))
    return int(np.sum(got.astype(np.float64).view(np.int64) != expected.astype(np.float64).view(np.int64)))


def kernel_mismatches(n: int = 1001, seed: int = 0) -> dict[str, int]:
    """For every kernel and form, how many of n random arguments differ from numpy (bitwise)."""
    kernel = importlib.import_module("envhive._native")._numpy_kernel_eval
    rng = np.random.default_rng(seed)
    out: dict[str, int] = {}
    for name, (_, (lo, hi)) in UNARY.items():
        f = getattr(np, name)
        x = rng.uniform(lo, hi, n)
        out[f"{name} scalar"] = _differ(kernel(name, "scalar", list(x)), [f(np.float64(v)) for v in x])
        out[f"{name} array"] = _differ(kernel(name, "array", list(x)), f(x))
        out[f"{name} element"] = _differ(kernel(name, "element", list(x)), f(x))
        one = [kernel(name, "array", [v])[0] for v in x[:100]]
        out[f"{name} one-element array"] = _differ(one, [f(np.array([v]))[0] for v in x[:100]])
    for name in ("sin", "cos"):
        x = rng.uniform(-1e3, 1e3, n).astype(np.float32)
        got = np.array(kernel(name, "f32", [float(v) for v in x]), dtype=np.float32)
        out[f"{name} float32"] = _differ(got, [getattr(np, name)(v) for v in x])
    pairs = rng.uniform(-5, 5, (n, 2))
    out["arctan2 scalar"] = _differ(kernel("arctan2", "scalar2", list(pairs.ravel())), [np.arctan2(*p) for p in pairs])
    for size in (2, 3, 4, 7, 16, 33):
        vectors = rng.normal(size=(200, 2, size))
        out[f"dot {size}"] = _differ(
            [kernel("", "dot", list(v.ravel()))[0] for v in vectors], [np.dot(*v) for v in vectors]
        )
        norms = [kernel("", "norm", list(v[0]))[0] for v in vectors]
        out[f"norm {size}"] = _differ(norms, [np.linalg.norm(v[0]) for v in vectors])
    v, m, b = rng.normal(size=(300, 3)), rng.normal(size=(300, 3, 3)), rng.normal(size=(300, 3, 3))
    gemv = [kernel("", "vec_mat3", [*v[i], *m[i].ravel()]) for i in range(300)]
    out["vec_mat 3x3"] = _differ(gemv, [v[i].dot(m[i]) for i in range(300)])
    gemm = [kernel("", "mat_mat3", [*m[i].ravel(), *b[i].ravel()]) for i in range(300)]
    out["mat_mat 3x3"] = _differ(gemm, [m[i].dot(b[i]).ravel() for i in range(300)])
    return out


def libm_mismatches(n: int = 1001, seed: int = 1) -> dict[str, int]:
    """How often numpy's float64 kernels differ from libm's on this CPU (what the kernels are for)."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, (libm_name, (lo, hi)) in UNARY.items():
        x = rng.uniform(lo, hi, n)
        out[name] = _differ(getattr(np, name)(x), [getattr(math, libm_name)(v) for v in x])
    return out


def on_dispatch_path(path: str, call: str) -> dict[str, int]:
    """``call`` (an expression of this module, as ``t``) in a process whose numpy and OpenBLAS take
    another CPU's kernels."""
    features, coretype = DISPATCH[path]
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": features, "OPENBLAS_CORETYPE": coretype}
    code = f"import json, test_numpy_kernels as t; print(json.dumps({call}))"
    tests_dir = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tests_dir, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_numpy_loops_and_blas_are_installed() -> None:
    described = importlib.import_module("envhive._native")._numpy_kernels()
    assert "libm:" not in described, described  # every ufunc's loop was found
    assert "numpy's BLAS" in described, described


def test_kernels_equal_numpy_on_this_cpu() -> None:
    mismatches = kernel_mismatches()
    assert not any(mismatches.values()), {k: v for k, v in mismatches.items() if v}


@pytest.mark.parametrize("path", sorted(DISPATCH))
def test_kernels_equal_numpy_on_other_dispatch_paths(path: str) -> None:
    mismatches = on_dispatch_path(path, "t.kernel_mismatches(301)")
    assert not any(mismatches.values()), {k: v for k, v in mismatches.items() if v}


def test_float64_sin_and_cos_are_libms() -> None:
    """Classic control's CartPole, Pendulum and Acrobot (after reset) call libm's float64 sin/cos
    directly, without numpy's loop (a call per step they do not need): numpy 2.x's float64 sin and
    cos loops are libm's on every CPU. Should a numpy release vectorise them, this fails and those
    tasks must call npk::scalar like the rest."""
    for mismatches in [libm_mismatches(), *(on_dispatch_path(p, "t.libm_mismatches(301)") for p in DISPATCH)]:
        assert mismatches["sin"] == 0 and mismatches["cos"] == 0, mismatches
