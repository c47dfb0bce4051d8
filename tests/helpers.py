"""Shared helpers: Gymnasium reference envs, action generators and lock-step comparison."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import envhive
from envhive.testing import LockstepStats, assert_matches_reference, random_actions
from envhive.testing.contract import no_hang

__all__ = ["LockstepStats", "random_actions"]  # re-exported for the tests that import them from here

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
# The autoreset modes as a lock-step test's parameters: NEXT_STEP (Gymnasium's default) in every run,
# the other two in the families' deep matrix (`make test-deep`).
MODES = [
    "next_step",
    pytest.param("same_step", marks=pytest.mark.deep),
    pytest.param("disabled", marks=pytest.mark.deep),
]
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


def gym_vec(task_id: str, num_envs: int, mode: str = "next_step", **kwargs: Any) -> gymnasium.vector.VectorEnv:
    """Gymnasium's own SyncVectorEnv of ``task_id`` (the reference envhive must reproduce)."""
    return gymnasium.make_vec(
        task_id,
        num_envs=num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": GYM_MODES[mode]},
        **kwargs,
    )


def assert_same(actual: Any, expected: Any, atol: float = 0.0, what: str = "") -> None:
    """Bit-exact equality when ``atol`` is 0, else absolute tolerance ``atol``."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if atol == 0.0:
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        np.testing.assert_allclose(actual, expected, rtol=0, atol=atol, err_msg=what)


def lockstep(
    hive: envhive.HiveVectorEnv,
    gym_env: gymnasium.vector.VectorEnv,
    mode: str,
    seed: int,
    n_steps: int,
    policy: Callable[[np.ndarray, np.random.Generator], np.ndarray] | None = None,
    action_seed: int = 0,
    infos: bool = False,
) -> LockstepStats:
    """envhive.testing.assert_matches_reference of ``hive`` (made with ``seed``, in autoreset
    ``mode``) against Gymnasium's ``gym_env``: every output bit for bit."""
    assert hive.autoreset_mode == GYM_MODES[mode], (hive.autoreset_mode, mode)
    return assert_matches_reference(
        hive, gym_env, seed=seed, steps=n_steps, policy=policy, action_seed=action_seed, infos=infos
    )


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
