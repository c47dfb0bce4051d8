"""Meta-World v3 (envhive._metaworld): what the Python side knows about the family.

The C++ tasks (csrc/envs/metaworld/) load the installed ``metaworld`` package's XML files and
reproduce its numpy arithmetic; :func:`runtime` tells them, once per process, where those files are
and how numpy's BLAS rounds a short dot product. Nothing here runs while an env steps.
"""

from __future__ import annotations

import importlib.util
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

from envhive.errors import MissingExtraError

EXTRA = "metaworld"
# metaworld 3.1.1 pins mujoco==3.3.0 but runs on the mujoco 4.0.0 envhive links (its one MuJoCo-4
# incompatibility, reset_mocap_welds, is a model edit the C++ side makes itself), so it is installed
# without its dependencies; the envhive[metaworld] extra lists the others.
METAWORLD = "metaworld==3.1.1"
INSTALL = f'pip install "envhive[{EXTRA}]" && pip install --no-deps "{METAWORLD}"'

# The 50 v3 task names (metaworld.env_dict.ALL_V3_ENVIRONMENTS, in its order).
TASKS = (
    "assembly-v3", "basketball-v3", "bin-picking-v3", "box-close-v3", "button-press-topdown-v3",
    "button-press-topdown-wall-v3", "button-press-v3", "button-press-wall-v3", "coffee-button-v3", "coffee-pull-v3",
    "coffee-push-v3", "dial-turn-v3", "disassemble-v3", "door-close-v3", "door-lock-v3", "door-open-v3",
    "door-unlock-v3", "hand-insert-v3", "drawer-close-v3", "drawer-open-v3", "faucet-open-v3", "faucet-close-v3",
    "hammer-v3", "handle-press-side-v3", "handle-press-v3", "handle-pull-side-v3", "handle-pull-v3", "lever-pull-v3",
    "pick-place-wall-v3", "pick-out-of-hole-v3", "pick-place-v3", "plate-slide-v3", "plate-slide-side-v3",
    "plate-slide-back-v3", "plate-slide-back-side-v3", "peg-insert-side-v3", "peg-unplug-side-v3", "soccer-v3",
    "stick-push-v3", "stick-pull-v3", "push-v3", "push-wall-v3", "push-back-v3", "reach-v3", "reach-wall-v3",
    "shelf-place-v3", "sweep-into-v3", "sweep-v3", "window-open-v3", "window-close-v3",
)  # fmt: skip


def envpool_name(task: str) -> str:
    """EnvPool's id of a task: ``button-press-topdown-v3`` -> ``MetaWorld/ButtonPressTopdown-v3``."""
    name, version = task.rsplit("-", 1)
    return "MetaWorld/" + "".join(part[:1].upper() + part[1:] for part in name.split("-")) + "-" + version


def assets_dir() -> str:
    """The ``assets`` folder of the installed metaworld package (found without importing it)."""
    spec = importlib.util.find_spec("metaworld")
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtraError(f"the Meta-World tasks load their models from the metaworld package: {INSTALL}")
    folder = Path(next(iter(spec.submodule_search_locations))) / "assets"
    if not (folder / "sawyer_xyz").is_dir():
        raise MissingExtraError(f"the metaworld package at {folder.parent} has no assets/sawyer_xyz: {INSTALL}")
    return str(folder)


def blas_dot_uses_fma() -> bool:
    """Whether numpy's ``v.dot(v)`` of a 3-vector fuses its multiply-adds (OpenBLAS's SkylakeX and Zen
    kernels do, Haswell's and Nehalem's do not): np.linalg.norm, which Meta-World's rewards call
    everywhere, rounds accordingly. Probed on vectors where the two differ."""
    import numpy as np

    def fma(a: float, b: float, c: float) -> float:
        return float(Fraction(a) * Fraction(b) + Fraction(c))

    rng = random.Random(0)
    for _ in range(200):
        v = [rng.uniform(-1.0, 1.0) for _ in range(3)]
        plain = (v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]
        fused = fma(v[2], v[2], fma(v[1], v[1], v[0] * v[0]))
        if plain != fused:
            got = float(np.asarray(v).dot(np.asarray(v)))
            if got == fused:
                return True
            if got == plain:
                return False
    return False


def runtime() -> tuple[str, bool]:
    """What envhive._metaworld asks once per process: (assets folder, numpy's ddot uses FMA)."""
    return assets_dir(), blas_dot_uses_fma()


# ----------------------------------------------------------------------------- EnvPool's MetaWorld ids
# EnvPool 1.2.5's MetaWorld/<Name>-v3 config: frame_skip 5 and frame_stack 1 are Meta-World's own (fixed
# here), task_name names the task, partially_observable (True) hides the goal, as envhive's kwarg does.
ENVPOOL_FIXED = {"frame_skip": 5, "frame_stack": 1}


def translate_envpool(envpool_id: str, task_name: str, kwargs: dict[str, Any], view: dict[str, Any]) -> None:
    """EnvPool's MetaWorld kwargs -> envhive's, in place; a value envhive cannot run raises ValueError
    naming both (envhive.envpool turns it into its EnvPoolArgumentError)."""
    name = kwargs.pop("task_name", task_name)
    if isinstance(name, bytes):
        name = name.decode()
    if name != task_name:
        raise ValueError(f"{envpool_id} is Meta-World's {task_name!r}; task_name={name!r} names another task")
    for key, fixed in ENVPOOL_FIXED.items():
        value = kwargs.pop(key, fixed)
        if value != fixed:
            raise ValueError(
                f"{envpool_id}: {key}={value!r}: Meta-World's Sawyer tasks step with {key} {fixed} (envhive runs "
                "Meta-World's own MDP)"
            )
    view["task_name"] = task_name
    view.update(ENVPOOL_FIXED)
