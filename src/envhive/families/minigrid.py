"""MiniGrid and BabyAI (``csrc/envs/minigrid/``, module ``envhive._minigrid``): minigrid's grid worlds
and BabyAI's instruction levels, no third-party code."""

from __future__ import annotations

import importlib
import importlib.util

from envhive.families.base import EnvPoolNames, Family

# minigrid's wave-function-collapse levels (EnvPool lists six) read their pattern images from
# minigrid/envs/wfc/patterns/, which no released minigrid (wheel or sdist, 3.0.0 to 3.2.0) contains:
# the reference cannot make them from the package index, so nothing installable defines them.
_WFC_MISSING = (
    "minigrid's wave-function-collapse levels read pattern images (minigrid/envs/wfc/patterns/*.png) that no "
    "released minigrid package ships (3.0.0-3.2.0, wheel and sdist): their reference cannot be made from the "
    "package index, so envhive has no exact target for them"
)
WFC_IDS = (
    "MiniGrid-WFC-MazeSimple-v0",
    "MiniGrid-WFC-DungeonMazeScaled-v0",
    "MiniGrid-WFC-RoomsFabric-v0",
    "MiniGrid-WFC-ObstaclesBlackdots-v0",
    "MiniGrid-WFC-ObstaclesAngular-v0",
    "MiniGrid-WFC-ObstaclesHogs3-v0",
)


def reference_id(task_id: str) -> str:
    """minigrid registers its ids (the same as envhive's) with Gymnasium when it is imported."""
    if importlib.util.find_spec("minigrid") is not None:
        importlib.import_module("minigrid")
    return task_id


FAMILY = Family(
    name="minigrid",
    module="envhive._minigrid",
    doc="minigrid's MiniGrid grid worlds and BabyAI instruction levels",
    task_families=("minigrid", "babyai"),
    reference_id=reference_id,
    envpool=EnvPoolNames(not_in_envhive={task_id: _WFC_MISSING for task_id in WFC_IDS}),
    time_limit_kwarg="max_steps",  # minigrid's own limit: its success reward is 1 - 0.9 * steps / max_steps
)
