"""Toy text (``csrc/envs/toy_text/``, in ``envhive._native``): Gymnasium's FrozenLake, Taxi,
CliffWalking and Blackjack, no dependency."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envhive.errors import EnvPoolArgumentError
from envhive.families.base import EnvPoolNames, Family

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo


def translate_envpool(
    envpool_id: str, info: TaskInfo, kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]
) -> None:
    """EnvPool's FrozenLake ``size`` (4 or 8) is Gymnasium's ``map_name``."""
    if info.id.startswith("FrozenLake") and "size" in kwargs:
        size = kwargs.pop("size")
        if size not in (4, 8):
            raise EnvPoolArgumentError(f"{envpool_id}: size must be 4 or 8 (the 4x4 and 8x8 maps), got {size!r}")
        kwargs["map_name"] = f"{size}x{size}"


FAMILY = Family(
    name="toy_text",
    module="envhive._native",
    doc="Gymnasium's toy text: FrozenLake, Taxi, CliffWalking, Blackjack",
    envpool=EnvPoolNames(
        aliases={
            # EnvPool's Taxi-v3 is Gymnasium 1.4's Taxi-v4 in dry weather with a steady passenger (v4 changed
            # only is_rainy and fickle_passenger, which EnvPool does not have).
            "Taxi-v3": ("Taxi-v4", {}),
            "CliffWalking-v0": ("CliffWalking-v1", {}),
            "tabular/CliffWalking-v0": ("CliffWalking-v1", {}),
            "tabular/Blackjack-v0": ("Blackjack-v1", {}),
        },
        translate=translate_envpool,
    ),
)
