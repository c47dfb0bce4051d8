"""The Multi-Agent Particle Environments (``csrc/envs/mpe/``, module ``envhive._mpe``): mpe2 1.1.1's
nine classic scenarios as multi-agent tasks, written in C++ with no dependency. Ids and kwargs are
mpe2's (``simple_spread_v3``, ``N``, ``local_ratio``, ``max_cycles``, ``continuous_actions``, ...);
env i of a pool seeded ``s`` is mpe2's ``parallel_env(...)`` reset with seed ``s + i``."""

from __future__ import annotations

import importlib
import struct
from collections.abc import Mapping
from typing import Any

import numpy as np

from envhive.families.base import Family, Files

# mpe2's module names, in the order the family lists them (most used first).
TASK_IDS: tuple[str, ...] = (
    "simple_spread_v3",
    "simple_adversary_v3",
    "simple_tag_v3",
    "simple_v3",
    "simple_push_v3",
    "simple_speaker_listener_v4",
    "simple_reference_v3",
    "simple_crypto_v3",
    "simple_world_comm_v3",
)

REFERENCE_REQUIREMENT = "mpe2==1.1.1"
"""The reference the lock-step tests and benchmarks compare against (with pettingzoo 1.27.0)."""


def reference_parallel_env(task_id: str, **kwargs: object) -> object:
    """mpe2's ``parallel_env`` of a task id (``simple_spread_v3``), built with ``kwargs``."""
    if task_id not in TASK_IDS:
        raise ValueError(f"{task_id!r} is not an MPE task id (one of {', '.join(TASK_IDS)})")
    module = importlib.import_module(f"mpe2.{task_id}")
    return module.parallel_env(**kwargs)


def _font() -> Any:
    """mpe2's font as its frames use it: pygame.freetype, secrcode.ttf at 24 points (made afresh each
    time: mpe2's env.close() calls pygame.quit(), which ends freetype and every font made before)."""
    import os

    freetype = importlib.import_module("pygame.freetype")
    mpe2 = importlib.import_module("mpe2")
    if not freetype.get_init():
        freetype.init()
    return freetype.Font(os.path.join(os.path.dirname(str(mpe2.__file__)), "_mpe_utils", "secrcode.ttf"), 24)


def resolve(key: str, args: Mapping[str, int]) -> Files:
    """The family's resolver. ``"glyph:<c>"``: one character of mpe2's frame text as pygame.freetype
    draws it (``Font.render`` in black on a transparent surface: its alpha channel), as five int32
    (advance, the box's left from the pen, its top above the baseline, width, height), then width x
    height bytes, rows top first. Needs pygame-ce and mpe2 (its font); without them the frames carry
    no text."""
    kind, _, char = key.partition(":")
    if kind != "glyph" or len(char) != 1:
        raise ValueError(f"the mpe family resolves 'glyph:<character>' keys, not {key!r}")
    pygame = importlib.import_module("pygame")
    font = _font()
    surface, rect = font.render(char, fgcolor=(0, 0, 0, 255))
    advance = int(round(font.get_metrics(char)[0][4]))
    alpha = np.ascontiguousarray(np.array(pygame.surfarray.pixels_alpha(surface), dtype=np.uint8).T)
    height, width = alpha.shape if rect.width else (0, 0)
    body = alpha.tobytes() if rect.width else b""
    return [("glyph", struct.pack("<5i", advance, rect.x, rect.y, width, height) + body)]


FAMILY = Family(
    name="mpe",
    module="envhive._mpe",
    doc="mpe2's Multi-Agent Particle Environments (multi-agent tasks)",
    resolver=resolve,
)
