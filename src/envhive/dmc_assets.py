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
import threading
from typing import Any

from envhive.errors import MissingExtraError

# dm-control 1.0.52 declares mujoco >= 4.0.1 but runs on the mujoco 4.0.0 envhive links (tested), so
# it is installed without its dependencies; the envhive[dmc] extra lists the others.
DM_CONTROL = "dm-control==1.0.52"
INSTALL = f'pip install "envhive[dmc]" && pip install --no-deps "{DM_CONTROL}"'

_lock = threading.Lock()
_cache: dict[tuple[str, str], tuple[str, dict[str, bytes]]] = {}


class _Captured(Exception):
    """Raised by the intercepted Physics.from_xml_string to stop the task's constructor."""

    def __init__(self, xml: str | bytes, assets: dict[str, Any] | None) -> None:
        super().__init__()
        self.xml = xml
        self.assets = assets or {}


def _suite() -> Any:
    try:
        return importlib.import_module("dm_control.suite")
    except ImportError as e:
        raise MissingExtraError(
            f"the DeepMind Control Suite tasks need dm_control, which is not installed: {INSTALL}"
        ) from e


def model_files(domain: str, task: str) -> tuple[str, dict[str, bytes]]:
    """The XML string and assets ({file name: contents}) dm_control compiles for ``domain/task``."""
    key = (domain, task)
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
            constructor(random=0)
        except _Captured as c:
            xml = c.xml.decode() if isinstance(c.xml, bytes) else c.xml
            assets = {name: data if isinstance(data, bytes) else data.encode() for name, data in c.assets.items()}
            _cache[key] = (xml, assets)
        else:
            raise RuntimeError(f"dm_control {domain}/{task} built no model through Physics.from_xml_string")
        finally:
            engine.Physics.from_xml_string = original
        return _cache[key]
