"""envhive.ray rollout workers: trajectories equal a local pool stepped with the same policy, weights
reach the workers, faults are EnvErrors, and PPO trains CartPole from the stream (TorchScript policy
in the workers). Runs in .venv-rllib (the venv with Ray and torch)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import ray

import envhive
from envhive.ray import JaxPolicy, RolloutWorkers
from envhive.ray.shard import incarnation_seeds, release_actors

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from examples.train import ppo_ray  # noqa: E402

pytestmark = [pytest.mark.rllib, pytest.mark.usefixtures("local_ray")]


def lean_policy(weights, obs, rng):
    """Push the cart toward the pole's lean; ``weights`` (if any) replaces the action."""
    actions = (obs[:, 2] > 0).astype(np.int64)
    if weights is not None:
        actions[:] = weights
    return actions, {"lean": obs[:, 2].copy()}


def local_rollouts(seeds, policy, unroll, count):
    pool = envhive.make("CartPole-v1", num_envs=len(seeds), seed=seeds)
    obs, _ = pool.reset()
    ended = np.zeros(len(seeds), bool)
    out = []
    for _ in range(count):
        rows = {k: [] for k in ("obs", "actions", "rewards", "terminated", "truncated", "valid")}
        for _ in range(unroll):
            actions, _ = policy(None, obs, None)
            rows["obs"].append(obs)
            rows["actions"].append(actions)
            rows["valid"].append(~ended)
            obs, reward, term, trunc, _ = pool.step(actions)
            rows["rewards"].append(reward)
            rows["terminated"].append(term)
            rows["truncated"].append(trunc)
            ended = term | trunc
        out.append(({k: np.stack(v) for k, v in rows.items()}, obs.copy()))
    pool.close()
    return out


@pytest.mark.parametrize("unrolls_per_call", [1, 3])
def test_trajectories_equal_a_local_pool_with_the_same_policy(unrolls_per_call: int) -> None:
    """However many unrolls a call carries, the stream is the same (3: worker 0's first call
    brings its first three unrolls, handed out in turn with worker 1's)."""
    with RolloutWorkers(
        "CartPole-v1",
        2,
        3,
        lean_policy,
        unroll_length=40,
        seed=9,
        ordered=True,
        num_cpus_per_worker=0,
        unrolls_per_call=unrolls_per_call,
    ) as workers:
        got = [workers.next() for _ in range(4)]  # worker 0, 1, 0, 1
    for k in range(2):
        expected = local_rollouts([9 + 3 * k + i for i in range(3)], lean_policy, 40, 2)
        for trajectory, (rows, last_obs) in zip(got[k::2], expected, strict=True):
            assert trajectory.worker == k and trajectory.policy_version == -1
            for name, value in rows.items():
                np.testing.assert_array_equal(getattr(trajectory, name), value, err_msg=name)
            np.testing.assert_array_equal(trajectory.last_obs, last_obs)
            np.testing.assert_array_equal(trajectory.env_id, np.broadcast_to(np.arange(3) + 3 * k, (40, 3)))
            np.testing.assert_array_equal(trajectory.extras["lean"], rows["obs"][:, :, 2])
    assert sum(len(t.episode_returns) for t in got) > 0
    for k in range(2):  # episode statistics, carried across unrolls: as a plain loop counts them
        returns, lengths = np.zeros(3), np.zeros(3, np.int64)
        want_r, want_l = [], []
        for trajectory in got[k::2]:
            for t in range(40):
                returns += trajectory.rewards[t]
                lengths += trajectory.valid[t]
                for i in np.flatnonzero(trajectory.terminated[t] | trajectory.truncated[t]):
                    want_r.append(returns[i])
                    want_l.append(lengths[i])
                    returns[i], lengths[i] = 0, 0
            np.testing.assert_array_equal(trajectory.episode_returns, want_r)
            np.testing.assert_array_equal(trajectory.episode_lengths, want_l)
            want_r, want_l = [], []
    assert not got[0].valid[0].all() or got[0].valid.all()  # shape sanity: a bool (T, N) mask


def test_weights_reach_every_worker() -> None:
    with RolloutWorkers(
        "CartPole-v1", 2, 2, lean_policy, unroll_length=5, max_in_flight=2, num_cpus_per_worker=0
    ) as workers:
        version = workers.set_weights(1)
        seen = []
        for _ in range(8):
            t = workers.next(timeout=60)
            seen.append(t.policy_version)
            if t.policy_version == version:
                assert (t.actions == 1).all()
        assert seen.count(version) >= 2  # within max_in_flight unrolls of each worker
        assert all(v in (-1, version) for v in seen)


def test_a_calls_unrolls_share_the_weights_it_started_with() -> None:
    with RolloutWorkers(
        "CartPole-v1", 1, 2, lean_policy, unroll_length=5, max_in_flight=1, unrolls_per_call=2, ordered=True
    ) as workers:
        versions = []
        for i in range(8):
            t = workers.next(timeout=60)
            versions.append(t.policy_version)
            if t.policy_version == 0:
                assert (t.actions == 1).all()
            if i == 2:  # mid-way through a call's two unrolls
                workers.set_weights(1)
    assert versions[0::2] == versions[1::2], versions  # both unrolls of a call: one version
    # pushed after call 2 arrived, while call 3 was queued: calls 4 on act with it
    assert versions == [-1] * 6 + [0, 0], versions


def test_rollouts_stack_what_consecutive_rollout_calls_give() -> None:
    """In-process (no Ray): one call of three unrolls holds exactly what three single unrolls of a
    twin worker give: rows, last observations, extras, and each unroll's own episode statistics."""
    from envhive.ray.rollout import RolloutWorker

    def make() -> RolloutWorker:
        return RolloutWorker("CartPole-v1", 4, 30, lean_policy, None, [5, 6, 7, 8], env_offset=8, worker=2)

    batched, single = make(), make()
    try:
        for _ in range(2):  # the second call starts from the carried state (flags, running sums)
            stacked = batched.rollouts(3)
            assert stacked.obs.shape == (3, 30, 4, 4) and stacked.last_obs.shape == (3, 4, 4)
            for got in stacked.trajectories():
                want = single.rollout()
                for name in ("obs", "actions", "rewards", "terminated", "truncated", "valid", "env_id", "last_obs"):
                    np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
                np.testing.assert_array_equal(got.extras["lean"], want.extras["lean"])
                np.testing.assert_array_equal(got.episode_returns, want.episode_returns)
                np.testing.assert_array_equal(got.episode_lengths, want.episode_lengths)
                assert got.env_id[0].tolist() == [8, 9, 10, 11] and got.worker == 2
        assert sum(len(t.episode_returns) for t in stacked.trajectories()) > 0
        for bad in (0, 2.0):
            with pytest.raises(ValueError, match="count"):
                batched.rollouts(bad)  # type: ignore[arg-type]
    finally:
        batched.close()
        single.close()


@pytest.mark.parametrize("name", ["unrolls_per_call", "max_in_flight", "unroll_length"])
@pytest.mark.parametrize("value", [0, 1.5])
def test_bad_sizes_are_value_errors(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=name):
        RolloutWorkers("CartPole-v1", 1, 2, lean_policy, **{name: value})


def jax_softmax_policy(params, obs, key):
    """A linear softmax policy in JAX, sampled with the key it is given (Gumbel-max)."""
    import jax
    import jax.numpy as jnp

    logits = obs @ params["w"]
    return jnp.argmax(logits + jax.random.gumbel(key, logits.shape), -1), {"logits": logits}


def test_a_jax_policy_acts_in_the_workers_as_it_does_locally() -> None:
    """JaxPolicy in two workers: the same actions, logits and observations as the same policy
    (same key stream: the worker's generator) driving a local pool; pushed weights take over."""
    params = {"w": np.array([[0.5, -0.5], [1.0, -1.0], [-3.0, 3.0], [-1.0, 1.0]], np.float32)}
    with RolloutWorkers(
        "CartPole-v1", 2, 3, JaxPolicy(jax_softmax_policy), params, unroll_length=25, seed=4, ordered=True
    ) as workers:
        got = [workers.next(timeout=120) for _ in range(4)]  # worker 0, 1, 0, 1
        workers.set_weights({"w": np.array([[0, 0], [0, 0], [0, 0], [0, 1e9]], np.float32)})  # obs[3] decides
        later = [workers.next(timeout=120) for _ in range(8)]
    for k in range(2):
        policy = JaxPolicy(jax_softmax_policy)
        rng = np.random.default_rng([4, k])  # RolloutWorker's policy entropy: [seed, worker]
        pool = envhive.make("CartPole-v1", num_envs=3, seed=[4 + 3 * k + i for i in range(3)])
        obs, _ = pool.reset()
        for trajectory in got[k::2]:
            for t in range(25):
                actions, extras = policy(params, obs, rng)
                np.testing.assert_array_equal(trajectory.obs[t], obs)
                np.testing.assert_array_equal(trajectory.actions[t], actions)
                np.testing.assert_allclose(trajectory.extras["logits"][t], extras["logits"], rtol=1e-6)
                obs, *_ = pool.step(actions)
        pool.close()
    assert len({tuple(t.actions.ravel()) for t in got}) == 4  # sampled: no two unrolls alike
    new = [t for t in later if t.policy_version == 0]
    assert new, [t.policy_version for t in later]
    for t in new:  # the pushed weights: push right exactly when the pole's angular velocity is positive
        np.testing.assert_array_equal(t.actions, (t.obs[..., 3] > 0).astype(t.actions.dtype))


def test_worker_info_names_each_workers_node_process_and_pool() -> None:
    with RolloutWorkers("CartPole-v1", 2, 3, lean_policy, unroll_length=5, num_cpus_per_worker=0) as workers:
        info = workers.worker_info()
        pids = [i["pid"] for i in info]
        assert len(set(pids)) == 2 and os.getpid() not in pids
        assert all(os.path.exists(f"/proc/{pid}") for pid in pids)  # the actors' own processes, alive
        assert {i["node_id"] for i in info} == {ray.get_runtime_context().get_node_id()}
        assert [(i["num_envs"], i["num_threads"]) for i in info] == [(3, 1), (3, 1)]  # 0 CPUs: 1 thread


def test_faults_name_the_workers_env_ids() -> None:
    workers = RolloutWorkers(
        "Dummy-v0",
        2,
        2,
        lambda w, obs, rng: np.ones(len(obs), np.int64),
        unroll_length=4,
        ordered=True,
        num_cpus_per_worker=0,
        fail_env=1,
        fail_step=3,
        episode_length=0,
    )
    try:
        with pytest.raises(envhive.EnvError) as caught:
            workers.next(timeout=60)
        assert caught.value.env_ids == [1]
        with pytest.raises(envhive.EnvError) as caught:
            workers.next(timeout=60)
        assert caught.value.env_ids == [3]  # worker 1's local env 1
        assert not release_actors([workers._workers[0]], timeout=60)
        died = None
        for _ in range(8):  # unrolls queued before the kill may still come back (with the env's fault)
            try:
                workers.next(timeout=60)
            except envhive.EnvError as e:
                if "died" in str(e):
                    died = e
                    break
                assert "failure injected" in str(e)
        assert died is not None, "the killed worker was never reported"
        assert died.env_ids == [0, 1]
    finally:
        workers.close()
    with pytest.raises(envhive.PoolClosedError):
        workers.next()


@pytest.mark.parametrize("unrolls_per_call", [1, 2])
def test_a_dead_worker_restarts_with_fresh_seeds_and_the_latest_weights(unrolls_per_call: int) -> None:
    with RolloutWorkers(
        "CartPole-v1",
        2,
        2,
        lean_policy,
        unroll_length=5,
        seed=3,
        ordered=True,
        num_cpus_per_worker=0,
        max_restarts=1,
        unrolls_per_call=unrolls_per_call,
    ) as workers:
        first = workers.next(timeout=60)
        assert first.worker == 0 and first.incarnation == 0
        version = workers.set_weights(1)
        assert not release_actors([workers._workers[0]], timeout=60)
        seen = [workers.next(timeout=60) for _ in range(8 * unrolls_per_call)]  # past what it had delivered
        assert workers.restarts == 1
        if unrolls_per_call > 1:  # the dead worker's second unroll had arrived with its first: still handed out
            second = seen[1]
            assert (second.worker, second.incarnation) == (0, 0)
            np.testing.assert_array_equal(second.obs[0], first.last_obs)
        reborn = [t for t in seen if t.worker == 0 and t.incarnation == 1]
        assert reborn, [(t.worker, t.incarnation) for t in seen]
        assert all(t.policy_version == version and (t.actions == 1).all() for t in reborn)
        # fresh seeds: the new incarnation's first observation is not the old one's
        assert not np.array_equal(reborn[0].obs[0], first.obs[0])
        expected = incarnation_seeds([3, 4], 1)
        pool = envhive.make("CartPole-v1", num_envs=2, seed=expected)
        obs, _ = pool.reset()
        pool.close()
        np.testing.assert_array_equal(reborn[0].obs[0], obs)
        assert not release_actors([workers._workers[1]], timeout=60)  # no restarts left: worker 1's death is reported
        died = None
        for _ in range(8 * unrolls_per_call):
            try:
                workers.next(timeout=60)
            except envhive.EnvError as e:
                died = e
                break
        assert died is not None and "died" in str(died) and died.env_ids == [2, 3]


def stall_policy(weights, obs, rng):
    """Push left; stall for a minute while the file named by ``weights`` exists."""
    if weights is not None and os.path.exists(weights):
        time.sleep(60)
    return np.zeros(len(obs), np.int64)


def test_a_hung_worker_times_out_and_is_replaced(tmp_path) -> None:
    stall = tmp_path / "stall"
    with RolloutWorkers(
        "CartPole-v1", 1, 2, stall_policy, unroll_length=5, num_cpus_per_worker=0, max_restarts=1
    ) as workers:
        workers.next(timeout=60)
        handles = list(workers._workers)  # the worker about to stall
        stall.touch()
        workers.set_weights(str(stall))  # from the next unroll the worker stalls
        with pytest.raises(envhive.EnvError, match="no trajectory within 2") as caught:
            for _ in range(4):  # the unrolls queued before the weights still arrive
                workers.next(timeout=2)
        assert caught.value.env_ids == [0, 1]
        assert workers.restarts == 1
        stall.unlink()  # the replacement starts with the same weights, which no longer stall
        t = workers.next(timeout=60)
        assert t.incarnation == 1 and t.policy_version == 0
        handles += workers._workers  # its replacement
    assert len(handles) == 2
    for handle in handles:  # close() returned only once both the stalled and the new worker were gone
        with pytest.raises(ray.exceptions.RayActorError):
            ray.get(handle.__ray_ready__.remote(), timeout=60)


@pytest.mark.learning
@pytest.mark.parametrize("unrolls_per_call", [1, 4])
def test_ppo_from_the_stream_reaches_475_on_cartpole(unrolls_per_call: int) -> None:
    """examples/train/ppo_ray.py: PPO (clipped ratio against the behaviour log-probs, so workers may
    act several versions behind), 2 workers x 8 envs, unrolls of 64 steps, TorchScript policy in the
    workers; a seeded run to a mean return of 475 within a fixed step budget (the seeded runs
    reach it at ~40k steps with 1 unroll per call and ~82k with 4, 22 versions behind at most)."""
    args = ppo_ray.Args(seed=0, total_timesteps=150_000, unrolls_per_call=unrolls_per_call, log_every=0)
    result = ppo_ray.train(args)
    assert result.reached_target, (result.global_step, result.mean_return)
    assert result.mean_return >= 475 and result.global_step <= 150_000
    assert result.max_policy_lag >= 2  # it did learn from stale trajectories
    assert ray.is_initialized()  # the test's Ray was used, not shut down


def test_ppo_ray_cli_parses_every_flag_and_runs() -> None:
    flags = ["--total-timesteps", "2048", "--target-return", "none", "--unrolls-per-call", "2", "--log-every", "0"]
    args = ppo_ray.parse_args(flags)
    assert (args.total_timesteps, args.target_return, args.unrolls_per_call) == (2048, None, 2)
    assert args.address is None and ppo_ray.parse_args(["--address", "auto"]).address == "auto"
    assert ppo_ray.parse_args([]) == ppo_ray.Args()
    result = ppo_ray.train(args)
    assert result.global_step >= 2048 and not result.reached_target and result.episodes > 0
    assert ppo_ray.main(["--total-timesteps", "1024", "--log-every", "0"]) == 0


def test_after_an_env_fault_the_failed_envs_next_row_is_invalid() -> None:
    """In-process (no Ray): an env raising inside an unroll loses that step's batch; the failed
    env's next step starts a new episode, so its row is marked invalid like an autoreset step
    (reward 0), and the other envs' rows stay valid."""
    from envhive.ray.rollout import RolloutWorker

    worker = RolloutWorker(
        "Dummy-v0", 2, 2, lambda w, obs, rng: np.ones(len(obs), np.int64), None, None,
        fail_env=1, fail_step=3, episode_length=0,
    )  # fmt: skip
    try:
        first = worker.rollout()  # steps 1, 2
        assert first.valid.all()
        with pytest.raises(envhive.EnvError) as caught:
            worker.rollout()  # env 1's step 3 raises at once
        assert caught.value.env_ids == [1]
        after = worker.rollout()
        np.testing.assert_array_equal(after.valid[0], [True, False])  # env 1: its new episode's reset step
        assert after.rewards[0, 1] == 0.0 and after.rewards[0, 0] == 1.0
        # env 0 went on (its lost step counted), env 1 restarted
        np.testing.assert_array_equal(after.obs[1][:, 1], [4, 0])
        assert after.valid[1].all()
    finally:
        worker.close()
