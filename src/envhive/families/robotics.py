"""Gymnasium-Robotics (``csrc/envs/robotics/``, in module ``envhive._mujoco``): its descriptor, and
everything else the Python side knows about the family.

- The models are the installed gymnasium-robotics package's assets, handed to the module when it
  loads (``DATA assets_dir=gymnasium_robotics:envs/assets``).
- The family's resolver (:func:`resolve`) builds a maze's MuJoCo XML and map as gymnasium-robotics'
  ``Maze.make_maze`` builds them (:func:`maze_model`); the C++ asks for them the first time a maze
  task is made. :func:`loop_bench_data` writes the same files for ``robotics_loop_bench``.
- The goal-conditioned API of its GoalEnv tasks: ``compute_reward`` / ``compute_terminated`` /
  ``compute_truncated`` over batches of goals, callable without stepping (HER relabels with them):
  :func:`goal_methods`, the descriptor's ``task_methods``, which every envhive facade answers
  (``HiveVectorEnv``, the single env, SB3's ``env_method``). They compute exactly what the
  reference's methods compute, with the same numpy operations, so relabelled rewards are equal
  bit for bit.
- The id lists and EnvPool's names of the tasks (its mujoco-py era ids as aliases).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from envhive.errors import MissingExtraError
from envhive.families.base import EnvPoolNames, Family, Files

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo

INSTALL = 'pip install "envhive[robotics]"'

FETCH_TASKS = ("Reach", "Push", "Slide", "PickAndPlace")
FETCH_IDS = tuple(f"Fetch{t}{dense}-v4" for t in FETCH_TASKS for dense in ("", "Dense"))
MAZES = (
    "UMaze",
    "Open",
    "Open_Diverse_G",
    "Open_Diverse_GR",
    "Medium",
    "Medium_Diverse_G",
    "Medium_Diverse_GR",
    "Large",
    "Large_Diverse_G",
    "Large_Diverse_GR",
)
POINT_MAZE_IDS = tuple(f"PointMaze_{m}{dense}-v3" for m in MAZES for dense in ("", "Dense"))
ANT_MAZE_IDS = tuple(f"AntMaze_{m}{dense}-v{v}" for v in (4, 5) for m in MAZES for dense in ("", "Dense"))
MAZE_IDS = POINT_MAZE_IDS + ANT_MAZE_IDS
ADROIT_IDS = tuple(f"AdroitHand{t}{s}-v1" for t in ("Door", "Hammer", "Pen", "Relocate") for s in ("", "Sparse"))
HAND_REACH_IDS = ("HandReach-v3", "HandReachDense-v3")
# (object, variant, has touch-sensor ids) of the HandManipulate ids.
_HAND_VARIANTS = {
    "Block": (("RotateZ", True), ("RotateParallel", True), ("RotateXYZ", True), ("Full", False), ("", True)),
    "Egg": (("Rotate", True), ("Full", False), ("", True)),
    "Pen": (("Rotate", True), ("Full", False), ("", True)),
}
HAND_MANIPULATE_IDS = tuple(
    f"HandManipulate{obj}{variant}{touch}{dense}-v1"
    for obj, variants in _HAND_VARIANTS.items()
    for variant, touch_ids in variants
    for touch in (("", "_BooleanTouchSensors", "_ContinuousTouchSensors") if touch_ids else ("",))
    for dense in ("", "Dense")
)
HAND_IDS = HAND_REACH_IDS + HAND_MANIPULATE_IDS
KITCHEN_IDS = ("FrankaKitchen-v1",)
ALL_IDS = FETCH_IDS + MAZE_IDS + ADROIT_IDS + HAND_IDS + KITCHEN_IDS

# The goal methods every GoalEnv facade answers.
GOAL_METHODS = ("compute_reward", "compute_terminated", "compute_truncated")

# EnvPool 1.2.5 runs these tasks under the same ids (its Gymnasium-Robotics port, not seed-exact),
# AntMaze excepted (it has none). It also registers the mujoco-py era's ids (Fetch -v1, HandReach
# -v0, HandManipulate -v0) as the same tasks: envhive.envpool makes the current id for them.
ENVPOOL_ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    **{i.replace("-v4", "-v1"): (i, {}) for i in FETCH_IDS},
    **{i.replace("-v3", "-v0"): (i, {}) for i in HAND_REACH_IDS},
    **{i.replace("-v1", "-v0"): (i, {}) for i in HAND_MANIPULATE_IDS},
}


def maze_model(agent: str, task_id: str) -> tuple[str, list[str]]:
    """The MuJoCo XML of a maze task and its map, as gymnasium-robotics' Maze.make_maze builds them.

    ``agent``: "point" (gymnasium-robotics' point.xml) or "ant" (Gymnasium's MuJoCo ant.xml);
    ``task_id``: the registered gymnasium-robotics id whose ``maze_map`` it uses. The agent's XML
    gets one box geom per wall cell and the goal's site, serialised by ElementTree exactly as the
    reference writes its temporary file, so MuJoCo compiles the same model. The map comes back as
    one string per row, a character per cell: '1' wall, '0' empty, 'r' reset, 'g' goal, 'c' both."""
    import xml.etree.ElementTree as ET

    import gymnasium

    gymnasium.register_envs(_gymnasium_robotics())
    if task_id not in MAZE_IDS:
        raise ValueError(f"{task_id!r} is not a maze task")
    maze_map = gymnasium.registry[task_id].kwargs["maze_map"]
    if agent == "point":
        xml_path = str(Path(_assets_dir()) / "point" / "point.xml")
        scaling: float = 1
        height = 0.4
    elif agent == "ant":
        spec = importlib.util.find_spec("gymnasium.envs.mujoco")
        assert spec is not None and spec.submodule_search_locations
        xml_path = str(Path(next(iter(spec.submodule_search_locations))) / "assets" / "ant.xml")
        scaling = 4
        height = 0.5
    else:
        raise ValueError(f"unknown maze agent {agent!r}")
    tree = ET.parse(xml_path)
    worldbody = tree.find(".//worldbody")
    assert worldbody is not None
    rows, length, width = [], len(maze_map), len(maze_map[0])
    x_center, y_center = width / 2 * scaling, length / 2 * scaling
    for i in range(length):
        row = ""
        for j in range(width):
            cell = maze_map[i][j]
            row += str(cell)
            if cell == 1:
                x = (j + 0.5) * scaling - x_center
                y = y_center - (i + 0.5) * scaling
                ET.SubElement(
                    worldbody,
                    "geom",
                    name=f"block_{i}_{j}",
                    pos=f"{x} {y} {height / 2 * scaling}",
                    size=f"{0.5 * scaling} {0.5 * scaling} {height / 2 * scaling}",
                    type="box",
                    material="",
                    contype="1",
                    conaffinity="1",
                    rgba="0.7 0.5 0.3 1.0",
                )
        rows.append(row)
    ET.SubElement(
        worldbody,
        "site",
        name="target",
        pos=f"0 0 {height / 2 * scaling}",
        size=f"{0.2 * scaling}",
        rgba="1 0 0 0.7",
        type="sphere",
    )
    return ET.tostring(tree.getroot(), encoding="unicode"), rows


def resolve(key: str, args: Mapping[str, int]) -> Files:
    """The family's resolver: the model of the maze task ``key`` (``"<agent>/<task id>"``, agent
    ``point`` or ``ant``), as ``maze.xml`` (its MuJoCo XML) and ``maze.rows`` (its map, one row a line)."""
    agent, _, task_id = key.partition("/")
    if args:
        raise ValueError(f"the robotics resolver takes no arguments, got {dict(args)}")
    xml, rows = maze_model(agent, task_id)
    return [("maze.xml", xml.encode()), ("maze.rows", "".join(row + "\n" for row in rows).encode())]


def loop_bench_data(info: TaskInfo, folder: Path) -> dict[str, str]:
    """``robotics_loop_bench``'s data beyond the assets folder: for a maze task, the resolver's files
    written into ``folder`` (``maze_dir``; csrc/envs/robotics/loop_bench.cc reads them)."""
    if info.id not in MAZE_IDS:
        return {}
    for name, contents in resolve(f"{maze_agent(info.id)}/{info.id}", {}):
        (folder / name).write_bytes(contents)
    return {"maze_dir": str(folder)}


def maze_agent(task_id: str) -> str:
    """The agent of a maze task: ``point`` (PointMaze) or ``ant`` (AntMaze)."""
    return "point" if task_id.startswith("PointMaze") else "ant"


def reference_id(task_id: str) -> str:
    """gymnasium-robotics registers its ids with Gymnasium when imported (under the same names)."""
    import gymnasium

    if importlib.util.find_spec("gymnasium_robotics") is not None:
        gymnasium.register_envs(importlib.import_module("gymnasium_robotics"))
    return task_id


def assets_dir() -> str | None:
    """gymnasium_robotics/envs/assets of the installed package (as the family's DATA finds it), or
    None when it is not installed."""
    spec = importlib.util.find_spec("gymnasium_robotics")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "envs" / "assets"
    return str(folder) if folder.is_dir() else None


_MISSING = f"the Gymnasium-Robotics tasks need gymnasium-robotics, which is not installed: {INSTALL}"


def _assets_dir() -> str:
    folder = assets_dir()
    if folder is None:
        raise MissingExtraError(_MISSING)
    return folder


def _gymnasium_robotics() -> Any:
    try:
        return importlib.import_module("gymnasium_robotics")
    except ImportError as e:
        raise MissingExtraError(_MISSING) from e


@dataclass(frozen=True)
class DistanceGoal:
    """The goal test of Fetch: the Euclidean distance between achieved and desired goals (over the
    last axis) against ``distance_threshold``; sparse rewards are -1 / 0 (float32), dense ones minus
    the distance. Tasks never terminate nor truncate by themselves (the time limit is the pool's)."""

    dense: bool
    distance_threshold: float

    def distance(self, achieved_goal: Any, desired_goal: Any) -> Any:
        achieved_goal, desired_goal = _goals(achieved_goal, desired_goal)
        return np.linalg.norm(achieved_goal - desired_goal, axis=-1)

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        d = self.distance(achieved_goal, desired_goal)
        if self.dense:
            return -d
        return -(d > self.distance_threshold).astype(np.float32)

    def compute_terminated(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        return _never(achieved_goal, desired_goal)

    def compute_truncated(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        return _never(achieved_goal, desired_goal)


@dataclass(frozen=True)
class MazeGoal:
    """The goal test of PointMaze and AntMaze (maze_v4.MazeEnv): success within 0.45 of the goal;
    sparse rewards 1.0 / 0.0 (float64), dense ones exp(-distance). compute_terminated is True
    there when ``continuing_task`` is False: for one goal exactly as the reference computes it
    (np.linalg.norm over the whole array), for a batch row by row."""

    dense: bool
    continuing_task: bool

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        d = DistanceGoal(self.dense, 0.45).distance(achieved_goal, desired_goal)
        if self.dense:
            return np.exp(-d)
        return (d <= 0.45).astype(np.float64)

    def compute_terminated(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        if self.continuing_task:
            return _never(achieved_goal, desired_goal)
        a, d = np.asarray(achieved_goal), np.asarray(desired_goal)
        if a.ndim <= 1:
            return bool(np.linalg.norm(a - d) <= 0.45)
        return np.linalg.norm(a - d, axis=-1) <= 0.45

    def compute_truncated(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        return _never(achieved_goal, desired_goal)


@dataclass(frozen=True)
class HandManipulateGoal:
    """The goal test of the HandManipulate tasks (manipulate.py): a goal is the object's position and
    quaternion; the position distance (unless the task ignores it) and the rotation angle between
    the quaternions (the pen's ignoring rotation about z) against 0.01 (pen 0.05) and 0.1 rad.
    Sparse rewards are success - 1 (float32), dense ones -(10 * d_pos + d_rot). The quaternion
    arithmetic is gymnasium-robotics' own (its rotations module), so results equal the reference's
    bit for bit, batches included."""

    dense: bool
    position: bool  # target_position != "ignore"
    pen: bool  # ignore_z_target_rotation, distance_threshold 0.05

    def distances(self, achieved_goal: Any, desired_goal: Any) -> tuple[Any, Any]:
        rotations = importlib.import_module("gymnasium_robotics.utils.rotations")
        a, b = _goals(achieved_goal, desired_goal)
        if a.shape[-1] != 7:
            raise ValueError(f"a HandManipulate goal is 7 values (position, quaternion), got shape {a.shape}")
        d_pos = np.linalg.norm(a[..., :3] - b[..., :3], axis=-1) if self.position else np.zeros_like(a[..., 0])
        quat_a, quat_b = a[..., 3:], b[..., 3:]
        if self.pen:
            euler_a = rotations.quat2euler(quat_a)
            euler_b = rotations.quat2euler(quat_b)
            euler_a[2] = euler_b[2]  # as the reference writes it (for a batch: its third row)
            quat_a = rotations.euler2quat(euler_a)
        quat_diff = rotations.quat_mul(quat_a, rotations.quat_conjugate(quat_b))
        d_rot = 2 * np.arccos(np.clip(quat_diff[..., 0], -1.0, 1.0))
        return d_pos, d_rot

    def is_success(self, achieved_goal: Any, desired_goal: Any) -> Any:
        d_pos, d_rot = self.distances(achieved_goal, desired_goal)
        pos = (d_pos < (0.05 if self.pen else 0.01)).astype(np.float32)
        return pos * (d_rot < 0.1).astype(np.float32)

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        if not self.dense:
            return self.is_success(achieved_goal, desired_goal).astype(np.float32) - 1.0
        d_pos, d_rot = self.distances(achieved_goal, desired_goal)
        return -(10.0 * d_pos + d_rot)

    def compute_terminated(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        return _never(achieved_goal, desired_goal)

    def compute_truncated(self, achieved_goal: Any, desired_goal: Any, info: Any = None) -> Any:
        return _never(achieved_goal, desired_goal)


def _goals(achieved_goal: Any, desired_goal: Any) -> tuple[np.ndarray, np.ndarray]:
    """Both goals as arrays of one shape, or ValueError."""
    achieved_goal = np.asarray(achieved_goal)
    desired_goal = np.asarray(desired_goal)
    if achieved_goal.shape != desired_goal.shape:
        raise ValueError(
            f"achieved_goal and desired_goal must have the same shape, got {achieved_goal.shape} "
            f"and {desired_goal.shape}"
        )
    return achieved_goal, desired_goal


def _never(achieved_goal: Any, desired_goal: Any) -> Any:
    """False for one goal (the reference's plain ``False``), an array of False for a batch."""
    shape = _goals(achieved_goal, desired_goal)[0].shape[:-1]
    return False if shape == () else np.zeros(shape, dtype=bool)


def goal_functions(task_id: str, config: Mapping[str, Any]) -> DistanceGoal | MazeGoal | HandManipulateGoal | None:
    """The goal test of a task with its kwargs, or None for a task that is not a GoalEnv."""
    if task_id not in FETCH_IDS and task_id not in MAZE_IDS and task_id not in HAND_IDS:
        return None
    reward_type = config.get("reward_type", "sparse")
    if reward_type not in ("sparse", "dense"):
        raise ValueError(f"reward_type must be 'sparse' or 'dense', got {reward_type!r}")
    if task_id in FETCH_IDS:
        return DistanceGoal(dense=reward_type == "dense", distance_threshold=0.05)
    if task_id in HAND_REACH_IDS:
        return DistanceGoal(dense=reward_type == "dense", distance_threshold=0.01)
    if task_id in HAND_MANIPULATE_IDS:
        position = "Rotate" not in task_id
        return HandManipulateGoal(dense=reward_type == "dense", position=position, pen="Pen" in task_id)
    return MazeGoal(dense=reward_type == "dense", continuing_task=bool(config.get("continuing_task", True)))


def goal_methods(task_id: str, config: Mapping[str, Any]) -> dict[str, Callable[..., Any]]:
    """The descriptor's ``task_methods``: compute_reward / compute_terminated / compute_truncated of
    a pool's task with its resolved kwargs, by name (empty for a task that is not a GoalEnv:
    Adroit, and Kitchen, whose reference compute_reward takes Dicts and changes the env's state)."""
    goal = goal_functions(task_id, config)
    if goal is None:
        return {}
    return {name: getattr(goal, name) for name in GOAL_METHODS}


FAMILY = Family(
    name="robotics",
    module="envhive._mujoco",
    doc="Gymnasium-Robotics: Fetch, Shadow Hand, Adroit, PointMaze, AntMaze and FrankaKitchen, goal-conditioned",
    extra="robotics",
    # gymnasium-robotics is needed for the models (the assets_dir DATA, the mazes' maps): making a task
    # without it raises, naming the extra; the module itself needs mujoco (as the DeepMind Control Suite's)
    requires="mujoco",
    preload="mujoco",
    resolver=resolve,
    envpool=EnvPoolNames(aliases=ENVPOOL_ALIASES),
    loop_bench_data=loop_bench_data,
    reference_id=reference_id,
    task_methods=goal_methods,
)
