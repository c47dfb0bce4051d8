"""CartPole-v1 written in Python, run on envhive's native thread pool.

A template: copy this file, change the declarations and the three functions. It reproduces
Gymnasium's CartPole-v1 (and envhive's built-in C++ one) step for step: same seed, same
observations, rewards and flags.

    python examples/python_cartpole.py                    # a short demo
    envhive bench examples.python_cartpole:examples/CartPole-v1 --num-envs 64

    import envhive
    from examples.python_cartpole import CartPole
    env = envhive.make(CartPole, num_envs=64)             # or envhive.make("examples/CartPole-v1")
"""

# Env functions are compiled by Numba, which infers their types: no annotations needed.
# ruff: noqa: ANN001, ANN201, ANN205
from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from envhive.authoring import PyEnv, uniform

# Module-level constants are frozen into the compiled code (change them and it recompiles).
GRAVITY = 9.8
MASS_CART = 1.0
MASS_POLE = 0.1
TOTAL_MASS = MASS_POLE + MASS_CART
LENGTH = 0.5  # half the pole's length
POLE_MASS_LENGTH = MASS_POLE * LENGTH
FORCE_MAG = 10.0
TAU = 0.02  # seconds between state updates
THETA_THRESHOLD = 12 * 2 * math.pi / 360
X_THRESHOLD = 2.4
HIGH = np.array([X_THRESHOLD * 2, np.inf, THETA_THRESHOLD * 2, np.inf], dtype=np.float32)


class CartPole(PyEnv):
    """Balance a pole on a cart by pushing it left or right (Gymnasium CartPole-v1, in Python)."""

    id = "examples/CartPole-v1"
    observation_space = spaces.Box(-HIGH, HIGH, dtype=np.float32)
    action_space = spaces.Discrete(2)
    # The per-env state: float64 fields unless said otherwise.
    state = {
        "x": float,
        "x_dot": float,
        "theta": float,
        "theta_dot": float,
        "steps_beyond_terminated": np.int64,  # -1: None
    }
    config = {"sutton_barto_reward": (False, "Reward 0 per step and -1 on termination instead of +1 per step.")}
    max_episode_steps = 500
    reset_randoms = 4  # uniform [0, 1) draws handed to reset (Gymnasium draws 4 too)

    @staticmethod
    def reset(s, rand, cfg):
        s.x = uniform(-0.05, 0.05, rand[0])  # = np_random.uniform(-0.05, 0.05), bit for bit
        s.x_dot = uniform(-0.05, 0.05, rand[1])
        s.theta = uniform(-0.05, 0.05, rand[2])
        s.theta_dot = uniform(-0.05, 0.05, rand[3])
        s.steps_beyond_terminated = -1

    @staticmethod
    def step(s, action, rand, cfg):
        force = FORCE_MAG if action == 1 else -FORCE_MAG
        costheta = math.cos(s.theta)
        sintheta = math.sin(s.theta)
        temp = (force + POLE_MASS_LENGTH * (s.theta_dot * s.theta_dot) * sintheta) / TOTAL_MASS
        thetaacc = (GRAVITY * sintheta - costheta * temp) / (
            LENGTH * (4.0 / 3.0 - MASS_POLE * (costheta * costheta) / TOTAL_MASS)
        )
        xacc = temp - POLE_MASS_LENGTH * thetaacc * costheta / TOTAL_MASS

        # Euler integration, in Gymnasium's order (each update reads the previous values).
        s.x = s.x + TAU * s.x_dot
        s.x_dot = s.x_dot + TAU * xacc
        s.theta = s.theta + TAU * s.theta_dot
        s.theta_dot = s.theta_dot + TAU * thetaacc

        terminated = s.x < -X_THRESHOLD or s.x > X_THRESHOLD or s.theta < -THETA_THRESHOLD or s.theta > THETA_THRESHOLD
        if not terminated:
            reward = 0.0 if cfg.sutton_barto_reward else 1.0
        elif s.steps_beyond_terminated < 0:
            s.steps_beyond_terminated = 0
            reward = -1.0 if cfg.sutton_barto_reward else 1.0
        else:  # stepping past termination (Gymnasium warns; it is reproduced anyway)
            s.steps_beyond_terminated += 1
            reward = -1.0 if cfg.sutton_barto_reward else 0.0
        return reward, terminated

    @staticmethod
    def observe(s, obs, cfg):
        obs[0] = s.x  # obs is float32: each value is rounded like np.array(state, dtype=np.float32)
        obs[1] = s.x_dot
        obs[2] = s.theta
        obs[3] = s.theta_dot


if __name__ == "__main__":
    import time

    import envhive

    start = time.perf_counter()
    env = envhive.make(CartPole, num_envs=64, seed=0)
    print(f"make: {time.perf_counter() - start:.2f} s (compiled code is cached on disk)")
    obs, info = env.reset()
    returns = np.zeros(64)
    for _ in range(500):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        returns += reward
    print(f"obs {obs.shape} {obs.dtype}; mean reward over 500 steps: {returns.mean():.1f}")
    env.close()
