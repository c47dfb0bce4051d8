"""The deep matrix (-m deep): every task, more seeds, longer episodes, goal hidden and observed, the
goal-observable / goal-hidden classes and MT1, each against metaworld 3.1.1; and envhive's own
determinism (the same seed twice, sync against async)."""

from __future__ import annotations

import numpy as np
import pytest

import envhive
from envhive import _metaworld as mw  # type: ignore[attr-defined]

H = pytest.importorskip("metaworld_helpers")

from test_metaworld_alignment import rtol  # noqa: E402

TASKS = list(mw._task_names())
EPISODE_STEPS = 20


@pytest.mark.deep
@pytest.mark.parametrize("task", TASKS)
def test_deep_lockstep(task: str) -> None:
    """Seeds 21 and 22 (one pool of two), goal observed on the even tasks and hidden on the odd ones;
    then goal_observable with seeds 30 and 31, and MT1 with seed 40; three episodes each."""
    observable = TASKS.index(task) % 2 == 0
    env = envhive.make(
        f"Meta-World/{task}", num_envs=2, seed=21, max_episode_steps=EPISODE_STEPS, partially_observable=not observable
    )
    refs = [H.seeded_env(task, 21 + i, partially_observable=not observable) for i in range(2)]
    steps = 3 * EPISODE_STEPS + 3
    assert H.lockstep(env, refs, steps, EPISODE_STEPS, np.random.default_rng(7), rtol(task), [task] * 2)["ends"] >= 6
    env = envhive.make(
        "Meta-World/goal_observable", env_name=task, num_envs=2, seed=30, max_episode_steps=EPISODE_STEPS
    )
    refs = [H.fixed_env(task, 30 + i, True) for i in range(2)]
    H.lockstep(env, refs, steps, EPISODE_STEPS, np.random.default_rng(8), rtol(task), [task] * 2)
    env = envhive.make("Meta-World/MT1", env_name=task, num_envs=1, seed=40, max_episode_steps=EPISODE_STEPS)
    H.lockstep(
        env, [H.mt1_env(task, 40, EPISODE_STEPS)], steps, EPISODE_STEPS, np.random.default_rng(9), rtol(task), [task]
    )


@pytest.mark.parametrize("task_id", ["Meta-World/pick-place-v3", "Meta-World/MT10"])
def test_same_seed_same_episodes_sync_and_async(task_id: str) -> None:
    """The same seed twice gives the same episodes, and an async pool (batch_size < num_envs) plays each
    env's episodes exactly as the sync pool does."""
    n = 10
    rng = np.random.default_rng(0)
    actions = [H.random_actions(rng, n) for _ in range(40)]
    checked = 25

    def run_sync() -> list[np.ndarray]:
        env = envhive.make(task_id, num_envs=n, seed=5, max_episode_steps=8)
        out = [env.reset()[0]]
        out += [env.step(a)[0] for a in actions[:checked]]
        return out

    a, b = run_sync(), run_sync()
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    env = envhive.make(task_id, num_envs=n, batch_size=n // 2, seed=5, max_episode_steps=8)
    env.async_reset()
    seen = {i: [] for i in range(n)}
    sent = dict.fromkeys(range(n), 0)
    while min(sent.values()) < checked:  # every env stays in flight: send for each one received
        obs, _, _, _, info = env.recv()
        ids = [int(i) for i in info["env_id"]]
        for k, i in enumerate(ids):
            seen[i].append(obs[k])
        env.send(np.stack([actions[min(sent[i], len(actions) - 1)][i] for i in ids]), np.array(ids, dtype=np.int32))
        for i in ids:
            sent[i] += 1
    for i in range(n):
        for t, o in enumerate(seen[i][: len(a)]):
            np.testing.assert_array_equal(o, a[t][i], err_msg=f"env {i} step {t}")
