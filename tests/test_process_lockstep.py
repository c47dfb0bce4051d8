"""The process backend reproduces Gymnasium's SyncVectorEnv exactly: same seeds and actions give
the same observations, rewards, flags and infos (final_obs / final_info included), in every
autoreset mode and, env by env, in async mode."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import envhive
from helpers import MODES  # NEXT_STEP in every run, the other modes in `make test-deep`
from process_envs import DICT_WALK
from process_helpers import GYM_MODES, assert_records_equal, async_records, lockstep_sync, sync_records

# (id, num_envs, steps, make kwargs): long enough that several episodes end in every mode.
TASKS = {
    "CartPole-v1": (4, 250, {}),
    "LunarLander-v3": (3, 160, {"max_episode_steps": 60}),
    "process_envs:" + DICT_WALK: (4, 120, {}),
    "MiniGrid-Empty-5x5-v0": (3, 150, {"max_episode_steps": 20}),
}


def _imports(task: str) -> None:
    if task.startswith("LunarLander"):
        pytest.importorskip("Box2D", reason="LunarLander needs the box2d extra: pip install 'envhive[box2d]'")
    if task.startswith("MiniGrid"):
        import minigrid  # noqa: F401 - registers the MiniGrid ids


def _reference(task: str, n: int, mode: str, kw: dict[str, Any]) -> gymnasium.vector.VectorEnv:
    if task.startswith("MiniGrid") and "max_episode_steps" in kw:  # minigrid's own limit (envhive's meaning)
        kw = {"max_steps": kw["max_episode_steps"], **{k: v for k, v in kw.items() if k != "max_episode_steps"}}
    return gymnasium.make_vec(
        task, num_envs=n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": GYM_MODES[mode]}, **kw
    )


def test_minigrid_time_limit_means_max_steps_on_both_backends() -> None:
    """max_episode_steps is minigrid's max_steps natively and in worker processes alike (no TimeLimit
    around an env keeping its own 100 steps): the success reward, 1 - 0.9 * steps / max_steps, and
    the truncations are the same on both backends."""
    _imports("MiniGrid")
    task, n, steps = "MiniGrid-Empty-5x5-v0", 3, 150
    pools = [
        envhive.make(task, num_envs=n, seed=11, max_episode_steps=20),
        envhive.make(task, backend="process", num_envs=n, num_workers=2, seed=11, max_episode_steps=20),
    ]
    try:
        rng = np.random.default_rng(3)  # turn left, turn right, forward: the goal is reached now and then
        actions = [rng.choice(3, size=n, p=[0.2, 0.2, 0.6]) for _ in range(steps)]
        runs = []
        for pool in pools:
            pool.reset(seed=11)
            runs.append([pool.step(a)[1:4] for a in actions])
        native, process = (np.array([np.concatenate(step) for step in run]) for run in runs)
        np.testing.assert_array_equal(process, native)
        rewards, truncated = native[:, :n], native[:, 2 * n :]
        assert (rewards > 0).any() and truncated.any(), "episodes should succeed and time out along the way"
    finally:
        for pool in pools:
            pool.close()


def _actions(space: gymnasium.Space[Any], n: int, steps: int, seed: int) -> list[Any]:
    """One batch of actions per step, drawn up front (Box actions overshoot the bounds)."""
    rng = np.random.default_rng(seed)
    if isinstance(space, gymnasium.spaces.Discrete):
        return [rng.integers(space.start, space.start + space.n, size=n) for _ in range(steps)]
    assert isinstance(space, gymnasium.spaces.Box)
    return [
        rng.uniform(space.low * 1.5, space.high * 1.5, size=(n, *space.shape)).astype(space.dtype) for _ in range(steps)
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("task", list(TASKS))
def test_sync_lockstep_with_gymnasium(task: str, mode: str) -> None:
    _imports(task)
    n, steps, kw = TASKS[task]
    ours = envhive.make(task, backend="process", num_envs=n, num_workers=2, autoreset_mode=mode, **kw)
    ref = _reference(task, n, mode, kw)
    try:
        assert ours.single_observation_space == ref.single_observation_space
        assert ours.single_action_space == ref.single_action_space
        assert ours.metadata["autoreset_mode"] == GYM_MODES[mode]
        actions = _actions(ours.single_action_space, n, steps, seed=3)
        ended = lockstep_sync(ours, ref, mode, seed=11, steps=steps, actions=lambda t: actions[t])
        assert ended >= n, "episodes should end along the way"
        # Every mode but DISABLED steps through the C++ path (test_process_wire.py compares the two)
        assert (ours.backend.pool._wire is not None) == (mode != "disabled")
    finally:
        ours.close()
        ref.close()


@pytest.mark.parametrize("mode", ["next_step", pytest.param("same_step", marks=pytest.mark.deep)])
@pytest.mark.parametrize("task", list(TASKS))
def test_async_matches_gymnasium_env_by_env(task: str, mode: str) -> None:
    _imports(task)
    n, steps, kw = TASKS[task]
    n += 2  # more envs than one batch, over three workers
    steps = steps // 2
    ref = _reference(task, n, mode, kw)
    space = ref.single_action_space
    batches = _actions(space, n, steps, seed=5)
    per_env = np.stack(batches, axis=1)  # (env, step, ...)
    expected = sync_records(ref, seed=7, steps=steps, actions=lambda t: batches[t])
    ref.close()
    ours = envhive.make(task, backend="process", num_envs=n, batch_size=2, num_workers=3, autoreset_mode=mode, **kw)
    try:
        assert ours.observation_space == gymnasium.vector.utils.batch_space(ours.single_observation_space, 2)
        got = async_records(ours, seed=7, steps=steps, action_of=lambda i, t: per_env[i, t])
    finally:
        ours.close()
    for i in range(n):
        assert_records_equal(got[i], expected[i], f"env {i}")


@pytest.mark.deep  # two more start methods: a worker pool each (~6 s on 2 cores)
def test_lockstep_with_spawned_and_forkserver_workers() -> None:
    """The start method changes nothing about the results."""
    task = "process_envs:" + DICT_WALK
    ref = _reference(task, 3, "same_step", {})
    actions = _actions(ref.single_action_space, 3, 40, seed=1)
    expected = sync_records(ref, seed=2, steps=40, actions=lambda t: actions[t])
    ref.close()
    for method in ("spawn", "forkserver"):
        ours = envhive.make(task, num_envs=3, num_workers=2, autoreset_mode="same_step", start_method=method)
        try:
            assert ours.start_method == method
            got = sync_records(ours, seed=2, steps=40, actions=lambda t: actions[t])
        finally:
            ours.close()
        for i in range(3):
            assert_records_equal(got[i], expected[i], f"{method} env {i}")
