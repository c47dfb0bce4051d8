"""MiniGrid and BabyAI (``csrc/envs/minigrid/``, module ``envhive._minigrid``): minigrid's grid worlds
and BabyAI's instruction levels, no third-party code."""

from __future__ import annotations

import importlib
import importlib.util

from envhive.families.base import Family


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
    time_limit_kwarg="max_steps",  # minigrid's own limit: its success reward is 1 - 0.9 * steps / max_steps
)
