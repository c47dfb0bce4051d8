"""envhive.ray.RayVectorEnv on one local Ray (2 CPUs): lockstep equality with a local pool however
the envs are split, async first-ready across shards, dead and hung shards, restarts, close, and
the rules of whole shards. The rules of a call given each env's state, bad arguments and env errors
are the contract's, as for every backend (envhive.testing.PoolContract, test_contract.py). Runs in
.venv-rllib (the venv with Ray)."""

from __future__ import annotations

import time

import gymnasium
import numpy as np
import pytest
import ray

import envhive
from envhive.ray import EnvShard, RayVectorEnv, ShardLayout, incarnation_seeds
from envhive.ray.shard import release_actors

pytestmark = [pytest.mark.rllib, pytest.mark.usefixtures("local_ray")]


def assert_same_step(a, b) -> None:
    for x, y in zip(a[:4], b[:4], strict=True):
        np.testing.assert_array_equal(x, y)
    for key in ("env_id", "elapsed_step"):
        np.testing.assert_array_equal(a[4][key], b[4][key])


def test_layout_splits_contiguously() -> None:
    layout = ShardLayout.split(7, 3)
    assert layout.sizes == (3, 2, 2) and layout.offsets == (0, 3, 5)
    assert list(layout.ids(1)) == [3, 4]
    with pytest.raises(ValueError, match="num_envs"):
        ShardLayout.split(2, 3)
    with pytest.raises(ValueError, match="num_shards"):
        ShardLayout.split(4, 0)


@pytest.mark.parametrize(
    ("task", "steps", "splits"), [("CartPole-v1", 150, (1, 2, 3)), ("Hopper-v5", 60, (1, 3))], ids=["classic", "mujoco"]
)
def test_lockstep_with_a_local_pool_however_split(task, steps, splits) -> None:
    num_envs = 6
    local = envhive.make(task, num_envs=num_envs, seed=11)
    remotes = [RayVectorEnv(task, num_envs, shards, seed=11, num_cpus_per_shard=0) for shards in splits]
    try:
        assert all(r.single_observation_space == local.single_observation_space for r in remotes)
        assert all(r.observation_space == local.observation_space for r in remotes)
        obs, info = local.reset()
        for remote in remotes:
            r_obs, r_info = remote.reset()
            np.testing.assert_array_equal(r_obs, obs)
            np.testing.assert_array_equal(r_info["env_id"], np.arange(num_envs))
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(steps):
            actions = np.stack([local.single_action_space.sample() for _ in range(num_envs)])
            if task.startswith("CartPole"):
                actions = rng.integers(0, 2, num_envs)
            expected = local.step(actions)
            ended += int(np.sum(expected[2] | expected[3]))
            for remote in remotes:
                assert_same_step(remote.step(actions), expected)
        assert ended > 0  # autoresets happened inside the compared stretch
    finally:
        local.close()
        for remote in remotes:
            remote.close()


def test_same_step_final_obs_and_partial_reset_match() -> None:
    local = envhive.make("CartPole-v1", num_envs=5, seed=3, autoreset_mode="same_step")
    remote = RayVectorEnv("CartPole-v1", 5, 2, seed=3, autoreset_mode="same_step", num_cpus_per_shard=0)
    try:
        assert remote.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
        np.testing.assert_array_equal(remote.reset()[0], local.reset()[0])
        finals = 0
        for t in range(80):
            actions = np.full(5, t % 2)
            a, b = remote.step(actions), local.step(actions)
            assert_same_step(a, b)
            if "final_obs" in b[4]:
                finals += 1
                np.testing.assert_array_equal(a[4]["_final_obs"], b[4]["_final_obs"])
                for x, y in zip(a[4]["final_obs"], b[4]["final_obs"], strict=True):
                    assert (x is None and y is None) or np.array_equal(x, y)
                np.testing.assert_array_equal(a[4]["final_info"]["elapsed_step"], b[4]["final_info"]["elapsed_step"])
            else:
                assert not a[4].get("_final_obs", np.zeros(5, bool)).any()
        assert finals > 0
        mask = np.array([False, False, False, True, False])  # only in shard 1: shard 0 reports its current obs
        seeds = [None, None, None, 99, None]
        ra, la = (
            remote.reset(seed=seeds, options={"reset_mask": mask}),
            local.reset(seed=seeds, options={"reset_mask": mask}),
        )
        np.testing.assert_array_equal(ra[0], la[0])
        np.testing.assert_array_equal(ra[1]["elapsed_step"], la[1]["elapsed_step"])
        assert_same_step(remote.step(np.ones(5, np.int64)), local.step(np.ones(5, np.int64)))
        with pytest.raises(ValueError, match="shape"):
            remote.reset(options={"reset_mask": np.ones(4, bool)})
    finally:
        remote.close()
        local.close()


def per_env_action(env: int, count: int) -> int:
    return (env * 7 + count * 3) % 5 % 2


def test_async_first_ready_trajectories_match_per_env() -> None:
    num_envs, steps = 6, 60
    local = envhive.make("CartPole-v1", num_envs=num_envs, seed=5)
    expected = {g: [] for g in range(num_envs)}
    obs, _ = local.reset()
    for g in range(num_envs):
        expected[g].append(obs[g])
    for c in range(steps):
        obs, *_ = local.step(np.array([per_env_action(g, c) for g in range(num_envs)]))
        for g in range(num_envs):
            expected[g].append(obs[g])
    local.close()

    remote = RayVectorEnv("CartPole-v1", num_envs, 3, batch_size=4, seed=5, num_cpus_per_shard=0)
    try:
        assert remote.observation_space.shape == (4, 4) and remote.action_space.shape == (4,)
        got = {g: [] for g in range(num_envs)}
        counts = np.zeros(num_envs, int)
        obs, info = remote.reset()
        for _ in range(60):  # 60 batches of 2 shards: 40 steps per env if served in turn
            ids = info["env_id"]
            assert len(ids) == 4 and len(set(ids.tolist())) == 4
            for row, g in enumerate(ids):
                got[g].append(obs[row])
            actions = np.array([per_env_action(g, counts[g]) for g in ids])
            counts[ids] += 1
            obs, _, _, _, info = remote.step(actions, ids)
        assert counts.min() >= 5, counts  # no shard starves while the others are served (oldest call first)
        for g in range(num_envs):
            n = len(got[g])
            np.testing.assert_array_equal(np.stack(got[g]), np.stack(expected[g][:n]))
        with pytest.raises(ValueError, match="all of a shard's envs"):
            remote.send(np.zeros(1, np.int64), [int(info["env_id"][0])])
    finally:
        remote.close()


class SlowShard(EnvShard):
    """Shard 0 takes 30 s per step (the others answer at once)."""

    def step(self, actions):
        if self.env_offset == 0:
            time.sleep(30)
        return super().step(actions)


def test_async_does_not_wait_for_a_slow_shard() -> None:
    env = RayVectorEnv("CartPole-v1", 6, 3, batch_size=4, num_cpus_per_shard=0, shard_class=SlowShard)
    try:
        obs, info = env.reset()  # resets are quick everywhere
        batches = [set(info["env_id"].tolist())]
        for _ in range(6):
            ids = info["env_id"]
            obs, _, _, _, info = env.step(np.ones(len(ids), np.int64), ids)
            batches.append(set(info["env_id"].tolist()))
        with_shard_0 = [b for b in batches if b & {0, 1}]
        assert len(with_shard_0) <= 1, batches  # only its reset: its first step is still running
        assert all(len(b) == 4 for b in batches)
        with pytest.raises(ValueError, match="env 0 is not awaiting an action"):
            env.send(np.ones(2, np.int64), [0, 1])  # shard 0 still has a call (or an unread reset)
    finally:
        start = time.monotonic()
        env.close()  # does not wait out the 30 s step
        assert time.monotonic() - start < 25


def test_killed_shard_is_an_env_error_until_reset() -> None:
    env = RayVectorEnv("CartPole-v1", 5, 2, seed=1, num_cpus_per_shard=0)
    try:
        env.reset()
        env.step(np.ones(5, np.int64))
        assert not release_actors([env.shards[1].actor], timeout=60)
        with pytest.raises(envhive.EnvError) as caught:
            env.step(np.ones(5, np.int64))
        assert caught.value.env_ids == [3, 4]
        with pytest.raises(envhive.EnvError, match="reset"):
            env.step(np.ones(5, np.int64))
        obs, info = env.reset()
        assert env.shard_info()[1]["incarnation"] == 1
        fresh = envhive.make("CartPole-v1", num_envs=2, seed=incarnation_seeds([4, 5], 1))
        np.testing.assert_array_equal(obs[3:], fresh.reset()[0])
        fresh.close()
        assert env.step(np.ones(5, np.int64))[0].shape == (5, 4)
    finally:
        env.close()


def test_restarted_shard_reports_truncation_then_fresh_episodes() -> None:
    local = envhive.make("CartPole-v1", num_envs=4, seed=7)
    env = RayVectorEnv("CartPole-v1", 4, 2, seed=7, num_cpus_per_shard=0, max_restarts=1)
    try:
        local.reset()
        env.reset()
        for _ in range(3):
            last = env.step(np.ones(4, np.int64))
            local.step(np.ones(4, np.int64))
        assert not release_actors([env.shards[0].actor], timeout=60)
        obs, reward, terminated, truncated, info = env.step(np.ones(4, np.int64))
        expected = local.step(np.ones(4, np.int64))
        np.testing.assert_array_equal(truncated, [True, True, False, False])
        np.testing.assert_array_equal(obs[:2], last[0][:2])  # the cut episodes' last observation
        np.testing.assert_array_equal(reward[:2], 0)
        assert not terminated[:2].any()
        np.testing.assert_array_equal(obs[2:], expected[0][2:])  # the other shard is untouched
        obs, reward, terminated, truncated, _ = env.step(np.ones(4, np.int64))  # the autoreset step
        fresh = envhive.make("CartPole-v1", num_envs=2, seed=incarnation_seeds([7, 8], 1))
        np.testing.assert_array_equal(obs[:2], fresh.reset()[0])
        fresh.close()
        assert not (truncated[:2] | terminated[:2]).any() and not reward[:2].any()
        assert env.restarts == 1
        assert not release_actors([env.shards[1].actor], timeout=60)  # restarts are used up
        with pytest.raises(envhive.EnvError) as caught:
            env.step(np.ones(4, np.int64))
        assert caught.value.env_ids == [2, 3]
    finally:
        env.close()
        local.close()


def test_hung_shard_times_out_and_close_releases_every_actor() -> None:
    # 3 envs in shards of 2 and 1: local env 1 (global 1, shard 0 only) busy-waits 60 s per step.
    env = RayVectorEnv("Dummy-v0", 3, 2, seed=0, num_cpus_per_shard=0, delays_us=[0.0, 6e7], step_timeout=2.0)
    handles = [s.actor for s in env.shards]
    try:
        env.reset()
        start = time.monotonic()
        with pytest.raises(envhive.EnvError, match="no answer") as caught:
            env.step(np.ones(3, np.int64))
        assert time.monotonic() - start < 50  # not the 60 s step
        assert caught.value.env_ids == [0, 1]
        obs, _ = env.reset()  # a new shard 0
        assert obs.shape == (3, 3)
        handles.append(env.shards[0].actor)
    finally:
        env.close()
    assert env.closed
    with pytest.raises(envhive.PoolClosedError):
        env.step(np.ones(3, np.int64))
    for handle in handles:
        with pytest.raises(ray.exceptions.RayActorError):
            ray.get(handle.ready.remote(), timeout=60)


def test_bad_arguments_are_refused_clearly_and_wrappers_run() -> None:
    with pytest.raises(ValueError, match="whole shards"):
        RayVectorEnv("CartPole-v1", 5, 2, batch_size=2)
    with pytest.raises(ValueError, match="num_threads"):
        RayVectorEnv("CartPole-v1", 4, 2, num_threads=2)
    with pytest.raises(TypeError, match="unknown kwarg"):
        RayVectorEnv("CartPole-v1", 4, 2, not_a_kwarg=1)
    with pytest.raises(ValueError, match="step_timeout"):
        RayVectorEnv("CartPole-v1", 4, 2, step_timeout=-1)
    env = RayVectorEnv("CartPole-v1", 4, 2, num_cpus_per_shard=0)
    try:
        stats = gymnasium.wrappers.vector.RecordEpisodeStatistics(env)
        stats.reset(seed=0)
        episodes = 0
        for _ in range(100):
            *_, info = stats.step(np.ones(4, np.int64))
            if "episode" in info:
                episodes += int(info["_episode"].sum())
        assert episodes > 0
    finally:
        env.close()


def test_render_gathers_every_shards_frames() -> None:
    local = envhive.make("CartPole-v1", num_envs=3, seed=2, render_mode="rgb_array")
    env = RayVectorEnv("CartPole-v1", 3, 2, seed=2, num_cpus_per_shard=0, render_mode="rgb_array")
    try:
        assert env.metadata["render_modes"] == ["rgb_array"]
        local.reset()
        env.reset()
        for a, b in zip(env.render(), local.render(), strict=True):
            np.testing.assert_array_equal(a, b)
    finally:
        env.close()
        local.close()


def test_pool_threads_follow_the_shard_cpus() -> None:
    env = RayVectorEnv("CartPole-v1", 4, 2, num_cpus_per_shard=1)
    try:
        info = env.shard_info()
        assert [i["num_threads"] for i in info] == [1, 1]
        assert [list(i["env_ids"]) for i in info] == [[0, 1], [2, 3]]
    finally:
        env.close()
    env = RayVectorEnv("CartPole-v1", 4, 1, num_cpus_per_shard=2)
    try:
        assert env.shard_info()[0]["num_threads"] == 2
    finally:
        env.close()


def test_async_reset_mask_restarts_whole_idle_shards() -> None:
    env = RayVectorEnv("CartPole-v1", 6, 3, batch_size=4, seed=5, num_cpus_per_shard=0)
    fresh = envhive.make("CartPole-v1", num_envs=6, seed=100)
    expected, _ = fresh.reset()
    fresh.close()
    try:
        _, info = env.reset()
        got = sorted(info["env_id"].tolist())
        assert len(got) == 4
        idle = got[:2]  # one shard's envs (shards hold 2 envs each)
        waiting = sorted(set(range(6)) - set(got))  # the third shard: its reset is still to be received
        mask = np.zeros(6, bool)
        mask[idle[0]] = True
        with pytest.raises(ValueError, match="whole shards"):
            env.async_reset(reset_mask=mask)
        mask[:] = False
        mask[waiting] = True
        with pytest.raises(ValueError, match=f"cannot reset env {waiting[0]}: it is in flight"):
            env.async_reset(reset_mask=mask)
        # reset(reset_mask) on one idle shard: its reset rows and the waiting shard's make the batch
        mask[:] = False
        mask[idle] = True
        obs, info = env.reset(seed=100, options={"reset_mask": mask})
        assert sorted(info["env_id"].tolist()) == sorted(idle + waiting)
        for row, g in enumerate(info["env_id"].tolist()):
            if g in idle:
                np.testing.assert_array_equal(obs[row], expected[g])
        np.testing.assert_array_equal(info["elapsed_step"], 0)
        # step those 4; while their steps are in flight, reset(reset_mask) would drop rewards
        env.send(np.ones(4, np.int64), info["env_id"])
        rest = sorted(set(range(6)) - set(info["env_id"].tolist()))
        mask[:] = False
        mask[rest] = True
        with pytest.raises(ValueError, match=r"the 4 step\(s\) in flight would lose their rewards"):
            env.reset(options={"reset_mask": mask})
        env.async_reset(seed=100, reset_mask=mask)  # async_reset leaves the steps in flight alone
        seen: dict[int, tuple] = {}  # each env's first row after the async_reset
        for _ in range(3):
            obs, reward, _, _, info = env.recv()
            for row, g in enumerate(info["env_id"].tolist()):
                seen.setdefault(g, (obs[row], reward[row], info["elapsed_step"][row]))
            if len(seen) == 6:
                break
            env.send(np.ones(4, np.int64), info["env_id"])
        assert set(seen) == set(range(6))
        for g in rest:
            np.testing.assert_array_equal(seen[g][0], expected[g])
            assert seen[g][1] == 0 and seen[g][2] == 0
        assert all(seen[g][1] == 1 and seen[g][2] == 1 for g in set(range(6)) - set(rest))
        with pytest.raises(ValueError, match="sync RayVectorEnv"):
            RayVectorEnv("CartPole-v1", 2, 1, num_cpus_per_shard=0).async_reset(reset_mask=np.ones(2, bool))
    finally:
        env.close()
