"""A short seeded learning run on an envhive Meta-World pool: the cross-entropy method trains a linear
policy on MT1 reach (goals observed) until it reaches most goals; a few seconds on two cores."""

from __future__ import annotations

import numpy as np
import pytest

import envhive


@pytest.mark.learning
def test_cem_learns_mt1_reach() -> None:
    pop, elite, steps = 24, 6, 60
    env = envhive.make("Meta-World/MT1", env_name="reach-v3", num_envs=pop, seed=0, max_episode_steps=steps)
    rng = np.random.default_rng(0)
    mean, std = np.zeros(12), np.full(12, 3.0)  # action[:3] = W @ (goal - hand) + b; gripper open

    def evaluate(thetas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs, _ = env.reset()
        returns, success = np.zeros(pop), np.zeros(pop)
        w, b = thetas[:, :9].reshape(pop, 3, 3), thetas[:, 9:]
        for _ in range(steps):
            delta = obs[:, 36:39] - obs[:, 0:3]
            act = np.zeros((pop, 4), np.float32)
            act[:, :3] = np.clip(np.einsum("pij,pj->pi", w, delta) * 10 + b * 0.1, -1, 1)
            act[:, 3] = -1
            obs, reward, _, truncated, info = env.step(act)
            returns += reward
            success = np.maximum(success, info["success"])
            if truncated.all():
                break
        return returns, success

    first = None
    for _ in range(8):
        thetas = mean + std * rng.standard_normal((pop, 12))
        returns, success = evaluate(thetas)
        first = returns.mean() if first is None else first
        best = thetas[np.argsort(returns)[-elite:]]
        mean, std = best.mean(axis=0), best.std(axis=0) + 0.05
    returns, success = evaluate(np.tile(mean, (pop, 1)))
    assert returns.mean() > 2 * first
    assert success.mean() >= 0.7, success.mean()
