"""Shared helpers: Gymnasium reference envs, action generators and lock-step comparison."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envhive
from envhive.testing.contract import no_hang

CLASSIC_TASKS = (
    "CartPole-v0",
    "CartPole-v1",
    "Pendulum-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Acrobot-v1",
)
# Gymnasium's MuJoCo tasks, each as v4 and v5.
MUJOCO_NAMES = (
    "Ant",
    "HalfCheetah",
    "Hopper",
    "Humanoid",
    "HumanoidStandup",
    "InvertedPendulum",
    "InvertedDoublePendulum",
    "Pusher",
    "Reacher",
    "Swimmer",
    "Walker2d",
)
MUJOCO_TASKS = tuple(f"{name}-v{v}" for name in MUJOCO_NAMES for v in (4, 5))

MODE_NAMES = ("next_step", "same_step", "disabled")
GYM_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}
# Gymnasium 1.4's registered time limits.
DEFAULT_MAX_EPISODE_STEPS = {
    "CartPole-v0": 200,
    "CartPole-v1": 500,
    "Pendulum-v1": 200,
    "MountainCar-v0": 200,
    "MountainCarContinuous-v0": 999,
    "Acrobot-v1": 500,
}
# Tasks whose trajectories need a tolerance against Gymnasium (all are bit-exact today).
TOLERANCE: dict[str, float] = {}


def gym_vec(task_id: str, num_envs: int, mode: str = "next_step", **kwargs: Any) -> gymnasium.vector.VectorEnv:
    """Gymnasium's own SyncVectorEnv of ``task_id`` (the reference envhive must reproduce)."""
    return gymnasium.make_vec(
        task_id,
        num_envs=num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": GYM_MODES[mode]},
        **kwargs,
    )


def random_actions(space: gymnasium.Space[Any], n: int, rng: np.random.Generator, overshoot: float = 1.5) -> np.ndarray:
    """``n`` random actions for a single-env space; Box actions are float32 and overshoot the bounds."""
    if isinstance(space, gymnasium.spaces.Discrete):
        return rng.integers(space.start, space.start + space.n, size=n)
    assert isinstance(space, gymnasium.spaces.Box)
    low, high = space.low * overshoot, space.high * overshoot
    return rng.uniform(low, high, size=(n, *space.shape)).astype(np.float32)


def assert_same(actual: Any, expected: Any, atol: float = 0.0, what: str = "") -> None:
    """Bit-exact equality when ``atol`` is 0, else absolute tolerance ``atol``."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if atol == 0.0:
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        np.testing.assert_allclose(actual, expected, rtol=0, atol=atol, err_msg=what)


@dataclass
class LockstepStats:
    steps: int = 0
    terminated: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    truncated: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    @property
    def episodes(self) -> np.ndarray:
        return self.terminated + self.truncated


def lockstep(
    hive: envhive.HiveVectorEnv,
    gym_env: gymnasium.vector.VectorEnv,
    mode: str,
    seed: int,
    n_steps: int,
    policy: Callable[[np.ndarray, np.random.Generator], np.ndarray] | None = None,
    atol: float = 0.0,
    action_seed: int = 0,
    infos: bool = False,
) -> LockstepStats:
    """Run envhive and Gymnasium side by side with the same actions and compare every output.

    envhive was made with ``seed=seed``; Gymnasium is reset with ``reset(seed=seed)``. Checks obs,
    rewards, flags and (SAME_STEP) final observations, and that ``info['elapsed_step']`` counts
    the steps of the current episode. In DISABLED mode ended envs are reset with a reset_mask on
    both. ``policy(obs, rng)`` picks actions (default: random, overshooting Box bounds). With
    ``infos``, every info Gymnasium reports (reset, step, SAME_STEP final_info) is compared too
    (``assert_infos_equal``).
    """
    n = hive.num_envs
    rng = np.random.default_rng(action_seed)
    if policy is None:

        def policy(_obs: np.ndarray, r: np.random.Generator) -> np.ndarray:
            return random_actions(hive.single_action_space, n, r)

    h_obs, h_info = hive.reset()
    g_obs, g_info = gym_env.reset(seed=seed)
    assert_same(h_obs, g_obs, atol, "reset obs")
    if infos:
        assert_infos_equal(h_info, g_info, "reset")
    np.testing.assert_array_equal(h_info["env_id"], np.arange(n))
    np.testing.assert_array_equal(h_info["elapsed_step"], np.zeros(n))
    elapsed = np.zeros(n, dtype=np.int64)
    ended = np.zeros(n, dtype=bool)
    stats = LockstepStats(terminated=np.zeros(n, dtype=int), truncated=np.zeros(n, dtype=int))
    for t in range(n_steps):
        actions = policy(h_obs, rng)
        h_obs, h_rew, h_term, h_trunc, h_info = hive.step(actions.copy())
        g_obs, g_rew, g_term, g_trunc, g_info = gym_env.step(actions.copy())
        where = f"step {t}"
        assert_same(h_obs, g_obs, atol, f"{where} obs")
        assert_same(h_rew, g_rew, atol, f"{where} reward")
        np.testing.assert_array_equal(h_term, g_term, err_msg=f"{where} terminated")
        np.testing.assert_array_equal(h_trunc, g_trunc, err_msg=f"{where} truncated")
        np.testing.assert_array_equal(h_info["env_id"], np.arange(n))
        if infos:
            assert_infos_equal(h_info, g_info, where)
            if mode == "same_step" and "final_info" in g_info:
                assert_infos_equal(h_info["final_info"], g_info["final_info"], f"{where} final_info")

        done = h_term | h_trunc
        # NEXT_STEP: the step after an episode ended is the reset (elapsed 0).
        elapsed = np.where(ended, 0, elapsed + 1) if mode == "next_step" else elapsed + 1
        if mode == "same_step":
            assert ("_final_obs" in h_info) == ("_final_obs" in g_info) == bool(done.any()), where
            if done.any():
                np.testing.assert_array_equal(h_info["_final_obs"], done, err_msg=where)
                np.testing.assert_array_equal(h_info["_final_obs"], g_info["_final_obs"], err_msg=where)
                np.testing.assert_array_equal(h_info["_final_info"], done, err_msg=where)
                np.testing.assert_array_equal(h_info["_final_info"], g_info["_final_info"], err_msg=where)
                assert h_info["final_obs"].dtype == object and h_info["final_obs"].shape == (n,)
                # Gymnasium's classic tasks report no info; envhive's final_info holds its own fields.
                assert set(g_info["final_info"]) <= set(h_info["final_info"]), where
                final_info = h_info["final_info"]
                for i in range(n):
                    if done[i]:
                        assert_same(h_info["final_obs"][i], g_info["final_obs"][i], atol, f"{where} final_obs[{i}]")
                        assert final_info["elapsed_step"][i] == elapsed[i], where
                    else:
                        assert h_info["final_obs"][i] is None, where
            elapsed = np.where(done, 0, elapsed)
        np.testing.assert_array_equal(h_info["elapsed_step"], elapsed, err_msg=f"{where} elapsed_step")
        stats.terminated += h_term
        stats.truncated += h_trunc
        stats.steps += 1
        ended = done
        if mode == "disabled" and done.any():
            h_obs, h_info = hive.reset(options={"reset_mask": done.copy()})
            g_obs, g_info = gym_env.reset(options={"reset_mask": done.copy()})
            assert_same(h_obs, g_obs, atol, f"{where} masked reset obs")
            if infos:
                assert_infos_equal(h_info, g_info, f"{where} masked reset")
            elapsed = np.where(done, 0, elapsed)
            np.testing.assert_array_equal(h_info["elapsed_step"], elapsed, err_msg=f"{where} masked reset")
            ended = np.zeros(n, dtype=bool)
    return stats


def assert_infos_equal(h_info: dict[str, Any], g_info: dict[str, Any], where: str) -> None:
    """Every info Gymnasium reports equals envhive's, for the envs Gymnasium's mask selects.

    Gymnasium's SyncVectorEnv gives a batched info the dtype of the first env's value it sees:
    where one env's reset reports an int (toy text's ``prob``: 1) and the others a float, it keeps
    ints. envhive's values are compared after the same cast."""
    for key, value in g_info.items():
        if key.startswith("_") or key in ("final_obs", "final_info"):
            continue
        assert key in h_info, f"{where}: envhive has no info[{key!r}]"
        mask = np.asarray(g_info["_" + key])
        expected = np.asarray(value)
        actual = np.asarray(h_info[key])
        if expected.dtype.kind in "iu" and actual.dtype.kind == "f":
            actual = actual.astype(expected.dtype)
        np.testing.assert_array_equal(actual[mask], expected[mask], err_msg=f"{where}: info[{key!r}]")


def collect(env: envhive.HiveVectorEnv, actions: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """Reset then step through ``actions`` (one batch per row); copies of every output."""
    obs, info = env.reset()
    out = [(obs.copy(), info["elapsed_step"].copy())]
    for a in actions:
        obs, rew, term, trunc, info = env.step(a)
        out.append((obs.copy(), rew.copy(), term.copy(), trunc.copy(), info["elapsed_step"].copy()))
    return out


def assert_trajectories_equal(a: list[tuple[np.ndarray, ...]], b: list[tuple[np.ndarray, ...]]) -> None:
    assert len(a) == len(b)
    for t, (x, y) in enumerate(zip(a, b, strict=True)):
        for u, v in zip(x, y, strict=True):
            np.testing.assert_array_equal(u, v, err_msg=f"row {t}")


def call_with_watchdog(fn: Callable[[], Any], timeout: float = 20.0) -> BaseException | None:
    """Run ``fn`` in a daemon thread; return what it raised (None if nothing). Fails if it hangs
    (the contract suite's watchdog, envhive.testing.contract.no_hang)."""
    return no_hang(fn, timeout)


# Gymnasium's own vector RecordEpisodeStatistics counts SAME_STEP episodes right only where its
# step() reads the autoreset mode (Gymnasium 1.4 does; 1.2, the RLlib venv's, applies NEXT_STEP's
# rule and drops the first step of every later episode, on its own envs too): there the SAME_STEP
# case is expected to fail, and checked to (strict).
_GYM_WRAPPER_SAME_STEP = "_autoreset_mode" in inspect.getsource(gymnasium.wrappers.vector.RecordEpisodeStatistics.step)
GYM_WRAPPER_MODES = [
    "next_step",
    pytest.param(
        "same_step",
        marks=pytest.mark.xfail(
            not _GYM_WRAPPER_SAME_STEP,
            reason=f"Gymnasium {gymnasium.__version__}'s RecordEpisodeStatistics ignores SAME_STEP",
            strict=True,
        ),
    ),
]


def docs_snippet(doc: str, section: str) -> str:
    """The first Python block under ``## {section}`` in ``docs/{doc}`` (tests run the documented code)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / doc).read_text()
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return body.split("```python\n", 1)[1].split("```", 1)[0]


def run_snippet(code: str, budget: tuple[str, str]) -> dict[str, Any]:
    """Run documented code as written but for its training budget (``budget``: the text that sets it
    and its short replacement, which must appear once); returns the names it defined."""
    assert code.count(budget[0]) == 1, f"{budget[0]!r} is not in the snippet once"
    scope: dict[str, Any] = {}
    exec(compile(code.replace(budget[0], budget[1]), "docs snippet", "exec"), scope)
    return scope
