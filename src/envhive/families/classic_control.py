"""Classic control (``csrc/envs/classic_control/``, in ``envhive._native``): Gymnasium's CartPole,
MountainCar, Pendulum and Acrobot, no dependency."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envhive.errors import EnvPoolArgumentError
from envhive.families.base import EnvPoolNames, Family

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo


def translate_envpool(
    envpool_id: str, info: TaskInfo, kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]
) -> None:
    """EnvPool's Pendulum ``version``: envhive's is 1 (Gymnasium's Pendulum-v1)."""
    if info.id.startswith("Pendulum-") and kwargs.pop("version", 1) != 1:
        raise EnvPoolArgumentError(f"{envpool_id}: envhive's Pendulum is version 1 (Gymnasium's Pendulum-v1)")


FAMILY = Family(
    name="classic_control",
    module="envhive._native",
    doc="Gymnasium's classic control: CartPole, MountainCar, Pendulum, Acrobot",
    envpool=EnvPoolNames(
        aliases={"phys2d/CartPole-v0": ("CartPole-v0", {}), "phys2d/CartPole-v1": ("CartPole-v1", {})},
        not_in_envhive={
            "Pendulum-v0": "EnvPool's Pendulum-v0 integrates the angle before clipping the velocity (gym's old "
            "dynamics); envhive has Gymnasium's Pendulum-v1",
            "phys2d/Pendulum-v0": "EnvPool's phys2d/Pendulum-v0 is Pendulum-v0 (gym's old dynamics); envhive has "
            "Gymnasium's Pendulum-v1",
        },
        translate=translate_envpool,
    ),
)
