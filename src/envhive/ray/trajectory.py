"""What rollout workers deliver: trajectories, and the episode bookkeeping across them.

Trajectories use NEXT_STEP autoreset: row ``t`` holds ``obs[t]``, the action taken in it and what it
gave; the step after an episode ends is the autoreset step (action ignored, reward 0), marked
``valid[t] = False``. So a truncated row's next observation (row ``t + 1``, or ``last_obs``) is the
final observation to bootstrap from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Trajectory:
    """``unroll_length`` steps of every env of one worker; arrays are time-major ``(T, N, ...)``."""

    obs: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray  # float64 (T, N)
    terminated: np.ndarray  # bool (T, N)
    truncated: np.ndarray  # bool (T, N)
    valid: np.ndarray  # bool (T, N): False on autoreset steps (the step after an episode ended)
    env_id: np.ndarray  # int32 (T, N): global ids (worker offset + local id), a read-only broadcast
    last_obs: np.ndarray  # (N, ...): the observation after the last step (to bootstrap from)
    extras: dict[str, np.ndarray] = field(default_factory=dict)  # the policy's extras, (T, N, ...)
    policy_version: int = -1  # the weights' version that acted (-1: the initial weights)
    worker: int = 0
    incarnation: int = 0  # how many times this worker was restarted before producing it
    episode_returns: np.ndarray = field(default_factory=lambda: np.zeros(0))  # of episodes ended in it
    episode_lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def num_steps(self) -> int:
        """Env steps in it, autoreset steps included."""
        return int(self.rewards.size)


@dataclass
class TrajectoryBatch:
    """What one Ray call carries: ``K`` consecutive unrolls of one worker, stacked ``(K, T, N, ...)``
    (one array per field, however large ``K``: the call's cost is mostly per object, not per
    byte). ``trajectories()`` splits it into ``K`` Trajectory views without copying."""

    obs: np.ndarray  # (K, T, N, ...)
    actions: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    valid: np.ndarray
    last_obs: np.ndarray  # (K, N, ...)
    env_ids: np.ndarray  # int32 (N,): the same for every row
    extras: dict[str, np.ndarray]
    episode_returns: np.ndarray  # of every unroll, in unroll order
    episode_lengths: np.ndarray
    episode_counts: np.ndarray  # (K,): how many of them ended in each unroll
    policy_version: int
    worker: int
    incarnation: int

    def trajectories(self) -> list[Trajectory]:
        t_len, n = self.rewards.shape[1:]
        env_id = np.broadcast_to(self.env_ids, (t_len, n))
        ends = np.concatenate(([0], np.cumsum(self.episode_counts)))
        return [
            Trajectory(
                obs=self.obs[k],
                actions=self.actions[k],
                rewards=self.rewards[k],
                terminated=self.terminated[k],
                truncated=self.truncated[k],
                valid=self.valid[k],
                env_id=env_id,
                last_obs=self.last_obs[k],
                extras={name: value[k] for name, value in self.extras.items()},
                policy_version=self.policy_version,
                worker=self.worker,
                incarnation=self.incarnation,
                episode_returns=self.episode_returns[ends[k] : ends[k + 1]],
                episode_lengths=self.episode_lengths[ends[k] : ends[k + 1]],
            )
            for k in range(len(self.rewards))
        ]


class EpisodeCarry:
    """A worker's episode bookkeeping from one call to the next: per env, whether its last row
    ended an episode (the next row is the autoreset step) and the return and length of the episode
    it is in. Validity and episode statistics are computed once per call from the stored flags."""

    def __init__(self, num_envs: int) -> None:
        self.ended = np.zeros(num_envs, bool)  # the previous step ended an episode: this one is an autoreset
        self.returns = np.zeros(num_envs)
        self.lengths = np.zeros(num_envs, np.int64)

    def close_rows(
        self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Validity of the rows stepped (the step after an episode ends is its autoreset), and the
        episodes that ended in them (returns, lengths, rows); carries the flags and running sums
        into the next rows."""
        ended = terminated | truncated
        valid = np.empty(ended.shape, bool)
        if len(ended) == 0:
            return valid, np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
        valid[0] = ~self.ended
        np.logical_not(ended[:-1], out=valid[1:])
        self.ended = ended[-1].copy()
        return (valid, *self._episodes(rewards, valid, ended))

    def _episodes(
        self, rewards: np.ndarray, valid: np.ndarray, ended: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Returns, lengths and last rows of the episodes that end in these rows (in time, then env
        order), carrying each env's running sums into the next rows.

        Running sums from each env's episode start (the carry plus a cumulative sum); an episode's
        total is the sum at its last row less the sum at its env's previous end (0 for the first
        end of an env in this unroll)."""
        returns = np.cumsum(rewards, axis=0)
        returns += self.returns
        lengths = np.cumsum(valid, axis=0, dtype=np.int64)
        lengths += self.lengths
        env, t = np.nonzero(ended.T)  # grouped by env, in time order inside each env
        if len(env) == 0:
            self.returns, self.lengths = returns[-1].copy(), lengths[-1].copy()
            return np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
        at_r, at_l = returns[t, env], lengths[t, env]
        new_env = np.concatenate(([True], env[1:] != env[:-1], [True]))  # an env's run of ends starts / ends
        first, last = new_env[:-1], new_env[1:]
        before_r, before_l = np.empty_like(at_r), np.empty_like(at_l)  # the sums at the previous end
        before_r[1:], before_l[1:] = at_r[:-1], at_l[:-1]
        before_r[first], before_l[first] = 0.0, 0
        self.returns, self.lengths = returns[-1].copy(), lengths[-1].copy()
        self.returns[env[last]] -= at_r[last]  # each env's last end: what follows it carries over
        self.lengths[env[last]] -= at_l[last]
        order = np.lexsort((env, t))
        return (at_r - before_r)[order], (at_l - before_l)[order], t[order]

    def cut(self, env_ids: list[int]) -> None:
        """These envs' episodes are cut (a failed step): their next step starts a new episode, so it
        is marked invalid like an autoreset step, and the cut episode is never counted."""
        self.ended[env_ids] = True
        self.returns[env_ids] = 0.0
        self.lengths[env_ids] = 0
