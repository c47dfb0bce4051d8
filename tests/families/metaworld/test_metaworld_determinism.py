"""envhive's own determinism for Meta-World: the same seed twice gives the same episodes, and an async
pool plays each env's episodes as the sync pool does (the reference side is test_metaworld_alignment.py)."""

from __future__ import annotations

import numpy as np
import pytest

import envhive

H = pytest.importorskip("metaworld_helpers")


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
