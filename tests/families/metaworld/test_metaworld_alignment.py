"""Meta-World v3 step for step against metaworld 3.1.1 itself (metaworld_helpers.py has the reference
side and its one MuJoCo 4 shim).

Env i of a pool made with seed=s plays what the Meta-World env of the id seeded s + i plays (a
benchmark's block b of envs: Meta-World's vector env seeded s + b): same first reset, same actions,
then the same observations (bit for bit), rewards, flags and infos across episode ends and the resets
after them. Actions are Meta-World's own scripted policy for the task (metaworld.policies) with noise,
mixed with random ones a little outside [-1, 1], so contacts, grasps and the reward's success branches
run.

Stated bounds: rewards and the reward-derived infos of the tasks whose reward passes through np.log or
np.exp (GAUSSIAN_OR_LOG: reward_utils' gaussian sigmoid, the log floors of door-open, box-close,
assembly, bin-picking, pick-out-of-hole) are compared to REWARD_RTOL. numpy's float64 log/exp are
SIMD kernels of its own on AVX512F CPUs that differ from libm in the last bit for a fraction of a
percent of arguments (under the AVX2 and baseline dispatches they equal libm, and these tasks are then
bit-exact too); envhive uses libm there for now (csrc/envs/metaworld/numerics.h). A reward never feeds
back into the state, so observations stay bit-exact. np.linalg.norm (OpenBLAS ddot) is reproduced per
CPU (FMA or not, probed once): exact under every OPENBLAS_CORETYPE.
"""

from __future__ import annotations

import envhive._metaworld  # noqa: F401
import numpy as np
import pytest

import envhive

H = pytest.importorskip("metaworld_helpers")

from metaworld.env_dict import ALL_V3_ENVIRONMENTS  # noqa: E402

TASKS = list(envhive._metaworld._task_names())  # type: ignore[attr-defined]
GAUSSIAN_OR_LOG = ("door-open-v3", "door-close-v3", "drawer-close-v3", "window-close-v3", "dial-turn-v3",
                   "faucet-open-v3", "faucet-close-v3", "box-close-v3", "assembly-v3", "bin-picking-v3",
                   "pick-out-of-hole-v3")  # fmt: skip
REWARD_RTOL = 1e-12
EPISODE_STEPS = 10


def rtol(task: str) -> float:
    return REWARD_RTOL if task in GAUSSIAN_OR_LOG else 0.0


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
    ref = H.seeded_env(task, seed, partially_observable=False)
    space = ref.env.sawyer_observation_space
    np.testing.assert_array_equal(env.single_observation_space.low, space.low)
    np.testing.assert_array_equal(env.single_observation_space.high, space.high)
    counts = H.lockstep(env, [ref], 2 * EPISODE_STEPS + 2, EPISODE_STEPS, np.random.default_rng(1), rtol(task), [task])
    assert counts["ends"] >= 2


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
    refs = [H.fixed_env(task, seed + i, observable) for i in range(2)]
    counts = H.lockstep(env, refs, 2 * EPISODE_STEPS + 3, EPISODE_STEPS, np.random.default_rng(2), 0.0, [task] * 2)
    assert counts["ends"] >= 4


def test_lockstep_mt1() -> None:
    """Meta-World/MT1: MT1(env_name, seed)'s 50 goals, RandomTaskSelectWrapper's choice at each reset."""
    task, seed = "door-open-v3", 9
    env = envhive.make("Meta-World/MT1", env_name=task, num_envs=2, seed=seed, max_episode_steps=EPISODE_STEPS)
    refs = [H.mt1_env(task, seed + i, EPISODE_STEPS) for i in range(2)]
    counts = H.lockstep(
        env, refs, 2 * EPISODE_STEPS + 3, EPISODE_STEPS, np.random.default_rng(3), rtol(task), [task] * 2
    )
    assert counts["ends"] >= 4


@pytest.mark.parametrize("split", ["train", "test"])
def test_lockstep_ml1(split: str) -> None:
    """Meta-World/ML1-train / ML1-test: ML1(env_name, seed)'s goals (the test split's from seed + 1),
    each env walking its share pseudo-randomly, a new task at every reset."""
    task, seed, batch = "reach-v3", 5, 2
    env = envhive.make(
        f"Meta-World/ML1-{split}", env_name=task, num_envs=batch, seed=seed, max_episode_steps=EPISODE_STEPS,
        meta_batch_size=batch,
    )  # fmt: skip
    refs = H.benchmark_envs(f"ML1-{split}", seed, EPISODE_STEPS, env_name=task, meta_batch_size=batch)
    counts = H.lockstep(env, refs, 2 * EPISODE_STEPS + 3, EPISODE_STEPS, np.random.default_rng(4), 0.0, [task] * batch)
    assert counts["ends"] >= 4
