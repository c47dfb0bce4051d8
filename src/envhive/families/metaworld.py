"""Meta-World v3 (``csrc/envs/metaworld/``, in module ``envhive._mujoco``): the 50 Sawyer tasks and
Meta-World's MT / ML benchmarks, on the libmujoco of the ``mujoco`` package, with the models of the
installed ``metaworld`` package (its ``assets`` folder, handed to the module when it loads: the
family's DATA); and EnvPool's names for them (``MetaWorld/<Task>-v3``, its kwargs).

metaworld 3.1.1 pins mujoco==3.3.0 but runs on the mujoco 4.0.0 envhive links (its one MuJoCo-4
incompatibility, ``reset_mocap_welds``, is a model edit the C++ side makes itself), so it is installed
without its dependencies: ``pip install "envhive[metaworld]" && pip install --no-deps metaworld==3.1.1``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envhive.errors import EnvPoolArgumentError
from envhive.families.base import EnvPoolNames, Family

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo

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


# EnvPool 1.2.5's MetaWorld/<Name>-v3 config: frame_skip 5 and frame_stack 1 are Meta-World's own (fixed
# here), task_name names the task, partially_observable (True) hides the goal, as envhive's kwarg does.
ENVPOOL_FIXED = {"frame_skip": 5, "frame_stack": 1}


def translate_envpool(
    envpool_id: str, info: TaskInfo, kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]
) -> None:
    """EnvPool's MetaWorld kwargs -> envhive's, in place, for EnvPool's ``MetaWorld/<Task>-v3`` ids
    (envhive's ``Meta-World/...`` ids take envhive's kwargs alone)."""
    if not envpool_id.startswith("MetaWorld/"):
        return
    task_name = info.doc.split()[1]  # "Meta-World reach-v3 (Sawyer arm); ..."
    name = kwargs.pop("task_name", task_name)
    if isinstance(name, bytes):
        name = name.decode()
    if name != task_name:
        raise EnvPoolArgumentError(f"{envpool_id} is Meta-World's {task_name!r}; task_name={name!r} names another task")
    for key, fixed in ENVPOOL_FIXED.items():
        value = kwargs.pop(key, fixed)
        if value != fixed:
            raise EnvPoolArgumentError(
                f"{envpool_id}: {key}={value!r}: Meta-World's Sawyer tasks step with {key} {fixed} (envhive runs "
                "Meta-World's own MDP)"
            )
    view["task_name"] = task_name
    view.update(ENVPOOL_FIXED)


FAMILY = Family(
    name="metaworld",
    module="envhive._mujoco",
    doc="Meta-World v3: 50 Sawyer manipulation tasks and its MT1/MT10/MT25/MT50 and ML1/ML10/ML25/ML45 benchmarks",
    extra="metaworld",
    # the metaworld package itself is needed only for its models (the C++ raises naming the command)
    requires="mujoco",
    preload="mujoco",
    envpool=EnvPoolNames(translate=translate_envpool),
)
