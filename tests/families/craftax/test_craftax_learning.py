"""A short seeded learning run on envhive's Craftax-Classic-Symbolic-v1: REINFORCE on a state-free
softmax policy over the 17 actions (numpy only), 64 envs, the return of each fresh episode's first
50 steps (achievements pay once per episode, so every iteration starts new episodes).
The policy learns to "do" (gather wood and saplings, drink) more, and earns more reward per window
than the uniform policy it starts from (a few seconds)."""

from __future__ import annotations

import numpy as np

import envhive


def test_reinforce_learns_to_collect() -> None:
    n, window, iterations = 64, 50, 12
    env = envhive.make("Craftax-Classic-Symbolic-v1", num_envs=n, seed=0)
    rng = np.random.default_rng(0)
    logits = np.zeros(17)
    means = []
    for _ in range(iterations):
        p = np.exp(logits - logits.max())
        p /= p.sum()
        counts, returns = np.zeros((n, 17)), np.zeros(n)
        env.reset()  # the next episodes of each env's key chain
        for _ in range(window):
            actions = np.minimum((rng.random(n)[:, None] > np.cumsum(p)[None, :]).sum(1), 16)
            _, reward, _, _, _ = env.step(actions)
            counts[np.arange(n), actions] += 1
            returns += reward
        grads = counts / window - p
        logits += 20.0 * ((returns - returns.mean())[:, None] * grads).mean(0)
        means.append(returns.mean())
    env.close()
    p = np.exp(logits - logits.max())
    p /= p.sum()
    assert p[5] > 2 / 17, f"'do' was not learned: {p.round(3)}"
    assert np.mean(means[-3:]) > 1.3 * means[0], means
