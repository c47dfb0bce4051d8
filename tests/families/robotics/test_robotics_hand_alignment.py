"""Lock-step tests of the Shadow Hand tasks (HandReach v3 and every HandManipulate v1 id: block,
egg, pen; rotate / full / position goals; boolean and continuous touch sensors; sparse and dense)
against the real gymnasium-robotics 1.4.x (with the tests' MuJoCo 4 shim, robotics_helpers).

Env i of a pool made with seed=s plays the episodes of gymnasium.make(id) reset with seed=s+i first
and without a seed afterwards; the manipulation resets keep the env's mjData as the reference does
(only time, qpos and qvel are restored, so MuJoCo's warm start carries over) and retry the object's
placement until it lies on the palm. Bit for bit: observations (joints, object, touch sensors),
goals, rewards (np.arccos, np.arctan2, np.sin / np.cos and the norms through numpy's own kernels),
is_success, episode ends.
"""

from __future__ import annotations

import pytest
from robotics_helpers import lockstep

from envhive.families.robotics import HAND_IDS


@pytest.mark.parametrize("task_id", HAND_IDS)
def test_hand_lockstep(task_id: str) -> None:
    """One seed, one env, a 3-step time limit: two episode ends and autoresets (new placements)."""
    counts = lockstep(task_id, seed=2, steps=8, num_envs=1, max_episode_steps=3)
    assert counts["ends"] == 2 and counts["resets"] == 2


@pytest.mark.deep
@pytest.mark.parametrize("seed", [0, 4321])
@pytest.mark.parametrize(
    "task_id",
    [
        "HandReach-v3",
        "HandManipulateBlock-v1",
        "HandManipulateBlockRotateParallelDense-v1",
        "HandManipulateEggRotate_BooleanTouchSensors-v1",
        "HandManipulatePen_ContinuousTouchSensorsDense-v1",
        "HandManipulatePenRotate-v1",
    ],
)
def test_hand_lockstep_deep(task_id: str, seed: int) -> None:
    """Several seeds, whole episodes at the registered time limits (50, 100), two envs."""
    steps = 103 if task_id.startswith("HandManipulate") else 53
    counts = lockstep(task_id, seed=seed, steps=steps, action_seed=seed % 7)
    assert counts["ends"] == 2 and counts["resets"] == 2
