"""Gymnasium-Robotics (``envhive._robotics``): everything the Python side knows about the family.

- ``assets_dir()``: the installed gymnasium-robotics package's model folder (found without importing
  the package, which imports PettingZoo); envhive._robotics finds the same folder itself while it
  loads (csrc/bindings/robotics_tasks.cc: it must not import envhive then).
- ``maze_model(agent, id)``: a maze's MuJoCo XML and map, built as gymnasium-robotics' Maze.make_maze
  builds them (the C++ calls it the first time a maze task is made); ``write_loop_bench_data``: what
  robotics_loop_bench reads.
- The goal-conditioned API of its GoalEnv tasks: ``compute_reward`` / ``compute_terminated`` /
  ``compute_truncated`` over batches of goals, callable without stepping (HER relabels with them):
  ``goal_methods(spec)`` gives them for a pool's task, and every envhive facade answers them
  (``HiveVectorEnv``, the single env, SB3's ``env_method``). They compute exactly what the
  reference's methods compute, with the same numpy operations, so relabelled rewards are equal
  bit for bit.
- The id lists, the pip extra and EnvPool's names of the tasks.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

EXTRA = "robotics"
REQUIRES = "gymnasium_robotics"
REFERENCE = "gymnasium-robotics"
FAMILY = "robotics"

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

# EnvPool 1.2.5's ids of these tasks (its Gymnasium-Robotics port, not seed-exact): the same names.
# It has Fetch, PointMaze and the others, but no AntMaze.
ENVPOOL_IDS: dict[str, str] = {
    task_id: task_id for task_id in FETCH_IDS + POINT_MAZE_IDS + ADROIT_IDS + HAND_IDS + KITCHEN_IDS
}
# EnvPool also registers the mujoco-py era's ids (Fetch -v1, HandReach -v0, HandManipulate -v0) as the
# same tasks: envhive.envpool makes the current id for them.
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

    gymnasium.register_envs(importlib.import_module("gymnasium_robotics"))
    maze_map = gymnasium.registry[task_id].kwargs["maze_map"]
    if agent == "point":
        folder = assets_dir()
        if folder is None:
            raise ModuleNotFoundError("the maze tasks need gymnasium-robotics: pip install 'envhive[robotics]'")
        xml_path = str(Path(folder) / "point" / "point.xml")
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


def write_loop_bench_data(task_id: str, folder: str) -> None:
    """What robotics_loop_bench reads for ``task_id`` (csrc/envs/robotics/loop_bench.cc): a link to
    the assets folder and, for a maze task, its model (maze.xml) and map rows (maze.rows)."""
    assets = assets_dir()
    if assets is None:
        raise ModuleNotFoundError("the robotics loop bench needs gymnasium-robotics: pip install 'envhive[robotics]'")
    (Path(folder) / "assets").symlink_to(assets)
    if task_id in MAZE_IDS:
        xml, rows = maze_model("point" if task_id.startswith("Point") else "ant", task_id)
        (Path(folder) / "maze.xml").write_text(xml)
        (Path(folder) / "maze.rows").write_text("\n".join(rows) + "\n")


def assets_dir() -> str | None:
    """gymnasium_robotics/envs/assets of the installed package, or None when it is not installed."""
    spec = importlib.util.find_spec("gymnasium_robotics")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "envs" / "assets"
    return str(folder) if folder.is_dir() else None


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


def goal_functions(task_id: str, config: dict[str, Any]) -> DistanceGoal | MazeGoal | HandManipulateGoal | None:
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


def goal_methods(task_id: str, family: str, config: dict[str, Any]) -> dict[str, Callable[..., Any]]:
    """compute_reward / compute_terminated / compute_truncated of a pool's task, by name (empty for
    a task of another family or one that is not a GoalEnv)."""
    if family != FAMILY:
        return {}
    goal = goal_functions(task_id, config)
    if goal is None:
        return {}
    return {name: getattr(goal, name) for name in GOAL_METHODS}
