"""Atari (``csrc/envs/atari/``, module ``envhive._atari``): every ALE game, on ALE built from the
ale-py source distribution (GPL-2.0) into the module only; the ROMs are the installed ale-py
wheel's (the ``atari`` extra), handed to the module when it loads."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from envhive.errors import EnvPoolArgumentError
from envhive.families.base import EnvPoolNames, Family

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo


def game(info: TaskInfo) -> str:
    """The ALE ROM name of an Atari task (EnvPool's ``task`` config value), e.g. ``pong``."""
    m = re.search(r"ROM (\w+)\.bin", info.doc)
    return m.group(1) if m else info.id.rsplit("-", 1)[0].lower()


def translate_envpool(
    envpool_id: str, info: TaskInfo, kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]
) -> None:
    """EnvPool's ``task`` names the game the id plays; EnvPool always reports ``info["ram"]``."""
    rom = game(info)
    task = kwargs.pop("task", rom)
    if isinstance(task, bytes):
        task = task.decode()
    if str(task).replace("_", "").lower() != rom.replace("_", "").lower():
        raise EnvPoolArgumentError(f"{envpool_id} plays {rom!r}; task={task!r} names another game (make its own id)")
    view["task"] = rom
    kwargs.setdefault("ram", True)


def roms_elsewhere() -> bool:
    """ale-py's ``$ALE_ROMS_DIR`` names a ROM folder (the module's register function honours it, as
    ale-py does): its games may not be the manifest's."""
    return bool(os.environ.get("ALE_ROMS_DIR"))


def reference_id(task_id: str) -> str:
    """ALE registers its games with Gymnasium under ``ALE/`` (``ALE/Pong-v5``)."""
    import gymnasium

    if importlib.util.find_spec("ale_py") is None:
        return task_id
    gymnasium.register_envs(importlib.import_module("ale_py"))
    ale_id = f"ALE/{task_id}"
    return ale_id if ale_id in gymnasium.registry else task_id


FAMILY = Family(
    name="atari",
    module="envhive._atari",
    doc="Atari 2600 games on ALE, with EnvPool's and DQN's preprocessing",
    extra="atari",
    requires="ale_py",
    envpool=EnvPoolNames(
        aliases={"TicTacToe3d-v5": ("TicTacToe3D-v5", {})},
        translate=translate_envpool,
        info_casts={"reward": np.float32, "terminated": np.int32},
    ),
    tasks_vary=roms_elsewhere,
    reference_id=reference_id,
)
