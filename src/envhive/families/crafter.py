"""The Crafter family (envhive._crafter): crafter 1.8.3's game in C++.

What the Python side knows about it: its pip extra, the textures the C++ draws with (the
installed crafter package's assets, read as crafter reads them), the check of the rules compiled
into the module against crafter's data.yaml, its ids, and the bench engine of crafter's own loop.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from envhive.errors import MissingExtraError

EXTRA = "crafter"
REQUIRES = "crafter"  # the package whose assets the module draws
VERSION = "1.8.3"
IDS = ("CrafterReward-v1", "CrafterNoReward-v1")


def _package_dir() -> Path:
    spec = importlib.util.find_spec("crafter")
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtraError(
            f"envhive's Crafter tasks draw with the crafter package's textures: pip install 'envhive[{EXTRA}]' "
            f"(crafter=={VERSION})"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def textures() -> dict[str, np.ndarray]:
    """crafter's assets/*.png by file stem, decoded as crafter's Textures does (imageio, RGB or
    RGBA, rows first)."""
    import imageio.v3 as imageio

    out: dict[str, np.ndarray] = {}
    for path in sorted((_package_dir() / "assets").glob("*.png")):
        image = np.ascontiguousarray(imageio.imread(path.read_bytes()), dtype=np.uint8)
        if image.ndim == 3:
            out[path.stem] = image
    return out


def check_rules(numbers: Sequence[tuple[str, float]]) -> None:
    """Raise ImportError when a rule compiled into envhive._crafter (a dotted path into
    crafter.constants and its value) differs from the installed crafter's data.yaml."""
    import crafter.constants as constants

    wrong = []
    for path, value in numbers:
        node: Any = constants
        parts = path.split(".")
        node = getattr(node, parts[0])
        for part in parts[1:]:
            node = node.get(part) if isinstance(node, dict) else None
        if node != value:
            wrong.append(f"{path}: envhive {value}, crafter {node}")
    if wrong:
        raise ImportError(
            f"envhive._crafter was built for crafter {VERSION}'s rules; the installed crafter differs: "
            + "; ".join(wrong)
        )


def bench_single(task: str, seed: int) -> tuple[Any, Any]:
    """crafter's own loop for ``envhive bench --compare crafter-single``: one crafter.Env stepped
    with random actions in Python, reset when its episode ends. Returns (advance(n), close)."""
    import crafter

    env = crafter.Env(seed=seed, reward=task == "CrafterReward-v1")
    env.reset()
    actions = np.random.default_rng(seed).integers(0, 17, size=4096).tolist()
    state = {"i": 0}

    def advance(n: int) -> None:
        i = state["i"]
        for _ in range(n):
            _, _, done, _ = env.step(actions[i % 4096])
            i += 1
            if done:
                env.reset()
        state["i"] = i

    return advance, lambda: None
