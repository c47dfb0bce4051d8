"""A slippery grid world written in Python: Discrete observations and actions.

A template for tabular tasks: copy this file, change the map and the three functions.

    python examples/python_gridworld.py
    envhive bench examples.python_gridworld:examples/GridWorld-v0 --num-envs 64

The agent starts on a random free cell and must reach the goal (G) without walking into
walls (#), which it bumps into. With probability `slip` its move goes in a random direction.
The observation is the agent's cell index, row * COLS + col.
"""

# Env functions are compiled by Numba, which infers their types: no annotations needed.
# ruff: noqa: ANN001, ANN201, ANN205
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envhive.authoring import PyEnv

MAP = [
    "......#.",
    ".####.#.",
    "......#.",
    ".#.####.",
    ".#......",
    ".####.#.",
    "......#G",
]
ROWS, COLS = len(MAP), len(MAP[0])
# Global numpy arrays are frozen into the compiled code as constants (read-only there).
WALLS = np.array([[c == "#" for c in row] for row in MAP], dtype=np.bool_)
GOAL_ROW, GOAL_COL = ROWS - 1, COLS - 1
FREE = np.array([r * COLS + c for r in range(ROWS) for c in range(COLS) if MAP[r][c] == "."], dtype=np.int64)
# Action -> (row, col) change: up, right, down, left.
MOVES = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]], dtype=np.int64)


def move(row, col, action):
    """The cell reached from (row, col) by `action`; walls and edges block the move.

    A plain helper function: envhive compiles it along with the functions that call it."""
    r = row + MOVES[action, 0]
    c = col + MOVES[action, 1]
    if r < 0 or r >= ROWS or c < 0 or c >= COLS or WALLS[r, c]:
        return row, col
    return r, c


class GridWorld(PyEnv):
    """Reach the goal of a small maze; moves slip with probability `slip`."""

    id = "examples/GridWorld-v0"
    observation_space = spaces.Discrete(ROWS * COLS)
    action_space = spaces.Discrete(4)
    state = {"row": np.int64, "col": np.int64, "bumps": np.int64}
    config = {
        "slip": (0.1, "Probability that a move goes in a uniformly random direction instead."),
        "step_cost": (0.01, "Reward -step_cost per move; reaching the goal gives +1."),
    }
    max_episode_steps = 200
    infos = ("bumps",)  # state fields reported in info["bumps"]
    reset_randoms = 1  # the start cell
    step_randoms = 2  # slip or not, and the random direction

    @staticmethod
    def reset(s, rand, cfg):
        cell = FREE[int(rand[0] * len(FREE))]
        s.row = cell // COLS
        s.col = cell % COLS
        s.bumps = 0

    @staticmethod
    def step(s, action, rand, cfg):
        if rand[0] < cfg.slip:
            action = int(rand[1] * 4)
        row, col = move(s.row, s.col, action)
        if row == s.row and col == s.col:
            s.bumps += 1
        s.row = row
        s.col = col
        at_goal = s.row == GOAL_ROW and s.col == GOAL_COL
        reward = 1.0 if at_goal else -cfg.step_cost
        return reward, at_goal

    @staticmethod
    def observe(s, cfg):
        return s.row * COLS + s.col  # a Discrete observation: observe returns the int


if __name__ == "__main__":
    import envhive

    env = envhive.make(GridWorld, num_envs=8, seed=0, slip=0.2)
    obs, info = env.reset()
    episodes, returns, ret = 0, [], np.zeros(8)
    for _ in range(2000):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        ret += reward
        for i in np.flatnonzero(terminated | truncated):
            returns.append(ret[i])
            ret[i] = 0.0
    print(f"obs {obs} ({obs.dtype}); {len(returns)} episodes, mean return {np.mean(returns):.2f}")
    env.close()
