"""Async mode (batch_size < num_envs): send/recv, completion order and routing by env_id."""

from __future__ import annotations

import time

import numpy as np
import pytest

import envhive
from helpers import random_actions

Record = tuple


def _record(obs, rew, term, trunc, info, row: int) -> Record:
    final = None
    if "_final_obs" in info and info["_final_obs"][row]:
        final = info["final_obs"][row].copy()
    return (obs[row].copy(), float(rew[row]), bool(term[row]), bool(trunc[row]), int(info["elapsed_step"][row]), final)


def _sync_records(task_id: str, actions: np.ndarray, **kw) -> list[list[Record]]:
    """Per-env records of a sync run: the reset, then one per step."""
    n, steps = actions.shape[:2]
    env = envhive.make(task_id, num_envs=n, **kw)
    obs, info = env.reset()
    zeros = np.zeros(n)
    per_env = [[_record(obs, zeros, zeros > 0, zeros > 0, info, i)] for i in range(n)]
    for k in range(steps):
        out = env.step(actions[:, k])
        for i in range(n):
            per_env[i].append(_record(*out, i))
    env.close()
    return per_env


def _async_records(task_id: str, actions: np.ndarray, batch_size: int, **kw) -> list[list[Record]]:
    """Drive an async pool with per-env action sequences, keyed by the env_id recv() reports."""
    n, steps = actions.shape[:2]
    env = envhive.make(task_id, num_envs=n, batch_size=batch_size, **kw)
    per_env: list[list[Record]] = [[] for _ in range(n)]
    sent = np.zeros(n, dtype=int)
    env.async_reset()
    while min(len(r) for r in per_env) < steps + 1:
        out = env.recv()
        ids = out[4]["env_id"]
        assert ids.shape == (batch_size,)
        assert len(set(ids.tolist())) == batch_size
        for row, i in enumerate(ids):
            per_env[i].append(_record(*out, row))
        # Envs that already have all their steps keep going with their last action.
        env.send(actions[ids, np.minimum(sent[ids], steps - 1)], ids)
        sent[ids] += 1
    env.close()
    return [r[: steps + 1] for r in per_env]


def _assert_records_equal(a: list[list[Record]], b: list[list[Record]]) -> None:
    for i, (ra, rb) in enumerate(zip(a, b, strict=True)):
        assert len(ra) == len(rb)
        for t, (x, y) in enumerate(zip(ra, rb, strict=True)):
            np.testing.assert_array_equal(x[0], y[0], err_msg=f"env {i} record {t} obs")
            assert x[1:5] == y[1:5], f"env {i} record {t}"
            assert (x[5] is None) == (y[5] is None), f"env {i} record {t} final_obs"
            if x[5] is not None:
                np.testing.assert_array_equal(x[5], y[5], err_msg=f"env {i} record {t} final_obs")


@pytest.mark.parametrize(
    ("task_id", "num_envs", "batch_size", "mode", "task_kw"),
    [
        ("CartPole-v1", 6, 2, "next_step", {}),
        ("CartPole-v1", 6, 3, "same_step", {}),
        ("CartPole-v1", 5, 2, "next_step", {}),
        ("Pendulum-v1", 4, 1, "same_step", {"max_episode_steps": 50}),
        ("Acrobot-v1", 4, 3, "next_step", {"max_episode_steps": 50}),
    ],
)
def test_async_matches_sync_per_env(task_id: str, num_envs: int, batch_size: int, mode: str, task_kw) -> None:
    steps = 120
    rng = np.random.default_rng(4)
    space = envhive.make_spec(task_id).action_space
    actions = np.stack([random_actions(space, steps, rng) for _ in range(num_envs)])  # (env, step, ...)
    kw = {"seed": 21, "autoreset_mode": mode, "num_threads": 2, **task_kw}
    sync = _sync_records(task_id, actions, **kw)
    asyn = _async_records(task_id, actions, batch_size, **kw)
    _assert_records_equal(asyn, sync)
    assert sum(r[2] or r[3] for rec in sync for r in rec) >= num_envs, "episodes should end along the way"


def test_fast_envs_come_back_first() -> None:
    # Env 0 busy-waits 1 s per step; the other three are instant (the margins hold on a loaded machine).
    env = envhive.make(
        "Dummy-v0", num_envs=4, batch_size=2, num_threads=2, delays_us=[1_000_000, 0, 0, 0], episode_length=0
    )
    env.async_reset()
    ids = np.concatenate([env.recv()[4]["env_id"], env.recv()[4]["env_id"]])
    assert sorted(ids.tolist()) == [0, 1, 2, 3]
    env.send(np.array([500, 1, 2, 3]), np.array([0, 1, 2, 3]))
    start = time.perf_counter()
    for _ in range(5):
        _, rew, _, _, info = env.recv()
        ids = info["env_id"]
        assert 0 not in ids, "the slow env came back before the fast ones"
        np.testing.assert_array_equal(rew, ids)
        env.send(ids.copy(), ids)
    # The waiting caller steps only envs known to be quick: had it taken the slow env, these
    # batches of instant envs would have waited for its 1 s step.
    assert time.perf_counter() - start < 0.6
    # Stop feeding the fast envs: the last batches drain what is in flight, env 0 included,
    # with its own action's result.
    returned = []
    for _ in range(2):
        _, rew, _, _, info = env.recv()
        returned.extend(info["env_id"].tolist())
        if 0 in info["env_id"]:
            row = int(np.flatnonzero(info["env_id"] == 0)[0])
            assert rew[row] == 500
            assert info["last_action"][row] == 500
    assert sorted(returned) == [0, 1, 2, 3]
    env.close()


def test_envs_progress_on_all_threads_while_the_caller_is_away() -> None:
    # Four 100 ms steps on two threads take 200 ms; one thread would need 400 ms. The caller is one
    # of the two threads only while it waits in recv: while it is away (here 300 ms of Python)
    # the standby worker takes its place, so every batch is ready when it comes back. (The margins
    # are wide enough for a loaded machine.)
    env = envhive.make("Dummy-v0", num_envs=4, batch_size=2, num_threads=2, delays_us=[100_000] * 4, episode_length=0)
    env.async_reset()
    ids = np.concatenate([env.recv()[4]["env_id"] for _ in range(2)])
    env.send(ids + 10, ids)
    time.sleep(0.3)
    start = time.perf_counter()
    got = []
    for _ in range(2):
        _, rew, _, _, info = env.recv()
        np.testing.assert_array_equal(rew, info["env_id"] + 10)
        got.extend(info["env_id"].tolist())
    assert time.perf_counter() - start < 0.06, "envs stepped on one thread while the caller was away"
    assert sorted(got) == [0, 1, 2, 3]
    env.close()


def test_every_env_returned_once_per_round_with_its_own_action() -> None:
    n, b = 8, 4
    env = envhive.make(
        "Dummy-v0",
        num_envs=n,
        batch_size=b,
        num_threads=2,
        delays_us=[0, 50, 0, 300, 0, 0, 100, 0],
        episode_length=0,
    )
    env.async_reset()
    first = np.concatenate([env.recv()[4]["env_id"] for _ in range(n // b)])
    assert sorted(first.tolist()) == list(range(n))
    for rnd in range(25):
        actions = (np.arange(n) * 100 + rnd) % 1000
        order = np.random.default_rng(rnd).permutation(n)
        env.send(actions[order], order)
        seen = []
        for _ in range(n // b):
            obs, rew, term, trunc, info = env.recv()
            ids = info["env_id"]
            seen.extend(ids.tolist())
            np.testing.assert_array_equal(rew, actions[ids])
            np.testing.assert_array_equal(info["last_action"], actions[ids])
            np.testing.assert_array_equal(obs[:, 2], actions[ids])
            np.testing.assert_array_equal(obs[:, 1], rnd + 1)
            np.testing.assert_array_equal(info["elapsed_step"], rnd + 1)
            assert not term.any() and not trunc.any()
        assert sorted(seen) == list(range(n)), f"round {rnd}"
    env.close()


def test_interleaved_send_recv_routes_actions() -> None:
    n = 6
    env = envhive.make("Dummy-v0", num_envs=n, batch_size=2, num_threads=2, delays_us=[0, 20, 0, 80, 5, 0])
    env.async_reset()
    last_sent = np.full(n, -1)
    count = np.zeros(n, dtype=int)
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs, rew, term, trunc, info = env.recv()
        ids = info["env_id"]
        for row, i in enumerate(ids):
            if last_sent[i] >= 0 and info["elapsed_step"][row] > 0:
                assert rew[row] == last_sent[i]
                assert obs[row, 2] == last_sent[i]
        count[ids] += 1
        acts = rng.integers(0, 1000, size=len(ids))
        env.send(acts, ids)
        last_sent[ids] = acts
    assert count.min() > 0
    env.close()


def test_async_step_is_send_then_recv() -> None:
    env = envhive.make("Dummy-v0", num_envs=4, batch_size=2, episode_length=0)
    obs, info = env.reset()
    assert obs.shape == (2, 3)
    ids = info["env_id"]
    obs, rew, _, _, info = env.step(np.array([7, 8]), ids)
    assert obs.shape == (2, 3) and rew.shape == (2,)
    # The two envs that were reset but never received come back before any stepped env.
    assert set(info["env_id"].tolist()).isdisjoint(ids.tolist())
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    others = info["env_id"].copy()
    # Each env's result carries its own action. Which two envs finish first is up to the
    # threads (claims follow the order sent only roughly), so collect both rounds.
    rewards = {}
    _, rew, _, _, info = env.step(np.array([1, 2]), others)
    rewards.update(zip(info["env_id"].tolist(), rew.tolist(), strict=True))
    _, rew, _, _, info = env.recv()
    rewards.update(zip(info["env_id"].tolist(), rew.tolist(), strict=True))
    assert rewards == {int(ids[0]): 7, int(ids[1]): 8, int(others[0]): 1, int(others[1]): 2}
    env.close()


def test_async_reset_drains_and_resets_everything() -> None:
    n, b = 6, 2
    env = envhive.make("Dummy-v0", num_envs=n, batch_size=b, num_threads=2, delays_us=[0, 2000])
    env.async_reset()
    ids = env.recv()[4]["env_id"]
    env.send(np.array([1, 2]), ids)
    obs, info = env.reset()  # 6 envs in flight: drained, then all reset
    assert obs.shape == (b, 3)
    got = list(info["env_id"])
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    np.testing.assert_array_equal(obs[:, 1:], [[0, -1]] * b)
    for _ in range(n // b - 1):
        _, rew, term, trunc, info = env.recv()
        got.extend(info["env_id"])
        np.testing.assert_array_equal(info["elapsed_step"], 0)
        np.testing.assert_array_equal(rew, 0)
        assert not term.any() and not trunc.any()
    assert sorted(got) == list(range(n))
    with pytest.raises(ValueError, match="in flight"):
        env.recv()
    env.close()


def test_async_spaces_are_batched_by_batch_size() -> None:
    env = envhive.make("CartPole-v1", num_envs=8, batch_size=3)
    assert env.num_envs == 8 and env.batch_size == 3
    assert env.observation_space.shape == (3, 4)
    assert env.action_space.shape == (3,)
    assert env.single_observation_space.shape == (4,)
    assert envhive.make_spec("CartPole-v1", num_envs=8, batch_size=3).pool.is_async
    assert not envhive.make_spec("CartPole-v1", num_envs=8).pool.is_async
    env.close()


@pytest.mark.parametrize("num_threads", [1, 2])
def test_async_envs_progress_while_the_caller_is_away(num_threads: int) -> None:
    """Async envs progress on the workers while nobody waits in recv, with one thread or two."""
    env = envhive.make("Dummy-v0", num_envs=4, batch_size=2, num_threads=num_threads, episode_length=0)
    env.async_reset()
    deadline = time.monotonic() + 10
    got = 0
    while got < 4 and time.monotonic() < deadline:  # nobody waits in recv: only workers step
        try:
            got += len(env.recv(timeout=0)[4]["env_id"])
        except TimeoutError:
            time.sleep(0.001)
    assert got == 4
    env.close()


def test_polling_with_zero_timeout() -> None:
    # recv(timeout=0) either returns a ready batch or raises TimeoutError without losing anything.
    n, b = 32, 8
    env = envhive.make("Dummy-v0", num_envs=n, batch_size=b, num_threads=2, episode_length=0)
    env.async_reset()
    received = np.zeros(n, dtype=int)
    last_sent = np.full(n, -1)
    batches = 0
    while batches < 60:
        try:
            _, rew, _, _, info = env.recv(timeout=0)
        except TimeoutError:
            continue
        batches += 1
        ids = info["env_id"]
        assert len(set(ids.tolist())) == b
        stepped = last_sent[ids] >= 0
        np.testing.assert_array_equal(rew[stepped], last_sent[ids][stepped])
        received[ids] += 1
        actions = (ids * 31 + batches) % 1000
        env.send(actions, ids)
        last_sent[ids] = actions
    assert received.sum() == 60 * b
    env.close()


@pytest.mark.parametrize(("num_envs", "batch_size", "threads"), [(64, 16, 2), (64, 5, 2), (7, 3, 1), (10, 9, 3)])
def test_routing_at_other_sizes(num_envs: int, batch_size: int, threads: int) -> None:
    env = envhive.make("Dummy-v0", num_envs=num_envs, batch_size=batch_size, num_threads=threads, episode_length=0)
    env.async_reset()
    last_sent = np.full(num_envs, -1)
    steps = np.zeros(num_envs, dtype=int)
    rng = np.random.default_rng(num_envs)
    for _ in range(100):
        obs, rew, _, _, info = env.recv()
        ids = info["env_id"]
        assert len(set(ids.tolist())) == batch_size
        np.testing.assert_array_equal(info["elapsed_step"], steps[ids])
        np.testing.assert_array_equal(obs[:, 1], steps[ids])
        stepped = steps[ids] > 0
        np.testing.assert_array_equal(rew[stepped], last_sent[ids][stepped])
        actions = rng.integers(0, 1000, size=batch_size)
        env.send(actions, ids)
        last_sent[ids] = actions
        steps[ids] += 1
    env.close()
