"""Episode statistics (envhive.EpisodeStatistics / RecordEpisodeStatistics) against hand-run episodes.

The reference is Gymnasium's own CartPole-v1, one env at a time: env i is reset with seed + i (as
the pool seeds it), driven by the same deterministic policy of the observation, and its episodes'
returns and lengths are summed by hand. envhive reproduces Gymnasium's CartPole bit for bit, so
the pool's statistics must equal the reference exactly -- in sync and async pools, in every
autoreset mode. Atari: raw rewards under ``reward_clip`` and whole games under ``episodic_life``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import envhive
import envhive.envpool as envpool
from helpers import GYM_WRAPPER_MODES

SEED = 11
MAX_STEPS = 40  # short time limit: the runs hold both terminations and truncations
EPISODES = 4  # per env


def policy(obs: np.ndarray) -> np.ndarray:
    """A deterministic, erratic policy of the observation (the same for the pool and the reference)."""
    obs = np.asarray(obs, dtype=np.float64).reshape(-1, 4)
    return (np.floor(np.abs(obs[:, 0]) * 1e5).astype(np.int64) + (obs[:, 2] > 0)) % 2


def reference_episodes(env_id: int, count: int = EPISODES) -> list[tuple[float, int, bool]]:
    """(return, length, truncated) of env ``env_id``'s first ``count`` episodes, run by hand on
    Gymnasium's CartPole-v1 (later episodes start from reset() without a seed, as autoreset does)."""
    env = gymnasium.make("CartPole-v1", max_episode_steps=MAX_STEPS)
    obs, _ = env.reset(seed=SEED + env_id)
    out = []
    ret, length = 0.0, 0
    while len(out) < count:
        obs, reward, terminated, truncated, _ = env.step(int(policy(obs)[0]))
        ret += float(reward)
        length += 1
        if terminated or truncated:
            out.append((ret, length, bool(truncated and not terminated)))
            ret, length = 0.0, 0
            obs, _ = env.reset()
    env.close()
    return out


@pytest.fixture(scope="module")
def reference() -> dict[int, list[tuple[float, int, bool]]]:
    return {i: reference_episodes(i) for i in range(4)}


def check(got: dict[int, list[tuple[float, int]]], reference: dict[int, list[tuple[float, int, bool]]]) -> None:
    for env_id, episodes in got.items():
        assert len(episodes) >= EPISODES, (env_id, episodes)
        expected = [(r, n) for r, n, _ in reference[env_id]]
        assert episodes[:EPISODES] == expected, f"env {env_id}"
    ends = [trunc for eps in reference.values() for _, _, trunc in eps]
    assert any(ends) and not all(ends), "the reference should hold terminations and truncations"


def run_sync(env: Any, stats: envhive.EpisodeStatistics, mode: str) -> dict[int, list[tuple[float, int]]]:
    got: dict[int, list[tuple[float, int]]] = {i: [] for i in range(env.num_envs)}
    obs, _ = env.reset()
    for _ in range(EPISODES * (MAX_STEPS + 1) + 5):
        obs, reward, terminated, truncated, info = env.step(policy(obs))
        for episode in stats.update(reward, terminated, truncated, info):
            got[episode.env_id].append((episode.ret, episode.length))
        ended = terminated | truncated
        if mode == "disabled" and ended.any():
            obs, _ = env.reset(options={"reset_mask": ended})
    return got


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_sync_pool_every_autoreset_mode(mode: str, reference: dict[int, list[tuple[float, int, bool]]]) -> None:
    env = envhive.make("CartPole-v1", num_envs=4, seed=SEED, max_episode_steps=MAX_STEPS, autoreset_mode=mode)
    stats = envhive.EpisodeStatistics.for_env(env)
    assert stats.autoreset_mode == env.metadata["autoreset_mode"]
    got = run_sync(env, stats, mode)
    check(got, reference)
    assert stats.episode_count == sum(len(v) for v in got.values())
    assert sorted(stats.return_queue) == sorted(r for v in got.values() for r, _ in v)
    assert sorted(stats.length_queue) == sorted(n for v in got.values() for _, n in v)
    env.close()


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_async_pool_by_env_id(mode: str, reference: dict[int, list[tuple[float, int, bool]]]) -> None:
    env = envhive.make(
        "CartPole-v1",
        num_envs=4,
        batch_size=2,
        num_threads=2,
        seed=SEED,
        max_episode_steps=MAX_STEPS,
        autoreset_mode=mode,
    )
    stats = envhive.EpisodeStatistics.for_env(env)
    got: dict[int, list[tuple[float, int]]] = {i: [] for i in range(4)}
    env.async_reset()
    for _ in range(4 * (EPISODES * (MAX_STEPS + 1) + 5)):
        obs, reward, terminated, truncated, info = env.recv()
        for episode in stats.update(reward, terminated, truncated, info):
            got[episode.env_id].append((episode.ret, episode.length))
        env.send(policy(obs), info["env_id"])
        if all(len(v) >= EPISODES for v in got.values()):
            break
    check(got, reference)
    env.close()


def test_wrapper_sync_and_async(reference: dict[int, list[tuple[float, int, bool]]]) -> None:
    # envhive.RecordEpisodeStatistics: Gymnasium's info["episode"] / info["_episode"], by env_id.
    for batch_size in (4, 2):
        env = envhive.RecordEpisodeStatistics(
            envhive.make("CartPole-v1", num_envs=4, batch_size=batch_size, seed=SEED, max_episode_steps=MAX_STEPS)
        )
        got: dict[int, list[tuple[float, int]]] = {i: [] for i in range(4)}
        env.async_reset()
        for _ in range(4 * (EPISODES * (MAX_STEPS + 1) + 5)):
            obs, _, _, _, info = env.recv()
            if "episode" in info:
                for row in np.flatnonzero(info["_episode"]):
                    got[int(info["env_id"][row])].append((info["episode"]["r"][row], int(info["episode"]["l"][row])))
            env.send(policy(obs), info["env_id"])
            if all(len(v) >= EPISODES for v in got.values()):
                break
        check(got, reference)
        assert env.episode_count == len(env.return_queue) == sum(len(v) for v in got.values())
        env.close()


@pytest.mark.parametrize("mode", GYM_WRAPPER_MODES)
def test_gymnasium_vector_record_episode_statistics(
    mode: str, reference: dict[int, list[tuple[float, int, bool]]]
) -> None:
    # Gymnasium's own vector wrapper keeps working on a sync pool (it reads metadata["autoreset_mode"]).
    vec = gymnasium.make_vec(
        "envhive/CartPole-v1",
        num_envs=4,
        vectorization_mode="vector_entry_point",
        seed=SEED,
        max_episode_steps=MAX_STEPS,
        autoreset_mode=mode,
    )
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(vec)
    got: dict[int, list[tuple[float, int]]] = {i: [] for i in range(4)}
    obs, _ = env.reset()
    for _ in range(EPISODES * (MAX_STEPS + 1) + 5):
        obs, _, _, _, info = env.step(policy(obs))
        if "episode" in info:
            for row in np.flatnonzero(info["_episode"]):
                got[row].append((float(info["episode"]["r"][row]), int(info["episode"]["l"][row])))
    check(got, reference)
    env.close()


def test_envpool_facade_feeds_statistics(reference: dict[int, list[tuple[float, int, bool]]]) -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=4, batch_size=2, seed=SEED, max_episode_steps=MAX_STEPS)
    stats = envhive.EpisodeStatistics.for_env(env)
    got: dict[int, list[tuple[float, int]]] = {i: [] for i in range(4)}
    env.async_reset()
    for _ in range(4 * (EPISODES * (MAX_STEPS + 1) + 5)):
        obs, reward, terminated, truncated, info = env.recv()
        for episode in stats.update(reward, terminated, truncated, info):
            got[episode.env_id].append((episode.ret, episode.length))
        env.send(policy(obs).astype(np.int32), info["env_id"])
        if all(len(v) >= EPISODES for v in got.values()):
            break
    check(got, reference)
    env.close()


def invaders_games(**kw: Any) -> tuple[list[tuple[float, int]], list[dict[str, Any]]]:
    """Two SpaceInvaders games (3 lives each, rewards 5 to 200) of one env under seeded random
    actions: the statistics' episodes and every step's raw output, for the hand count."""
    env = envhive.make("SpaceInvaders-v5", num_envs=1, seed=5, **kw)
    stats = envhive.EpisodeStatistics.for_env(env)
    rng = np.random.default_rng(0)
    env.reset()
    episodes: list[tuple[float, int]] = []
    steps = []
    while len(episodes) < 2:
        _, reward, terminated, truncated, info = env.step(rng.integers(0, 6, size=1))
        steps.append(
            {
                "reward": float(reward[0]),
                "raw": float(info["reward"][0]),
                "ended": bool(terminated[0] or truncated[0]),
                "game_over": bool(info["terminated"][0] or truncated[0]),
                "elapsed": int(info["elapsed_step"][0]),
                "lives": int(info["lives"][0]),
            }
        )
        episodes += [(e.ret, e.length) for e in stats.update(reward, terminated, truncated, info)]
    env.close()
    return episodes, steps


def test_atari_raw_reward_and_whole_games() -> None:
    clipped, clipped_steps = invaders_games(reward_clip=True, episodic_life=True)
    raw, raw_steps = invaders_games(reward_clip=False, episodic_life=True)
    # reward_clip changes what the agent sees, not the game: same raw rewards, same statistics.
    assert [s["raw"] for s in clipped_steps] == [s["raw"] for s in raw_steps]
    assert clipped == raw
    assert any(s["raw"] > 1 for s in raw_steps), "SpaceInvaders' invaders score 5 to 30"
    assert all(s["reward"] in (0.0, 1.0) for s in clipped_steps)
    # By hand: a game's return is the sum of raw rewards over the agent's steps (not the reset step
    # after each lost life), its length the number of those steps; it ends when the game is over.
    games, ret, length, after_end = [], 0.0, 0, False
    for s in raw_steps:
        if not after_end:
            ret += s["raw"]
            length += 1
        if s["game_over"]:
            games.append((ret, length))
            ret, length = 0.0, 0
        after_end = s["ended"]
    assert raw == games[:2]
    # Each game spans several agent episodes (episodic_life ends one at every lost life).
    lives_lost = sum(s["ended"] and not s["game_over"] for s in raw_steps)
    assert lives_lost == 2 * 2
    assert raw_steps[-1]["game_over"] and raw_steps[-1]["lives"] == 0


def test_atari_agent_episodes_when_asked() -> None:
    # raw_reward_key / game_over_key None: the agent's own (clipped, per-life) episodes.
    env = envhive.make("Breakout-v5", num_envs=1, seed=5, reward_clip=True, episodic_life=True)
    stats = envhive.EpisodeStatistics.for_env(env, raw_reward_key=None, game_over_key=None)
    rng = np.random.default_rng(0)
    env.reset()
    ret, length, after_end, done = 0.0, 0, False, 0
    while done < 3:
        _, reward, terminated, truncated, info = env.step(rng.integers(0, 4, size=1))
        if not after_end:
            ret += float(reward[0])
            length += 1
        ended = bool(terminated[0] or truncated[0])
        episodes = list(stats.update(reward, terminated, truncated, info))
        assert len(episodes) == int(ended)
        if ended:
            assert (episodes[0].ret, episodes[0].length) == (ret, length)
            ret, length, done = 0.0, 0, done + 1
        after_end = ended
    env.close()


def test_bad_input_is_refused() -> None:
    stats = envhive.EpisodeStatistics(2)
    with pytest.raises(ValueError, match="one entry per row"):
        stats.update(np.zeros(2), np.zeros(3, dtype=bool), np.zeros(2, dtype=bool), {})
    with pytest.raises(ValueError, match="without info\\['env_id'\\]"):
        stats.update(np.zeros(1), np.zeros(1, dtype=bool), np.zeros(1, dtype=bool), {})
    with pytest.raises(ValueError, match="outside"):
        stats.update(np.zeros(1), np.zeros(1, dtype=bool), np.zeros(1, dtype=bool), {"env_id": np.array([5])})
    with pytest.raises(ValueError, match="unknown autoreset_mode"):
        envhive.EpisodeStatistics(2, "sometimes")
    with pytest.raises(ValueError, match="positive"):
        envhive.EpisodeStatistics(0)
