"""Meta-World's benchmarks on one envhive pool: the task classes of each split, the 50 goals per class
that Benchmark(seed) samples (numpy's legacy RandomState through every class's reset), and the MT10 /
ML10 pools step for step against Meta-World's own vector envs, in their same-step autoreset, through
envhive.testing.assert_matches_reference (deep: building MT10 or ML10 in metaworld takes 10-20 s of
resets)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import envhive
from envhive import _mujoco

H = pytest.importorskip("metaworld_helpers")

import metaworld  # noqa: E402
import metaworld.env_dict as env_dict  # noqa: E402

EPISODE_STEPS = 12
# The family's test hooks (csrc/envs/metaworld/test_hooks.cc): a split's classes and goals per seed.
benchmark_classes = _mujoco._metaworld_benchmark_classes  # type: ignore[attr-defined]
benchmark_rand_vecs = _mujoco._metaworld_benchmark_rand_vecs  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["MT10", "MT25", "MT50", "ML10", "ML25", "ML45"])
def test_benchmark_classes(name: str) -> None:
    if name.startswith("MT"):
        assert benchmark_classes(name, False) == list(getattr(env_dict, f"{name}_V3"))
    else:
        split = getattr(env_dict, f"{name}_V3")
        assert benchmark_classes(name, False) == list(split["train"])
        assert benchmark_classes(name, True) == list(split["test"])


def _rand_vecs(tasks: list, name: str) -> np.ndarray:
    return np.array([pickle.loads(t.data)["rand_vec"] for t in tasks if t.env_name == name])


def test_mt1_and_ml1_sampling() -> None:
    """MT1 / ML1 (train and test) goals of a task, as Benchmark(env_name, seed) samples them."""
    task, seed = "push-back-v3", 17
    mt1, ml1 = metaworld.MT1(task, seed=seed), metaworld.ML1(task, seed=seed)
    np.testing.assert_array_equal(benchmark_rand_vecs(task, False, seed)[0], _rand_vecs(mt1.train_tasks, task))
    np.testing.assert_array_equal(benchmark_rand_vecs(task, False, seed)[0], _rand_vecs(ml1.train_tasks, task))
    np.testing.assert_array_equal(benchmark_rand_vecs(task, False, seed + 1)[0], _rand_vecs(ml1.test_tasks, task))


def test_mt50_pool_layout() -> None:
    """An MT50 pool: env i runs task class i (its one-hot, its goal space), two blocks of 50."""
    env = envhive.make("Meta-World/MT50", num_envs=100, seed=3, use_one_hot=True, max_episode_steps=5)
    obs, _ = env.reset()
    assert obs.shape == (100, 39 + 50)
    for i in range(100):
        np.testing.assert_array_equal(obs[i, 39:], np.eye(50)[i % 50])
    # reach-v3 (class 43) observes its rand vec's last 3 values as its goal: env 43 of block b shows one of
    # MT50(seed + b)'s 50 reach goals, and the two blocks sample different lists
    names = _mujoco._metaworld_task_names()
    reach = names.index("reach-v3")
    for block in (0, 1):
        goals = np.array(benchmark_rand_vecs("MT50", False, 3 + block)[reach])[:, -3:]
        assert any(np.array_equal(obs[50 * block + reach, 36:39], g) for g in goals)


@pytest.mark.deep
def test_mt10_sampling_and_lockstep() -> None:
    """MT10 (with the one-hot): each env's 50 goals are MT10(seed)'s for its class, and the pool plays
    Meta-World's MT10 vector env step for step. ~15 s: metaworld resets 500 times to sample MT10."""
    seed = 6
    ref = H.benchmark_reference("MT10", seed, EPISODE_STEPS, use_one_hot=True)
    ours = benchmark_rand_vecs("MT10", False, seed)
    for i, sub in enumerate(ref.unwrapped.envs):
        tasks = sub.get_wrapper_attr("tasks")
        np.testing.assert_array_equal(np.array([pickle.loads(t.data)["rand_vec"] for t in tasks]), ours[i])
    env = envhive.make(
        "Meta-World/MT10", num_envs=10, seed=seed, use_one_hot=True, max_episode_steps=EPISODE_STEPS,
        autoreset_mode="same_step",
    )  # fmt: skip
    names = benchmark_classes("MT10", False)
    H.lockstep(env, ref, seed, 2 * EPISODE_STEPS + 2, names, min_episodes=2, action_seed=5)


@pytest.mark.deep
def test_ml10_sampling_and_lockstep() -> None:
    """ML10: the train and test goals are ML10(seed)'s, and the ML10-train and -test pools (one env per
    class) play Meta-World's own envs of those splits step for step, walking their tasks pseudo-randomly.
    ~20 s: metaworld resets 750 times to sample ML10."""
    seed = 8
    bench = metaworld.ML10(seed=seed)
    for test, classes, tasks in (
        (False, bench.train_classes, bench.train_tasks),
        (True, bench.test_classes, bench.test_tasks),
    ):
        ours = benchmark_rand_vecs("ML10", test, seed)
        for i, name in enumerate(classes):
            np.testing.assert_array_equal(_rand_vecs(tasks, name), np.array(ours[i]), err_msg=name)
    for split in ("train", "test"):
        classes = list(bench.train_classes if split == "train" else bench.test_classes)
        vec = metaworld._make_ml_envs_inner(
            bench, meta_batch_size=len(classes), seed=seed, split=split, task_select="pseudorandom",
            terminate_on_success=split == "test", max_episode_steps=EPISODE_STEPS,
        )  # fmt: skip
        env = envhive.make(
            f"Meta-World/ML10-{split}", num_envs=len(classes), seed=seed, meta_batch_size=len(classes),
            max_episode_steps=EPISODE_STEPS, autoreset_mode="same_step",
        )  # fmt: skip
        ref = H.with_tasks_sampled_on_reset(vec)
        H.lockstep(env, ref, seed, 2 * EPISODE_STEPS + 2, classes, min_episodes=2, action_seed=6)
