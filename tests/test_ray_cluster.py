"""RayVectorEnv and rollout workers across simulated nodes (ray.cluster_utils.Cluster: a head with
no CPUs and worker nodes of 1 CPU each): shards and workers placed on different nodes stay in
lockstep with a local pool, and a removed node is the fault case (EnvError with the lost env ids,
or a restart elsewhere). Runs in .venv-rllib (the venv with Ray)."""

from __future__ import annotations

import numpy as np
import pytest
import ray
from ray.cluster_utils import Cluster

import envhive
from envhive.ray import RayVectorEnv, RolloutWorkers, incarnation_seeds

pytestmark = pytest.mark.rllib
# Quick node-death detection (Ray's defaults take ~30 s to declare a node dead).
FAST_HEALTH = {"health_check_initial_delay_ms": 0, "health_check_period_ms": 500, "health_check_failure_threshold": 3}


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "include_dashboard": False, "_system_config": FAST_HEALTH},
    )
    for _ in range(3):
        c.add_node(num_cpus=1)
    ray.init(address=c.address, log_to_driver=False)
    c.wait_for_nodes()
    yield c
    ray.shutdown()
    c.shutdown()


def node_of(cluster, node_id):
    (node,) = [n for n in cluster.list_all_nodes() if n.node_id == node_id]
    return node


def test_shards_on_separate_nodes_in_lockstep_then_a_node_dies(cluster) -> None:
    local = envhive.make("CartPole-v1", num_envs=6, seed=21)
    env = RayVectorEnv("CartPole-v1", 6, 2, seed=21, num_cpus_per_shard=1, step_timeout=60)
    try:
        placed = env.shard_info()
        assert len({p["node_id"] for p in placed}) == 2  # one CPU per node: the shards are on two nodes
        np.testing.assert_array_equal(env.reset()[0], local.reset()[0])
        rng = np.random.default_rng(1)
        for _ in range(40):
            actions = rng.integers(0, 2, 6)
            a, b = env.step(actions), local.step(actions)
            for x, y in zip(a[:4], b[:4], strict=True):
                np.testing.assert_array_equal(x, y)

        cluster.remove_node(node_of(cluster, placed[1]["node_id"]))
        with pytest.raises(envhive.EnvError) as caught:
            env.step(np.ones(6, np.int64))
        assert caught.value.env_ids == [3, 4, 5]
        obs, _ = env.reset()  # shard 1 starts again on the spare node
        moved = env.shard_info()
        assert moved[1]["node_id"] not in {placed[0]["node_id"], placed[1]["node_id"]}
        assert moved[0]["node_id"] == placed[0]["node_id"] and moved[1]["incarnation"] == 1
        fresh = envhive.make("CartPole-v1", num_envs=3, seed=incarnation_seeds([24, 25, 26], 1))
        np.testing.assert_array_equal(obs[3:], fresh.reset()[0])
        fresh.close()
        assert env.step(np.ones(6, np.int64))[0].shape == (6, 4)
    finally:
        env.close()
        local.close()
    cluster.add_node(num_cpus=1)  # back to three worker nodes for the next test
    cluster.wait_for_nodes()


def test_restart_moves_a_shard_off_a_dead_node(cluster) -> None:
    env = RayVectorEnv("CartPole-v1", 4, 2, seed=3, num_cpus_per_shard=1, max_restarts=2, step_timeout=60)
    try:
        env.reset()
        before = env.step(np.zeros(4, np.int64))
        placed = env.shard_info()
        cluster.remove_node(node_of(cluster, placed[0]["node_id"]))
        obs, reward, terminated, truncated, _ = env.step(np.zeros(4, np.int64))
        np.testing.assert_array_equal(truncated[:2], [True, True])
        np.testing.assert_array_equal(obs[:2], before[0][:2])
        assert not reward[:2].any() and not terminated[:2].any()
        obs, *_ = env.step(np.zeros(4, np.int64))  # the new episodes' first observation
        fresh = envhive.make("CartPole-v1", num_envs=2, seed=incarnation_seeds([3, 4], 1))
        np.testing.assert_array_equal(obs[:2], fresh.reset()[0])
        fresh.close()
        after = env.shard_info()
        assert after[0]["node_id"] != placed[0]["node_id"] and after[0]["incarnation"] == 1
        assert env.restarts == 1
    finally:
        env.close()


def test_rollout_workers_on_separate_nodes_then_a_node_dies(cluster) -> None:
    """Two 1-CPU workers land on two nodes; their trajectories (two unrolls of 16 x 256 steps per
    call: ~130 KB of observations, so they cross nodes through the object store) equal a local
    pool stepped with the same policy; removing a worker's node restarts it on the spare node
    with its next incarnation's seeds, and the stream goes on."""
    while len(cluster.worker_nodes) < 3:  # the tests above removed nodes
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()

    def policy(weights, obs, rng):  # a local function: pickled by value (the nodes cannot import tests)
        return (obs[:, 2] > 0).astype(np.int64)

    with RolloutWorkers(
        "CartPole-v1",
        2,
        16,
        policy,
        unroll_length=256,
        unrolls_per_call=2,
        seed=5,
        ordered=True,
        num_cpus_per_worker=1,
        max_restarts=1,
        timeout=120,
    ) as workers:
        placed = workers.worker_info()
        assert len({i["node_id"] for i in placed}) == 2
        got = [workers.next() for _ in range(4)]  # worker 0, 1, 0, 1: one call of each
        for k in range(2):
            pool = envhive.make("CartPole-v1", num_envs=16, seed=[5 + 16 * k + i for i in range(16)])
            obs, _ = pool.reset()
            for trajectory in got[k::2]:
                assert trajectory.worker == k
                for t in range(256):
                    actions = policy(None, obs, None)
                    np.testing.assert_array_equal(trajectory.obs[t], obs)
                    np.testing.assert_array_equal(trajectory.actions[t], actions)
                    obs, reward, terminated, truncated, _ = pool.step(actions)
                    np.testing.assert_array_equal(trajectory.rewards[t], reward)
                    np.testing.assert_array_equal(
                        trajectory.terminated[t] | trajectory.truncated[t], terminated | truncated
                    )
                np.testing.assert_array_equal(trajectory.last_obs, obs)
            pool.close()

        cluster.remove_node(node_of(cluster, placed[1]["node_id"]))
        seen = [workers.next() for _ in range(8)]
        reborn = [t for t in seen if t.worker == 1 and t.incarnation == 1]
        assert reborn and workers.restarts == 1, [(t.worker, t.incarnation) for t in seen]
        moved = workers.worker_info()
        assert moved[1]["node_id"] not in {placed[0]["node_id"], placed[1]["node_id"]}
        assert moved[0]["node_id"] == placed[0]["node_id"]
        fresh = envhive.make("CartPole-v1", num_envs=16, seed=incarnation_seeds(list(range(21, 37)), 1))
        np.testing.assert_array_equal(reborn[0].obs[0], fresh.reset()[0])
        fresh.close()
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
