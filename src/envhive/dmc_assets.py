"""The model files of a DeepMind Control Suite task, as dm_control itself builds them.

envhive._dmc (csrc/bindings/dmc_tasks.cc) calls :func:`model_files` once per task and process, the
first time the task's spaces are resolved, and compiles the XML in C++; nothing here runs while an
env steps. Several domains build or edit their XML in Python (cartpole's extra poles, swimmer's
links, stacker's boxes, manipulator's objects, dog's and quadruped's floors, lqr's chain), so the
XML is taken from the suite's own code: the task's constructor runs until it hands its XML to
``Physics.from_xml_string``, which is intercepted there (the physics is never built). lqr draws its
joints' stiffness from the task's RandomState while it builds the XML; the C++ task redraws them per
env from its own seed.
"""

from __future__ import annotations

import importlib
import os
import re
import threading
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from envhive.errors import MissingExtraError

# dm-control 1.0.52 declares mujoco >= 4.0.1 but runs on the mujoco 4.0.0 envhive links (tested), so
# it is installed without its dependencies; the envhive[dmc] extra lists the others.
DM_CONTROL = "dm-control==1.0.52"
INSTALL = f'pip install "envhive[dmc]" && pip install --no-deps "{DM_CONTROL}"'

_lock = threading.Lock()
_cache: dict[tuple[str, str, tuple[tuple[str, int], ...]], tuple[str, dict[str, bytes]]] = {}


class _Captured(Exception):
    """Raised by the intercepted Physics.from_xml_string to stop the task's constructor."""

    def __init__(self, xml: str | bytes, assets: dict[str, Any] | None) -> None:
        super().__init__()
        self.xml = xml
        self.assets = assets or {}


def _suite() -> Any:
    try:
        with warnings.catch_warnings():
            # dm_control probes its GL backends when imported; without a display GLFW warns, and envhive
            # draws nothing through dm_control (its frames are envhive's own, on EGL / OSMesa)
            warnings.filterwarnings("ignore", message=".*DISPLAY environment variable is missing")
            return importlib.import_module("dm_control.suite")
    except ImportError as e:
        raise MissingExtraError(
            f"the DeepMind Control Suite tasks need dm_control, which is not installed: {INSTALL}"
        ) from e


def suite_task(doc: str) -> tuple[str, str]:
    """The suite's (domain, task) of an envhive DMC task, from its doc ("... (dm_control cheetah/run).")."""
    m = re.search(r"\(dm_control (\w+)/(\w+)\)", doc)
    if m is None:
        raise ValueError(f"not a DeepMind Control Suite task: {doc!r}")
    return m.group(1), m.group(2)


def write_model_files(domain: str, task: str, folder: str | os.PathLike[str]) -> Path:
    """The task's model files in ``folder/<domain>-<task>/``, as ``dmc_loop_bench`` reads them
    (benchmarks: the C++ loop has no Python to ask dm_control): ``model.xml``, each asset as
    ``asset<i>``, and ``assets.txt`` naming them (``<i> <name>`` a line: names are paths such as
    ``./common/materials.xml``)."""
    xml, assets = model_files(domain, task)
    out = Path(folder) / f"{domain}-{task}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "model.xml").write_text(xml)
    lines = []
    for i, (name, data) in enumerate(assets.items()):
        if "\n" in name:
            raise ValueError(f"unexpected asset name {name!r} in dm_control {domain}/{task}")
        (out / f"asset{i}").write_bytes(data)
        lines.append(f"{i} {name}\n")
    (out / "assets.txt").write_text("".join(lines))
    return out


def model_files(domain: str, task: str, kwargs: Mapping[str, int] | None = None) -> tuple[str, dict[str, bytes]]:
    """The XML string and assets ({file name: contents}) dm_control compiles for ``domain/task``,
    its constructor given ``kwargs`` that change the model (cartpole three_poles' ``num_poles``)."""
    kwargs = dict(kwargs or {})
    key = (domain, task, tuple(sorted(kwargs.items())))
    with _lock:
        if key in _cache:
            return _cache[key]
        suite = _suite()
        engine = importlib.import_module("dm_control.mujoco.engine")
        module = getattr(suite, domain)
        constructor = module.SUITE[task]

        def capture(cls: type, xml_string: str | bytes, assets: dict[str, Any] | None = None) -> None:
            raise _Captured(xml_string, assets)

        original = engine.Physics.__dict__["from_xml_string"]
        engine.Physics.from_xml_string = classmethod(capture)
        try:
            constructor(random=0, **kwargs)
        except _Captured as c:
            xml = c.xml.decode() if isinstance(c.xml, bytes) else c.xml
            assets = {name: data if isinstance(data, bytes) else data.encode() for name, data in c.assets.items()}
            _cache[key] = (xml, assets)
        else:
            raise RuntimeError(f"dm_control {domain}/{task} built no model through Physics.from_xml_string")
        finally:
            engine.Physics.from_xml_string = original
        return _cache[key]
