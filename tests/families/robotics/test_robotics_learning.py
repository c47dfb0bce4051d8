"""A short seeded learning test: goal-conditioned supervised learning with hindsight relabelling on
FetchReach-v4 (an envhive pool, numpy only).

Random-action rollouts are relabelled in hindsight (each transition's goal is the position the
gripper reached), a linear goal-conditioned policy is fitted to them by least squares, and the policy
then reaches fresh goals it never saw: the success rate goes from about 0 (random actions) to at
least 0.8. compute_reward (the pool's goal API, HER's relabelling call) scores the relabelled
transitions and the evaluation. SB3's SAC with its HerReplayBuffer also runs on an envhive pool
(test_robotics_goals.py) but needs more than a minute of training to succeed on 2 cores.
"""

from __future__ import annotations

import numpy as np
import pytest

import envhive

pytestmark = pytest.mark.learning


def _success_rate(pool: envhive.HiveVectorEnv, policy, episodes_per_env: int) -> float:  # type: ignore[no-untyped-def]
    obs, _ = pool.reset(seed=1000)
    rewards = []
    for _ in range(50 * episodes_per_env):
        obs, reward, terminated, truncated, info = pool.step(policy(obs))
        ended = terminated | truncated
        if ended.any():  # the last step's reward: 0 when the goal was reached
            rewards.extend(reward[ended].tolist())
        stepped = info["elapsed_step"] > 0  # rows of a step, not of an autoreset
        recomputed = pool.compute_reward(obs["achieved_goal"], obs["desired_goal"], info)
        assert np.array_equal(reward[stepped], recomputed[stepped])
    return float(np.mean(np.asarray(rewards) == 0.0))


def test_fetch_reach_hindsight_learning() -> None:
    rng = np.random.default_rng(0)
    pool = envhive.make("FetchReach-v4", num_envs=8, seed=0)
    try:
        obs, _ = pool.reset()
        achieved, reached, actions = [], [], []
        for _ in range(200):  # random exploration: 1600 transitions
            a = rng.uniform(-1, 1, (8, 4)).astype(np.float32)
            nxt, *_ = pool.step(a)
            achieved.append(obs["achieved_goal"])
            reached.append(nxt["achieved_goal"])
            actions.append(a)
            obs = nxt
        start, goal, act = np.concatenate(achieved), np.concatenate(reached), np.concatenate(actions)
        # Hindsight: every transition succeeded at the goal it reached (compute_reward says so).
        assert (pool.compute_reward(goal, goal, None) == 0).all()
        features = np.hstack([goal - start, np.ones((len(start), 1))])
        weights, *_ = np.linalg.lstsq(features, act[:, :3], rcond=None)

        def learned(o: dict[str, np.ndarray]) -> np.ndarray:
            step = o["desired_goal"] - o["achieved_goal"]
            a = np.zeros((len(step), 4), np.float32)
            a[:, :3] = np.clip(np.hstack([step, np.ones((len(step), 1))]) @ weights, -1, 1)
            return a

        def random(o: dict[str, np.ndarray]) -> np.ndarray:
            return rng.uniform(-1, 1, (len(o["desired_goal"]), 4)).astype(np.float32)

        baseline = _success_rate(pool, random, 2)
        trained = _success_rate(pool, learned, 2)
        assert baseline < 0.3 and trained >= 0.8, (baseline, trained)
    finally:
        pool.close()
