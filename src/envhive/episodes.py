"""Episode statistics (return and length of every finished episode) for every way of running a pool.

:class:`EpisodeStatistics` is fed what a step or ``recv()`` returns::

    stats = envhive.EpisodeStatistics.for_env(env)        # num_envs and autoreset mode from env
    env.async_reset()
    while training:
        obs, reward, terminated, truncated, info = env.recv()
        for episode in stats.update(reward, terminated, truncated, info):
            log(episode.env_id, episode.ret, episode.length)
        env.send(policy(obs), info["env_id"])

It keeps a running return and length per env, addressed by ``info["env_id"]`` (so async batches,
whatever envs they hold, count right; without ``env_id`` the rows are envs 0..n-1), and handles
each autoreset mode: in NEXT_STEP the step after an episode's end is the reset step (reward 0), which
belongs to no episode; in SAME_STEP the ending step's terminal info is read from ``final_info``;
rows that come from a reset (``elapsed_step == 0``, e.g. after ``async_reset()``) count as no step.

Atari (and any task reporting them): the return is the sum of ``info["reward"]`` -- the raw reward,
also when ``reward_clip`` clips the reward the agent sees -- and an episode is the whole game: it
ends when ``info["terminated"]`` (the game is over) or the time limit truncates it, also when
``episodic_life`` ends the agent's episode at every lost life. Set ``raw_reward_key`` /
``game_over_key`` to None to count the agent's own rewards and episodes instead.

:class:`RecordEpisodeStatistics` is the same as a Gymnasium vector wrapper: ``info["episode"]`` with
``r``, ``l``, ``t`` and the ``_episode`` row mask, exactly as Gymnasium's wrapper of that name reports
them, but right in async mode (rows are addressed by ``env_id``) and for Atari's raw rewards and games.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv, VectorWrapper

from envhive.checks import autoreset_mode as parse_autoreset_mode


class Episode(NamedTuple):
    """One finished episode."""

    env_id: int
    ret: float  # its return (undiscounted sum of rewards)
    length: int  # its agent steps
    seconds: float  # wall time from its first step to its end


@dataclass(frozen=True)
class Episodes:
    """The episodes that ended in one batch, one entry per env that ended one (iterate for
    :class:`Episode` tuples). ``rows`` are their rows in the batch."""

    env_id: np.ndarray  # int32
    returns: np.ndarray  # float64
    lengths: np.ndarray  # int64
    seconds: np.ndarray  # float64
    rows: np.ndarray  # int64

    def __len__(self) -> int:
        return int(self.env_id.shape[0])

    def __iter__(self) -> Iterator[Episode]:
        for i in range(len(self)):
            yield Episode(int(self.env_id[i]), float(self.returns[i]), int(self.lengths[i]), float(self.seconds[i]))


class EpisodeStatistics:
    """Running per-env returns and lengths; :meth:`update` returns the episodes a batch ended."""

    def __init__(
        self,
        num_envs: int,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        *,
        raw_reward_key: str | None = "reward",
        game_over_key: str | None = "terminated",
        buffer_length: int = 100,
    ) -> None:
        """``autoreset_mode``: the pool's (``env.metadata["autoreset_mode"]``). ``raw_reward_key`` /
        ``game_over_key``: info fields that, where a batch has them, give the raw reward and the real
        end of an episode (Atari's ``reward`` and ``terminated``); None ignores them."""
        if not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if not isinstance(autoreset_mode, AutoresetMode | str):
            raise TypeError(f"autoreset_mode must be an AutoresetMode or its name, got {autoreset_mode!r}")
        self.num_envs = int(num_envs)
        self.autoreset_mode = parse_autoreset_mode(autoreset_mode)
        self.raw_reward_key = raw_reward_key
        self.game_over_key = game_over_key
        self.episode_returns = np.zeros(self.num_envs, dtype=np.float64)
        self.episode_lengths = np.zeros(self.num_envs, dtype=np.int64)
        self.episode_start_times = np.full(self.num_envs, time.perf_counter())
        self._prev_ended = np.zeros(self.num_envs, dtype=bool)  # the pool ended the env's last row
        self._all_rows = np.arange(self.num_envs, dtype=np.int32)
        self.episode_count = 0
        self.return_queue: deque[float] = deque(maxlen=buffer_length)
        self.length_queue: deque[int] = deque(maxlen=buffer_length)
        self.time_queue: deque[float] = deque(maxlen=buffer_length)

    @classmethod
    def for_env(cls, env: Any, **kwargs: Any) -> EpisodeStatistics:
        """Statistics for ``env``: its ``num_envs`` and ``metadata["autoreset_mode"]`` (NEXT_STEP if it
        has none, as Gymnasium assumes); works for envhive's pools, ``envhive.envpool``'s and Gymnasium's
        vector envs."""
        mode = getattr(env, "metadata", {}).get("autoreset_mode", AutoresetMode.NEXT_STEP)
        return cls(int(env.num_envs), mode, **kwargs)

    def reset(self, env_id: Any = None) -> None:
        """Forget the running episodes of ``env_id`` (default: every env), e.g. after resetting them
        with ``reset(options={"reset_mask": ...})``, whose results do not pass through :meth:`update`."""
        ids = self._all_rows if env_id is None else np.asarray(env_id, dtype=np.int64).reshape(-1)
        self.episode_returns[ids] = 0.0
        self.episode_lengths[ids] = 0
        self.episode_start_times[ids] = time.perf_counter()
        self._prev_ended[ids] = False

    def update(self, reward: Any, terminated: Any, truncated: Any, info: dict[str, Any]) -> Episodes:
        """Count one batch (what ``step()`` or ``recv()`` returned); returns the episodes it ended."""
        reward = np.asarray(reward, dtype=np.float64).reshape(-1)
        terminated = np.asarray(terminated, dtype=bool).reshape(-1)
        truncated = np.asarray(truncated, dtype=bool).reshape(-1)
        rows = reward.shape[0]
        if terminated.shape != (rows,) or truncated.shape != (rows,):
            raise ValueError(
                f"reward, terminated and truncated must have one entry per row, got {rows}, "
                f"{terminated.shape[0]} and {truncated.shape[0]}"
            )
        if "env_id" in info:
            ids = np.asarray(info["env_id"]).reshape(-1)
            if ids.shape != (rows,):
                raise ValueError(f"info['env_id'] must have one entry per row ({rows}), got shape {ids.shape}")
        elif rows == self.num_envs:
            ids = self._all_rows
        else:
            raise ValueError(f"a batch of {rows} rows without info['env_id'] (num_envs is {self.num_envs})")
        if rows and (ids.min() < 0 or ids.max() >= self.num_envs):
            raise ValueError(f"info['env_id'] holds ids outside [0, {self.num_envs})")

        ended = terminated | truncated  # the pool ended the agent's episode on this row
        raw = self._field(info, self.raw_reward_key, reward, np.float64)
        game_over = self._field(info, self.game_over_key, None, bool)
        episode_end = ended if game_over is None else game_over | truncated

        counts = np.ones(rows, dtype=bool)
        if "elapsed_step" in info:  # a row straight from a reset (async_reset, reset via recv)
            counts &= (np.asarray(info["elapsed_step"]).reshape(-1) != 0) | ended
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:  # the reset step after an end
            counts &= ~self._prev_ended[ids]
        counted = ids[counts]
        self.episode_returns[counted] += raw[counts]
        self.episode_lengths[counted] += 1
        self._prev_ended[ids] = ended

        if not episode_end.any():
            return _NO_EPISODES
        end_rows = np.flatnonzero(episode_end)
        end_ids = ids[end_rows]
        now = time.perf_counter()
        done = Episodes(
            env_id=end_ids.astype(np.int32),
            returns=self.episode_returns[end_ids].copy(),
            lengths=self.episode_lengths[end_ids].copy(),
            seconds=now - self.episode_start_times[end_ids],
            rows=end_rows,
        )
        self.episode_returns[end_ids] = 0.0
        self.episode_lengths[end_ids] = 0
        self.episode_start_times[end_ids] = now
        self.episode_count += len(done)
        self.return_queue.extend(done.returns.tolist())
        self.length_queue.extend(done.lengths.tolist())
        self.time_queue.extend(done.seconds.tolist())
        return done

    def _field(self, info: dict[str, Any], key: str | None, default: np.ndarray | None, dtype: Any) -> Any:
        """``info[key]`` as a flat array, the ending rows' terminal values taken from SAME_STEP's
        ``final_info``; ``default`` when the batch has no such field."""
        if key is None or key not in info:
            return default
        values = np.asarray(info[key]).reshape(-1).astype(dtype)
        final = info.get("final_info")
        if isinstance(final, dict) and key in final and "_final_info" in info:
            mask = np.asarray(info["_final_info"], dtype=bool).reshape(-1)
            values = np.where(mask, np.asarray(final[key]).reshape(-1).astype(dtype), values)
        return values


_NO_EPISODES = Episodes(
    env_id=np.zeros(0, dtype=np.int32),
    returns=np.zeros(0, dtype=np.float64),
    lengths=np.zeros(0, dtype=np.int64),
    seconds=np.zeros(0, dtype=np.float64),
    rows=np.zeros(0, dtype=np.int64),
)


class RecordEpisodeStatistics(VectorWrapper):
    """Gymnasium's vector ``RecordEpisodeStatistics`` output (``info["episode"]`` = ``{"r", "l", "t"}``
    per row, ``info["_episode"]`` the rows that ended one) from :class:`EpisodeStatistics`: right for
    sync and async pools (``send``/``recv`` pass through and are counted), every autoreset mode, and
    Atari's raw rewards and whole games. ``return_queue`` / ``length_queue`` / ``episode_count`` as
    Gymnasium's wrapper has them."""

    def __init__(self, env: VectorEnv, buffer_length: int = 100, stats_key: str = "episode", **kwargs: Any) -> None:
        """``kwargs``: :class:`EpisodeStatistics`'s ``raw_reward_key`` and ``game_over_key``."""
        super().__init__(env)
        self._stats_key = stats_key
        self.stats = EpisodeStatistics.for_env(env, buffer_length=buffer_length, **kwargs)

    @property
    def episode_count(self) -> int:
        return self.stats.episode_count

    @property
    def return_queue(self) -> deque[float]:
        return self.stats.return_queue

    @property
    def length_queue(self) -> deque[int]:
        return self.stats.length_queue

    @property
    def time_queue(self) -> deque[float]:
        return self.stats.time_queue

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        mask = None if options is None else options.get("reset_mask")
        self.stats.reset(None if mask is None else np.flatnonzero(mask))
        return obs, info

    def step(self, actions: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        return self._record(*self.env.step(actions, *args, **kwargs))

    def send(self, actions: Any, env_id: Any = None) -> None:
        self.env.unwrapped.send(actions, env_id)  # type: ignore[attr-defined]

    def recv(self, *args: Any, **kwargs: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        return self._record(*self.env.unwrapped.recv(*args, **kwargs))  # type: ignore[attr-defined]

    def async_reset(self, *args: Any, **kwargs: Any) -> None:
        self.env.unwrapped.async_reset(*args, **kwargs)  # type: ignore[attr-defined]
        self.stats.reset()

    def _record(
        self, obs: Any, reward: Any, terminated: Any, truncated: Any, info: dict[str, Any]
    ) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        episodes = self.stats.update(reward, terminated, truncated, info)
        if len(episodes):
            if self._stats_key in info or f"_{self._stats_key}" in info:
                raise ValueError(f"info already has the key {self._stats_key!r}: {sorted(info)}")
            rows = np.shape(reward)[0]
            r, length, t = np.zeros(rows), np.zeros(rows, dtype=np.int64), np.zeros(rows)
            mask = np.zeros(rows, dtype=bool)
            r[episodes.rows], length[episodes.rows] = episodes.returns, episodes.lengths
            t[episodes.rows], mask[episodes.rows] = np.round(episodes.seconds, 6), True
            info[self._stats_key] = {"r": r, "l": length, "t": t}
            info[f"_{self._stats_key}"] = mask
        return obs, reward, terminated, truncated, info
