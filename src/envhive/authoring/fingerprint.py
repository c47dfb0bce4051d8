"""The fingerprint that keys the compiled-code cache: a hash of the three functions, every helper
function and constant they reach, the declarations, and the versions of Numba, numpy and Python.
Any change to any of them compiles afresh; nothing else does."""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from envhive.authoring.declaration import Declaration, space_key
from envhive.authoring.signatures import FUNCTIONS

GLUE_VERSION = 1  # bump when the generated glue changes shape
# Helper functions from these packages are left to Numba (it knows numpy and math itself).
NO_AUTOJIT = {"numpy", "numba", "math", "cmath", "builtins", "gymnasium", "scipy", "llvmlite", "random"}


def code_names(code: types.CodeType) -> set[str]:
    """Every global or attribute name a code object (and its nested code) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= code_names(const)
    return names


def referenced(fn: Callable[..., Any], module_attrs: dict[int, set[str]] | None = None) -> list[Any]:
    """The globals and closure values ``fn`` refers to. With ``module_attrs``, also records, per
    module it reaches, the names it may read from that module (``params.GRAVITY``)."""
    code = fn.__code__
    g = fn.__globals__
    names = code_names(code)
    out = [g[name] for name in sorted(names) if name in g]
    if module_attrs is not None:
        for value in out:
            if isinstance(value, types.ModuleType):
                module_attrs.setdefault(id(value), set()).update(names)
    for cell in fn.__closure__ or ():
        with contextlib.suppress(ValueError):  # an empty cell
            out.append(cell.cell_contents)
    return out


def helpers(fn: Callable[..., Any]) -> list[Callable[..., Any]]:
    """Plain Python functions ``fn`` calls through its globals or closure (transitively)."""
    found: dict[int, Callable[..., Any]] = {}

    def visit(f: Callable[..., Any]) -> None:
        for value in referenced(f):
            if inspect.isfunction(value) and id(value) not in found and value is not f:
                root = (value.__module__ or "").split(".")[0]
                if root in NO_AUTOJIT:
                    continue
                found[id(value)] = value
                visit(value)

    visit(fn)
    return list(found.values())


class _Hasher:
    """One fingerprint computation (its state lives here, not in the module)."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.seen: set[int] = set()
        self.module_attrs: dict[int, set[str]] = {}

    def value(self, value: Any) -> None:
        h = self.h
        if isinstance(value, types.FunctionType) or hasattr(value, "py_func"):
            fn = getattr(value, "py_func", value)
            if id(fn) in self.seen:
                h.update(b"<recursive>")
                return
            self.seen.add(id(fn))
            h.update(f"fn:{fn.__module__}.{fn.__qualname__}".encode())
            self.code(fn.__code__)
            for ref in referenced(fn, self.module_attrs):
                self.value(ref)
            h.update(repr(fn.__defaults__).encode())
        elif isinstance(value, types.ModuleType):
            h.update(f"mod:{value.__name__}".encode())
            if value.__name__.split(".")[0] not in NO_AUTOJIT:  # your own module: `params.GRAVITY` counts
                for name in sorted(self.module_attrs.get(id(value), ())):
                    if name in vars(value) and not isinstance(vars(value)[name], types.ModuleType):
                        h.update(f"attr:{name}".encode())
                        self.value(vars(value)[name])
        elif isinstance(value, np.ndarray):
            h.update(f"arr:{value.dtype.str}{value.shape}".encode())
            h.update(np.ascontiguousarray(value).tobytes())
        elif isinstance(value, tuple | list):
            h.update(f"seq{len(value)}".encode())
            for v in value:
                self.value(v)
        elif isinstance(value, int | float | complex | str | bytes | bool | np.generic | type(None)):
            h.update(f"val:{type(value).__name__}:{value!r}".encode())
        elif isinstance(value, type):
            h.update(f"type:{value.__module__}.{value.__qualname__}".encode())
        else:
            h.update(f"obj:{type(value).__module__}.{type(value).__qualname__}".encode())

    def code(self, code: types.CodeType) -> None:
        h = self.h
        h.update(code.co_code)
        h.update(repr(code.co_names).encode())
        h.update(repr(code.co_varnames).encode())
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                self.code(const)
            else:
                h.update(repr(const).encode())


def fingerprint(decl: Declaration, numba_version: str) -> str:
    """The cache key of a declaration's compiled code."""
    hasher = _Hasher()
    hasher.h.update(f"glue{GLUE_VERSION} numba{numba_version} numpy{np.__version__} {sys.version}".encode())
    hasher.h.update(
        repr(
            (
                decl.state_dtype.descr,
                decl.config_dtype.descr,
                space_key(decl.observation_space),
                space_key(decl.action_space),
                decl.reset_randoms,
                decl.step_randoms,
                decl.arity,
                decl.boundscheck,
            )
        ).encode()
    )
    for name in FUNCTIONS:
        hasher.value(decl.functions[name])
    return hasher.h.hexdigest()
