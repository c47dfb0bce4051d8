"""Rollout workers (IMPALA / Sebulba style): the policy runs next to the pool, inside the actor.

One Ray call costs 0.1-1 ms, hundreds of envhive steps, so the design that scales keeps the
per-step loop (policy -> step -> policy ...) inside each actor and sends the learner only
fixed-length trajectories, one Ray call per ``unrolls_per_call * unroll_length * num_envs`` steps.
Weights go the other way: ``RolloutWorkers.set_weights`` puts them in the object store once and
every worker picks them up before its next call (at most ``max_in_flight`` calls behind the
learner; each trajectory says which version produced it).

The policy (``envhive.ray.policies``) runs in each worker; trajectories, and the episode
bookkeeping from one call to the next, are ``envhive.ray.trajectory``'s.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import ray
from gymnasium.vector import AutoresetMode

from envhive.checks import require_autoreset, seed_list
from envhive.errors import EnvError, PoolClosedError
from envhive.ray.policies import Policy
from envhive.ray.shard import ShardLayout, assigned_cpus, incarnation_seeds, release_actors, resolve_global_seeds
from envhive.ray.trajectory import EpisodeCarry, Trajectory, TrajectoryBatch
from envhive.registry import DEFAULT_SEED
from envhive.vector import HiveVectorEnv


class RolloutWorker:
    """A Ray actor: one sync envhive pool (NEXT_STEP) and a policy, producing Trajectories.

    The pool's threads come from the actor's CPU allocation (``assigned_cpus``) unless
    ``num_threads`` is given; env ``i`` is global env ``env_offset + i`` with seed ``seeds[i]``.
    """

    def __init__(
        self,
        task_id: str,
        num_envs: int,
        unroll_length: int,
        policy: Policy,
        weights: Any,
        seeds: Sequence[int | None] | None,
        env_offset: int = 0,
        worker: int = 0,
        policy_seed: int | None = None,
        incarnation: int = 0,
        **pool_kwargs: Any,
    ) -> None:
        require_autoreset(
            pool_kwargs.pop("autoreset_mode", None),
            AutoresetMode.NEXT_STEP,
            "a rollout worker",
            "Trajectory.valid marks each reset step",
        )
        if "batch_size" in pool_kwargs:
            raise ValueError("a rollout worker steps every env of its pool each step: drop batch_size")
        if pool_kwargs.get("num_threads") in (None, 0):
            pool_kwargs["num_threads"] = assigned_cpus()
        self.pool = HiveVectorEnv(
            task_id, num_envs=num_envs, seed=None if seeds is None else list(seeds), **pool_kwargs
        )
        self.unroll_length = unroll_length
        self.policy = policy
        self.weights = weights
        self.version = -1
        self.worker = worker
        self.incarnation = incarnation
        self.env_offset = env_offset
        entropy = None if policy_seed is None else [policy_seed, worker] + ([incarnation] if incarnation else [])
        self.rng = np.random.default_rng(entropy)
        self.obs, _ = self.pool.reset()
        self.episodes = EpisodeCarry(num_envs)

    def set_weights(self, weights: Any, version: int) -> None:
        self.weights = weights
        self.version = version

    def info(self) -> dict[str, Any]:
        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "num_envs": self.pool.num_envs,
            "num_threads": self.pool.task_spec.pool.num_threads,
        }

    def rollout(self) -> Trajectory:
        """``unroll_length`` steps of every env with the current weights."""
        return self.rollouts(1).trajectories()[0]

    def rollouts(self, count: int) -> TrajectoryBatch:
        """``count`` consecutive unrolls with the current weights, stacked: what one Ray call of
        ``RolloutWorkers`` carries (``unrolls_per_call``).

        The per-step loop only runs the policy and the pool and stores rows; validity, global ids
        and episode statistics are computed once per call from the stored flags."""
        if not isinstance(count, int) or count < 1:
            raise ValueError(f"rollouts needs a positive int count, got {count!r}")
        t_len, n = self.unroll_length, self.pool.num_envs
        rows = count * t_len
        obs_buf = np.empty((rows, *self.obs.shape), self.obs.dtype)
        rewards = np.empty((rows, n))
        terminated = np.empty((rows, n), bool)
        truncated = np.empty((rows, n), bool)
        version, weights, policy, rng, step = self.version, self.weights, self.policy, self.rng, self.pool.step
        obs = self.obs
        out = policy(weights, obs, rng)  # the first step's actions give the buffers' shapes
        with_extras = isinstance(out, tuple)
        actions, step_extras = out if with_extras else (out, None)
        step_extras = step_extras or {}
        actions = np.asarray(actions)
        actions_buf = np.empty((rows, *actions.shape), actions.dtype)
        extras = {
            name: np.empty((rows, *np.shape(value)), np.asarray(value).dtype) for name, value in step_extras.items()
        }
        t = 0
        try:
            while True:
                actions_buf[t] = actions
                for name, buffer in extras.items():
                    buffer[t] = step_extras[name]
                obs_buf[t] = obs
                obs, rewards[t], terminated[t], truncated[t], _ = step(actions)
                t += 1
                if t == rows:
                    break
                out = policy(weights, obs, rng)
                actions, step_extras = out if with_extras else (out, step_extras)  # without: stays {}
        except EnvError as error:
            # The rows before it stand (their episodes counted; the call's unrolls are lost with
            # it); the failed envs' next step starts a new episode, so it is marked invalid like an
            # autoreset step and their cut episode is dropped. The other envs' rows of this step
            # are lost with the batch.
            self.obs = obs
            self.episodes.close_rows(rewards[:t], terminated[:t], truncated[:t])
            self.episodes.cut([i for i in error.env_ids if 0 <= i < n])
            raise
        self.obs = obs
        valid, ended_returns, ended_lengths, ended_rows = self.episodes.close_rows(rewards, terminated, truncated)
        last_obs = np.empty((count, *obs.shape), obs.dtype)
        last_obs[:-1] = obs_buf[t_len::t_len]  # an unroll's last observation is the next one's first
        last_obs[-1] = obs

        def stacked(a: np.ndarray) -> np.ndarray:
            return a.reshape(count, t_len, *a.shape[1:])

        return TrajectoryBatch(
            obs=stacked(obs_buf),
            actions=stacked(actions_buf),
            rewards=stacked(rewards),
            terminated=stacked(terminated),
            truncated=stacked(truncated),
            valid=stacked(valid),
            last_obs=last_obs,
            env_ids=np.arange(self.env_offset, self.env_offset + n, dtype=np.int32),
            extras={name: stacked(value) for name, value in extras.items()},
            episode_returns=ended_returns,
            episode_lengths=ended_lengths,
            episode_counts=np.bincount(ended_rows // t_len, minlength=count),
            policy_version=version,
            worker=self.worker,
            incarnation=self.incarnation,
        )

    def close(self) -> None:
        self.pool.close()


class RolloutWorkers:
    """``num_workers`` RolloutWorker actors of ``envs_per_worker`` envs each, as a trajectory stream.

    Every worker keeps ``max_in_flight`` calls queued so it never waits for the learner; ``next()``
    returns the first trajectory ready (``ordered=True``: worker 0, 1, ... in turn, for runs that
    must repeat exactly). Each call brings ``unrolls_per_call`` consecutive unrolls of a worker in
    one object (``TrajectoryBatch``), handed out one by one: a Ray call costs about a millisecond
    of CPU, so calls should carry well over that in env and policy work (``docs/distributed.md``);
    weights pushed with ``set_weights`` apply from a worker's next call. Env ``g`` (global id
    ``worker * envs_per_worker + i``) gets seed ``seed + g``. A worker whose actor or node dies, or
    that takes longer than ``timeout`` seconds for a call, raises ``EnvError`` naming its env ids;
    an env's exception is ``EnvError`` with global ids.

    With ``max_restarts=n``, a dead or timed-out worker is replaced (up to ``n`` times in all) by a
    new actor with fresh per-incarnation seeds (``incarnation_seeds``) and the latest weights, and
    the stream goes on: the calls it had in flight are lost (what it delivered is still handed
    out), the episodes it was running are cut (they never appear in ``episode_returns``), and its
    trajectories carry ``incarnation``. A timeout still raises its ``EnvError`` (the caller's
    deadline passed), after the replacement started.
    """

    def __init__(
        self,
        task_id: str,
        num_workers: int,
        envs_per_worker: int,
        policy: Policy,
        weights: Any = None,
        *,
        unroll_length: int = 64,
        seed: int | None = DEFAULT_SEED,
        num_cpus_per_worker: float = 1,
        actor_options: dict[str, Any] | None = None,
        max_in_flight: int = 2,
        unrolls_per_call: int = 1,
        ordered: bool = False,
        timeout: float | None = None,
        max_restarts: int = 0,
        **pool_kwargs: Any,
    ) -> None:
        self._workers: list[Any] = []
        if not ray.is_initialized():
            raise RuntimeError("RolloutWorkers needs a running Ray: call ray.init() first")
        if not isinstance(unroll_length, int) or unroll_length < 1:
            raise ValueError(f"unroll_length must be a positive int, got {unroll_length!r}")
        if not isinstance(max_in_flight, int) or max_in_flight < 1:
            raise ValueError(f"max_in_flight must be a positive int, got {max_in_flight!r}")
        if not isinstance(unrolls_per_call, int) or unrolls_per_call < 1:
            raise ValueError(f"unrolls_per_call must be a positive int, got {unrolls_per_call!r}")
        if not isinstance(max_restarts, int) or max_restarts < 0:
            raise ValueError(f"max_restarts must be an int >= 0, got {max_restarts!r}")
        self.layout = ShardLayout.split(num_workers * envs_per_worker, num_workers)
        seeds = resolve_global_seeds(seed, self.layout.num_envs)
        options = {"num_cpus": num_cpus_per_worker, "max_restarts": 0, "max_task_retries": 0, **(actor_options or {})}
        self._actor = ray.remote(RolloutWorker).options(**options)
        self._task_id = task_id
        self._envs_per_worker = envs_per_worker
        self._unroll_length = unroll_length
        self._policy = policy
        self._weights_ref: Any = weights
        self._base_seeds = seeds
        self._policy_seed = seed
        self._pool_kwargs = pool_kwargs
        self.version = -1
        self.ordered = ordered
        self.timeout = timeout
        self.max_in_flight = max_in_flight
        self.unrolls_per_call = unrolls_per_call
        self.max_restarts = max_restarts
        self.restarts = 0
        self._incarnations = [0] * num_workers
        self._closed = False
        self._queues: list[list[Any]] = []  # per worker: its calls in flight, oldest first
        self._received: list[deque[Trajectory]] = [deque() for _ in range(num_workers)]  # not yet handed out
        self._next_worker = 0
        self._workers = [self._spawn(k) for k in range(num_workers)]
        try:
            ray.get([w.info.remote() for w in self._workers], timeout=300)
        except ray.exceptions.RayTaskError as e:
            self.close()
            raise e.cause if isinstance(e.cause, Exception) else e from None
        except BaseException:
            self.close()
            raise
        self._queues = [[self._call(w) for _ in range(max_in_flight)] for w in self._workers]

    def _spawn(self, k: int) -> Any:
        """A new actor for worker ``k`` in its current incarnation, holding the latest weights."""
        ids = self.layout.ids(k)
        base = seed_list(self._base_seeds, ids) if self._base_seeds else None
        worker = self._actor.remote(
            self._task_id,
            self._envs_per_worker,
            self._unroll_length,
            self._policy,
            self._weights_ref,
            incarnation_seeds(base, self._incarnations[k]),
            ids.start,
            k,
            self._policy_seed,
            self._incarnations[k],
            **self._pool_kwargs,
        )
        if self.version >= 0:
            worker.set_weights.remote(self._weights_ref, self.version)
        return worker

    def _call(self, worker: Any) -> Any:
        return worker.rollouts.remote(self.unrolls_per_call)

    def _restart(self, k: int) -> bool:
        """Replace worker ``k`` if restarts remain (its calls in flight are dropped, what it already
        delivered is still handed out); True if it was."""
        if self.restarts >= self.max_restarts:
            return False
        self.restarts += 1
        release_actors([self._workers[k]])  # dead, and its CPUs free, before the replacement starts
        self._incarnations[k] += 1
        self._workers[k] = self._spawn(k)
        self._queues[k] = [self._call(self._workers[k]) for _ in range(self.max_in_flight)]
        return True

    @property
    def num_workers(self) -> int:
        return len(self._workers)

    def worker_info(self) -> list[dict[str, Any]]:
        """Per worker: node id, process id, pool size and threads."""
        return list(ray.get([w.info.remote() for w in self._workers], timeout=self.timeout))

    def set_weights(self, weights: Any) -> int:
        """Push ``weights`` to every worker (one object-store copy); returns their version. Unrolls
        already queued finish with the weights they started with."""
        self._check_open()
        self.version += 1
        self._weights_ref = ray.put(weights)  # a restarted worker starts from these
        for worker in self._workers:
            worker.set_weights.remote(self._weights_ref, self.version)
        return self.version

    def next(self, timeout: float | None = None) -> Trajectory:
        """The next trajectory (first ready, or in worker order with ``ordered=True``)."""
        self._check_open()
        timeout = self.timeout if timeout is None else timeout
        while True:
            k, n = self._next_worker, len(self._workers)
            if not self.ordered:  # what earlier calls delivered goes first, from the next worker on
                k = next((j % n for j in range(k, k + n) if self._received[j % n]), k)
            if self._received[k]:
                self._next_worker = (k + 1) % len(self._workers)
                return self._received[k].popleft()
            if self.ordered:
                ready, _ = ray.wait([self._queues[k][0]], timeout=timeout)
            else:
                heads = [q[0] for q in self._queues]
                ready, _ = ray.wait(heads, num_returns=1, timeout=timeout)
                k = heads.index(ready[0]) if ready else 0
            ids = self.layout.ids(k)
            if not ready:
                if not self._restart(k):
                    self._next_worker = (k + 1) % len(self._workers)
                raise EnvError(
                    f"rollout worker {k} (envs {ids.start}..{ids.stop - 1}) gave no trajectory within {timeout}s",
                    ids.start,
                    list(ids),
                )
            ref = self._queues[k].pop(0)
            self._queues[k].append(self._call(self._workers[k]))
            try:
                batch: TrajectoryBatch = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                self._next_worker = (k + 1) % len(self._workers)
                if isinstance(e.cause, EnvError):
                    global_ids = [ids.start + i for i in e.cause.env_ids]
                    raise EnvError(f"rollout worker {k}: {e.cause}", global_ids[0], global_ids) from None
                raise e.cause if isinstance(e.cause, Exception) else e from None
            except ray.exceptions.RayError as e:
                if self._restart(k):
                    continue  # worker k's new incarnation takes its turn
                self._next_worker = (k + 1) % len(self._workers)
                raise EnvError(
                    f"rollout worker {k} (envs {ids.start}..{ids.stop - 1}) died ({type(e).__name__})",
                    ids.start,
                    list(ids),
                ) from e
            first, *rest = batch.trajectories()
            self._received[k].extend(rest)
            self._next_worker = (k + 1) % len(self._workers)
            return first

    def __iter__(self) -> Iterator[Trajectory]:
        while True:
            yield self.next()

    def _check_open(self) -> None:
        if self._closed:
            raise PoolClosedError("these RolloutWorkers are closed")

    def close(self) -> None:
        """Release every worker actor; returns once Ray reports each one dead (their CPUs free)."""
        if self._closed:
            return
        self._closed = True
        release_actors(self._workers)
        self._workers = []
        self._queues = []
        self._received = []

    def __enter__(self) -> RolloutWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
