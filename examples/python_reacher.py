"""A 2D point-mass reacher written in Python: continuous (Box) observations and actions.

A template for continuous control: copy this file, change the dynamics.

    python examples/python_reacher.py
    envhive bench examples.python_reacher:examples/PointReacher-v0 --num-envs 64

A point mass in the square [-1, 1]^2 is pushed by a 2D force and must come to rest on a goal
drawn at random each episode. Walls stop it. The episode terminates on the goal.
"""

# Env functions are compiled by Numba, which infers their types: no annotations needed.
# ruff: noqa: ANN001, ANN201, ANN205
from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from envhive.authoring import PyEnv, uniform

ARENA = 1.0


def distance(s):
    """Distance from the point mass to the goal (a plain helper, compiled along with its callers)."""
    dx = s.goal[0] - s.pos[0]
    dy = s.goal[1] - s.pos[1]
    return math.sqrt(dx * dx + dy * dy)


class PointReacher(PyEnv):
    """Push a point mass onto a random goal in a walled square, with a cost on effort."""

    id = "examples/PointReacher-v0"
    # [position (2), velocity (2), goal - position (2)]
    observation_space = spaces.Box(-np.inf, np.inf, shape=(6,), dtype=np.float32)
    action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
    state = {"pos": (2,), "vel": (2,), "goal": (2,), "distance": float}
    config = {
        "dt": (0.05, "Integration step (s)."),
        "max_force": (2.0, "Force at action magnitude 1 (unit mass)."),
        "damping": (0.5, "Linear velocity damping per second."),
        "ctrl_cost": (0.01, "Reward penalty per unit squared action."),
        "goal_radius": (0.05, "The episode terminates within this distance of the goal."),
    }
    max_episode_steps = 200
    reset_randoms = 4  # start position (2) and goal (2)
    infos = ("distance",)

    @staticmethod
    def reset(s, rand, cfg):
        for i in range(2):
            s.pos[i] = uniform(-0.9 * ARENA, 0.9 * ARENA, rand[i])
            s.goal[i] = uniform(-0.9 * ARENA, 0.9 * ARENA, rand[2 + i])
            s.vel[i] = 0.0
        s.distance = distance(s)

    @staticmethod
    def step(s, action, rand, cfg):
        effort = 0.0
        for i in range(2):
            a = min(max(float(action[i]), -1.0), 1.0)  # the pool checks actions are finite, not bounded
            effort += a * a
            s.vel[i] += cfg.dt * (cfg.max_force * a - cfg.damping * s.vel[i])
            s.pos[i] += cfg.dt * s.vel[i]
            if s.pos[i] > ARENA or s.pos[i] < -ARENA:  # a wall: stop there
                s.pos[i] = min(max(s.pos[i], -ARENA), ARENA)
                s.vel[i] = 0.0
        s.distance = distance(s)
        reached = s.distance < cfg.goal_radius
        reward = -s.distance - cfg.ctrl_cost * effort + (10.0 if reached else 0.0)
        return reward, reached

    @staticmethod
    def observe(s, obs, cfg):
        for i in range(2):  # element by element: slice assignment also works, but compiles slower
            obs[i] = s.pos[i]
            obs[2 + i] = s.vel[i]
            obs[4 + i] = s.goal[i] - s.pos[i]


if __name__ == "__main__":
    import envhive

    env = envhive.make(PointReacher, num_envs=16, seed=0)
    obs, info = env.reset()
    reached = 0
    for _ in range(400):
        # A PD controller towards the goal (obs[:, 4:6] is goal - position, obs[:, 2:4] velocity).
        action = np.clip(4.0 * obs[:, 4:6] - 2.0 * obs[:, 2:4], -1.0, 1.0)
        obs, reward, terminated, truncated, info = env.step(action)
        reached += int(terminated.sum())
    print(f"obs {obs.shape} {obs.dtype}; goals reached in 400 steps of 16 envs: {reached}")
    env.close()
