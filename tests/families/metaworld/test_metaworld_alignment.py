"""Meta-World v3 step for step against metaworld 3.1.1 itself (metaworld_helpers.py has the reference
side and its one MuJoCo 4 shim), through envhive.testing.assert_matches_reference.

Env i of a pool made with seed=s plays what the Meta-World env of the id seeded s + i plays (a
benchmark's block b of envs: Meta-World's vector env seeded s + b): same first reset, same actions,
then the same observations, rewards, flags and infos across episode ends and the resets after them,
every leaf bit for bit. Actions are Meta-World's own scripted policy for the task (metaworld.policies)
with noise, mixed with random ones a little outside [-1, 1], so contacts, grasps and the reward's
success branches run.

Bit equality holds on every CPU: where Meta-World calls numpy's CPU-dispatched kernels (np.log / np.exp
in reward_utils' gaussian sigmoid and the log floors of door-open, box-close, assembly, bin-picking,
pick-out-of-hole; np.linalg.norm, OpenBLAS's ddot, in every reward), the C++ tasks call the same
kernels of the running numpy (csrc/envs/metaworld/numerics.h, core/numpy_kernels.h). `make test-deep`
runs this file under the AVX2 and baseline dispatch paths too.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envhive
from envhive import _mujoco

H = pytest.importorskip("metaworld_helpers")

from metaworld.env_dict import ALL_V3_ENVIRONMENTS  # noqa: E402

TASKS: list[str] = list(_mujoco._metaworld_task_names())  # type: ignore[attr-defined]
EPISODE_STEPS = 10
DEEP_EPISODE_STEPS = 20


def test_task_list_is_metaworlds() -> None:
    assert list(ALL_V3_ENVIRONMENTS) == TASKS
    from envhive.families.metaworld import TASKS as PY_TASKS

    assert list(PY_TASKS) == TASKS


@pytest.mark.parametrize("task", TASKS)
def test_lockstep_task(task: str) -> None:
    """Meta-World/<task> (goal observed here, so the scripted policy succeeds): a new goal from the env's
    np_random at every reset; two episode ends and the resets after them; the declared space is the
    reference's sawyer_observation_space."""
    seed = 11
    env = envhive.make(
        f"Meta-World/{task}", num_envs=1, seed=seed, max_episode_steps=EPISODE_STEPS, partially_observable=False
    )
    ref = H.task_reference(task, seed, 1, EPISODE_STEPS, partially_observable=False)
    space = ref.unwrapped.envs[0].unwrapped.sawyer_observation_space
    np.testing.assert_array_equal(env.single_observation_space.low, space.low)
    np.testing.assert_array_equal(env.single_observation_space.high, space.high)
    H.lockstep(env, ref, seed, 2 * EPISODE_STEPS + 2, [task], min_episodes=2)


@pytest.mark.parametrize("task", TASKS)
def test_envpool_id_is_the_same_task(task: str) -> None:
    """MetaWorld/<Name>-v3 (EnvPool's spelling) is the same task: same spaces and episodes, goal hidden
    by default as in EnvPool."""
    from envhive.families.metaworld import envpool_name

    a = envhive.make(f"Meta-World/{task}", num_envs=2, seed=3, max_episode_steps=4)
    b = envhive.make(envpool_name(task), num_envs=2, seed=3, max_episode_steps=4)
    assert a.single_observation_space == b.single_observation_space
    np.testing.assert_array_equal(a.single_observation_space.high[-3:], 0.0)  # goal hidden
    np.testing.assert_array_equal(a.reset()[0], b.reset()[0])
    rng = np.random.default_rng(0)
    for _ in range(6):
        act = H.random_actions(rng, 2)
        for x, y in zip(a.step(act)[:4], b.step(act)[:4], strict=True):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("observable", [True, False], ids=["goal_observable", "goal_hidden"])
def test_lockstep_fixed_goal(observable: bool) -> None:
    """Meta-World/goal_observable and goal_hidden: one goal per env, drawn by the class's constructor from
    numpy's legacy RandomState seeded s + i, after a reset of its own."""
    task, seed = "basketball-v3", 4
    name = "goal_observable" if observable else "goal_hidden"
    env = envhive.make(f"Meta-World/{name}", env_name=task, num_envs=2, seed=seed, max_episode_steps=EPISODE_STEPS)
    ref = H.fixed_reference(task, seed, 2, EPISODE_STEPS, observable)
    H.lockstep(env, ref, seed, 2 * EPISODE_STEPS + 3, [task] * 2, min_episodes=2, action_seed=2)


def test_lockstep_mt1() -> None:
    """Meta-World/MT1: MT1(env_name, seed)'s 50 goals, RandomTaskSelectWrapper's choice at each reset."""
    task, seed = "door-open-v3", 9
    env = envhive.make("Meta-World/MT1", env_name=task, num_envs=2, seed=seed, max_episode_steps=EPISODE_STEPS)
    ref = H.mt1_reference(task, seed, 2, EPISODE_STEPS)
    H.lockstep(env, ref, seed, 2 * EPISODE_STEPS + 3, [task] * 2, min_episodes=2, action_seed=3)


@pytest.mark.parametrize("split", ["train", "test"])
def test_lockstep_ml1(split: str) -> None:
    """Meta-World/ML1-train / ML1-test against metaworld.make_ml_envs_train / _test in Meta-World's own
    same-step autoreset: ML1(env_name, seed)'s goals (the test split's from seed + 1), each env walking
    its share pseudo-randomly, a new task at every reset."""
    task, seed, batch = "reach-v3", 5, 2
    env = envhive.make(
        f"Meta-World/ML1-{split}", env_name=task, num_envs=batch, seed=seed, max_episode_steps=EPISODE_STEPS,
        meta_batch_size=batch, autoreset_mode="same_step",
    )  # fmt: skip
    ref = H.benchmark_reference(f"ML1-{split}", seed, EPISODE_STEPS, env_name=task, meta_batch_size=batch)
    H.lockstep(env, ref, seed, 2 * EPISODE_STEPS + 3, [task] * batch, min_episodes=2, action_seed=4)


@pytest.mark.deep
@pytest.mark.parametrize("task", TASKS)
def test_deep_lockstep(task: str) -> None:
    """Seeds 21 and 22 (one pool of two), goal observed on the even tasks and hidden on the odd ones, in
    next-step autoreset; then goal_observable with seeds 30 and 31 in same-step autoreset, and MT1 with
    seed 40 in disabled autoreset (masked resets); three episodes each."""
    observable = TASKS.index(task) % 2 == 0
    steps = 3 * DEEP_EPISODE_STEPS + 3
    env = envhive.make(
        f"Meta-World/{task}", num_envs=2, seed=21, max_episode_steps=DEEP_EPISODE_STEPS,
        partially_observable=not observable,
    )  # fmt: skip
    ref = H.task_reference(task, 21, 2, DEEP_EPISODE_STEPS, partially_observable=not observable)
    H.lockstep(env, ref, 21, steps, [task] * 2, min_episodes=3, action_seed=7)

    env = envhive.make(
        "Meta-World/goal_observable", env_name=task, num_envs=2, seed=30, max_episode_steps=DEEP_EPISODE_STEPS,
        autoreset_mode="same_step",
    )  # fmt: skip
    ref = H.fixed_reference(task, 30, 2, DEEP_EPISODE_STEPS, True, AutoresetMode.SAME_STEP)
    H.lockstep(env, ref, 30, steps, [task] * 2, min_episodes=3, action_seed=8)

    env = envhive.make(
        "Meta-World/MT1", env_name=task, num_envs=1, seed=40, max_episode_steps=DEEP_EPISODE_STEPS,
        autoreset_mode="disabled",
    )  # fmt: skip
    ref = H.mt1_reference(task, 40, 1, DEEP_EPISODE_STEPS, AutoresetMode.DISABLED)
    H.lockstep(env, ref, 40, steps, [task], min_episodes=3, action_seed=9)
