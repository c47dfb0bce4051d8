"""The DeepMind Control Suite family (``csrc/envs/dmc/``, in module ``envhive._mujoco``): its
descriptor, and the model files of a suite task as dm_control itself builds them.

The family's C++ asks for a task's model through its resolver (:func:`resolve`, which calls
:func:`model_files`) once per task and process, the first time the task's spaces are resolved, and
compiles the XML in C++; nothing here runs while an env steps. Several domains build or edit their
XML in Python (cartpole's extra poles, swimmer's links, stacker's boxes, manipulator's objects, dog's
and quadruped's floors, lqr's chain), so the XML is taken from the suite's own code: the task's
constructor runs until it hands its XML to ``Physics.from_xml_string``, which is intercepted there
(the physics is never built). lqr draws its joints' stiffness from the task's RandomState while it
builds the XML; the C++ task redraws them per env from its own seed.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import threading
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envhive.errors import EnvPoolArgumentError, MissingExtraError
from envhive.families.base import EnvPoolNames, Family, Files

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo

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


def _defer_dm_control_gl() -> None:
    """Make ``dm_control._render`` (dm_control's GL backends) load on its first use instead of when
    ``dm_control.mujoco`` is imported. Importing it obeys ``$MUJOCO_GL`` (``osmesa`` without
    libOSMesa, ``egl`` without a usable EGL: PyOpenGL's or dm_control's error), yet envhive only
    builds XML through dm_control and draws its frames with its own GL (a pixel pool without GL is
    envhive.RenderError naming the library). dm_control's own rendering, where a program uses it,
    loads the backend when it first makes a context, obeying ``$MUJOCO_GL`` as before."""
    name = "dm_control._render"
    if name in sys.modules:
        return  # imported already (by the program, or by an earlier call)
    spec = importlib.util.find_spec(name)  # imports the dm_control package (no GL)
    if spec is None or spec.loader is None:
        return
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    setattr(sys.modules["dm_control"], "_render", module)  # noqa: B010 (what importing it would set)


def _import_mujoco() -> None:
    """Import the ``mujoco`` package (dm_control's bindings do) where its GL backend cannot load.

    ``import mujoco`` imports the GL backend ``$MUJOCO_GL`` names, and PyOpenGL fails with an
    AttributeError, not the ImportError mujoco catches, when ``MUJOCO_GL=osmesa`` and libOSMesa is
    missing: then it is imported again with its GL disabled (a backend that could not load either
    way; envhive's own frames do not use it)."""
    if "mujoco" in sys.modules:
        return
    try:
        importlib.import_module("mujoco")
    except ModuleNotFoundError:
        raise
    except Exception:  # its GL backend failed to import
        saved = os.environ.get("MUJOCO_GL")
        os.environ["MUJOCO_GL"] = "disable"
        try:
            importlib.import_module("mujoco")
        finally:
            if saved is None:
                os.environ.pop("MUJOCO_GL", None)
            else:
                os.environ["MUJOCO_GL"] = saved


def _suite() -> Any:
    if importlib.util.find_spec("dm_control") is None:
        raise MissingExtraError(f"the DeepMind Control Suite tasks need dm_control, which is not installed: {INSTALL}")
    _import_mujoco()
    _defer_dm_control_gl()
    try:
        with warnings.catch_warnings():
            # without a display GLFW warns (if dm_control's GL is loaded); envhive draws nothing through it
            warnings.filterwarnings("ignore", message=".*DISPLAY environment variable is missing")
            return importlib.import_module("dm_control.suite")
    except ModuleNotFoundError as e:
        raise MissingExtraError(
            f"the DeepMind Control Suite tasks need dm_control and its dependencies; {e.name} is not installed: "
            f"{INSTALL}"
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


def resolve(key: str, args: Mapping[str, int]) -> Files:
    """The family's resolver: the model files of the suite task ``key`` (``"<domain>/<task>"``) with
    its model kwargs, the XML first, then its assets."""
    domain, _, task = key.partition("/")
    xml, assets = model_files(domain, task, args)
    return [("model.xml", xml.encode()), *assets.items()]


def loop_bench_data(info: TaskInfo, folder: Path) -> dict[str, str]:
    """``dmc_loop_bench``'s data: the task's model files written into ``folder``."""
    write_model_files(*suite_task(info.doc), folder)
    return {"models_dir": str(folder)}


# EnvPool's episodes are max_episode_steps control steps long (1000 for every suite task: dm_control's
# time_limit / control_timestep, and 1000 for lqr, which has no limit).
ENVPOOL_EPISODE_STEPS = 1000


def translate_envpool(
    envpool_id: str, info: TaskInfo, kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]
) -> None:
    """EnvPool's DMC kwargs -> envhive's, in place. EnvPool's ``frame_skip`` is the physics steps per
    control step (envhive's ``n_sub_steps``, dm_control's own; envhive's ``frame_skip`` repeats
    actions); ``max_episode_steps`` ends an episode after that many steps (truncated, discount 1), in
    place of dm_control's ``time_limit``; ``frame_stack`` stacks pixel observations and state keys."""
    task_name = suite_task(info.doc)[1]
    name = kwargs.pop("task_name", task_name)
    if isinstance(name, bytes):
        name = name.decode()
    if name != task_name:
        raise EnvPoolArgumentError(f"{envpool_id} is dm_control's {task_name!r}; task_name={name!r} names another task")
    if "frame_skip" in kwargs:
        kwargs["n_sub_steps"] = kwargs.pop("frame_skip")
    # EnvPool stacks pixel observations along the channels, (3 * frame_stack, H, W), and each state
    # key along a new first axis, (frame_stack, *shape): envhive's frame_stack does both.
    frame_stack = kwargs.pop("frame_stack", 1)
    kwargs["frame_stack"] = frame_stack
    if "max_episode_steps" in out:
        kwargs["time_limit"] = float("inf")  # the step limit alone ends episodes, as in EnvPool
    else:
        out["max_episode_steps"] = ENVPOOL_EPISODE_STEPS
    view["task_name"] = task_name
    view["frame_stack"] = frame_stack


def config_view(target: str, config: Mapping[str, Any]) -> Mapping[str, Any]:
    """EnvPool's ``frame_skip``: physics steps per control step (envhive's ``n_sub_steps``)."""
    return {"frame_skip": config["n_sub_steps"]}


FAMILY = Family(
    name="dmc",
    module="envhive._mujoco",
    doc="The DeepMind Control Suite (dm_control's 51 tasks), from state or pixels",
    extra="dmc",
    # dm_control itself is needed only to build a task's model (model_files raises MissingExtraError)
    requires="mujoco",
    preload="mujoco",
    resolver=resolve,
    envpool=EnvPoolNames(translate=translate_envpool, config_view=config_view, pixel_observations=True),
    loop_bench_data=loop_bench_data,
)
