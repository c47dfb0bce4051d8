"""The Crafter family (``csrc/envs/crafter/``, module ``envhive._crafter``): crafter 1.8.3's game in
C++, and everything else the Python side knows about it.

- The textures the C++ draws with are the installed crafter package's assets, decoded as crafter's
  own Textures decodes them (imageio) by the family's resolver (:func:`resolve`, key
  ``"textures"``) the first time a task is made; key ``"rules"`` gives crafter's rule numbers
  (its data.yaml, as ``crafter.constants`` holds them), which the C++ checks against the rules
  compiled in. :func:`loop_bench_data` writes the same texture files for ``crafter_loop_bench``.
- :func:`reference_id` registers crafter's own Env with Gymnasium (crafter registers only with the
  old gym) behind a small adapter, so ``envhive bench``'s reference engines (one env in a Python
  loop, Gymnasium's Sync/AsyncVectorEnv) run crafter itself.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from envhive.errors import MissingExtraError
from envhive.families.base import Family, Files

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo

EXTRA = "crafter"
VERSION = "1.8.3"
IDS = ("CrafterReward-v1", "CrafterNoReward-v1")
# The Gymnasium ids of crafter's own Env (reference_id): crafter registers none with Gymnasium.
REFERENCE_PREFIX = "crafter-reference/"


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


def texture_files() -> Files:
    """:func:`textures` as the C++ reads them: (stem, int32 rows, columns, channels + the bytes)."""
    return [
        (name, np.asarray(image.shape, dtype=np.int32).tobytes() + image.tobytes())
        for name, image in textures().items()
    ]


def rule_numbers() -> dict[str, float]:
    """Every number of the installed crafter's rules (``crafter.constants``: its data.yaml), by
    dotted path (``make.wood_pickaxe.uses.wood``)."""
    _package_dir()
    import crafter.constants as constants

    out: dict[str, float] = {}

    def walk(path: str, node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(f"{path}.{key}", value)
        elif isinstance(node, int | float) and not isinstance(node, bool):
            out[path] = float(node)

    for name in ("walkable", "items", "collect", "place", "make", "achievements"):
        walk(name, getattr(constants, name, None))
    return out


def resolve(key: str, args: Mapping[str, int]) -> Files:
    """The family's resolver: ``"textures"`` (:func:`texture_files`) or ``"rules"`` (one text file
    of ``<path> <value>`` lines, :func:`rule_numbers`)."""
    if key == "textures":
        return texture_files()
    if key == "rules":
        return [("rules", "".join(f"{path} {value!r}\n" for path, value in rule_numbers().items()).encode())]
    raise KeyError(f"the crafter family resolves 'textures' and 'rules', not {key!r}")


def loop_bench_data(info: TaskInfo, folder: Path) -> dict[str, str]:
    """``crafter_loop_bench``'s data: the texture files written into ``folder``."""
    for name, contents in texture_files():
        (folder / name).write_bytes(contents)
    return {"textures_dir": str(folder)}


def reference_id(task_id: str) -> str:
    """The Gymnasium id of crafter's own Env doing ``task_id`` (registered here, once): crafter.Env
    behind an adapter to Gymnasium's API (reset(seed) reseeds it; an episode's end is a termination
    when the player dies, else a truncation at crafter's length)."""
    import gymnasium

    gid = REFERENCE_PREFIX + task_id
    if task_id in IDS and gid not in gymnasium.registry:
        gymnasium.register(gid, entry_point=_reference_env, kwargs={"reward": task_id == "CrafterReward-v1"})
    return gid


def _reference_env(reward: bool = True, **kwargs: Any) -> Any:
    import crafter
    import gymnasium

    class CrafterReference(gymnasium.Env[Any, Any]):
        metadata = {"render_modes": []}

        def __init__(self) -> None:
            self.env = crafter.Env(reward=reward, **kwargs)
            self.observation_space = gymnasium.spaces.Box(0, 255, self.env.observation_space.shape, np.uint8)
            self.action_space = gymnasium.spaces.Discrete(self.env.action_space.n)

        def reset(
            self, *, seed: int | None = None, options: dict[str, Any] | None = None
        ) -> tuple[Any, dict[str, Any]]:
            if seed is not None:
                self.env._seed = seed
                self.env._episode = 0
            return self.env.reset(), {}

        def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
            obs, rew, done, info = self.env.step(action)
            dead = self.env._player.health <= 0
            return obs, float(rew), bool(done and dead), bool(done and not dead), info

    return CrafterReference()


FAMILY = Family(
    name="crafter",
    module="envhive._crafter",
    doc="crafter 1.8.3's Crafter (pixels, 17 actions, 22 achievements)",
    extra=EXTRA,
    requires="crafter",
    resolver=resolve,
    loop_bench_data=loop_bench_data,
    reference_id=reference_id,
)
