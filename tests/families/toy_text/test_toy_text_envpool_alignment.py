"""EnvPool's own toy-text tasks, Catch-v0 (bsuite's catch) and NChain-v0 (gym 0.20's nchain): they
have no Gymnasium reference, EnvPool 1.2.5's C++ defines them. Checked step for step against a
reference written here from that definition -- std::mt19937 seeded with seed + env id (numpy's
MT19937 with its legacy init_genrand seeding is the same generator), libstdc++'s
uniform_int_distribution (Lemire's nearly divisionless reduction of 32-bit draws) and
generate_canonical -- and, where EnvPool 1.2.5 is installed, against EnvPool itself. Everything is
exact (integers and the float32 board)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import envhive
import envhive.envpool as hive_envpool


class Mt19937:
    """std::mt19937(seed): numpy's MT19937 seeded as init_genrand(seed mod 2**32)."""

    def __init__(self, seed: int) -> None:
        self.bits = np.random.MT19937()
        self.bits._legacy_seeding(seed % 2**32)

    def __call__(self) -> int:
        return int(self.bits.random_raw())

    def uniform_int(self, low: int, high: int) -> int:
        """std::uniform_int_distribution<int>(low, high)(gen), libstdc++ (GCC >= 11)."""
        span = high - low + 1
        product = self() * span
        if product % 2**32 < span:
            threshold = (2**32 - span) % span
            while product % 2**32 < threshold:
                product = self() * span
        return low + (product >> 32)

    def canonical(self) -> float:
        """std::generate_canonical<double, 53>(gen): two draws, (g1 + g2 * 2**32) / 2**64."""
        total = float(self()) + float(self()) * 2.0**32
        value = total / 2.0**64
        return value if value < 1.0 else float(np.nextafter(1.0, 0.0))


class CatchReference:
    def __init__(self, seed: int, height: int = 10, width: int = 5) -> None:
        self.gen, self.h, self.w = Mt19937(seed), height, width

    def obs(self) -> np.ndarray:
        board = np.zeros((self.h, self.w), np.float32)
        board[self.row, self.col] = 1
        board[self.h - 1, self.paddle] = 1
        return board

    def reset(self) -> np.ndarray:
        self.row, self.col, self.paddle = 0, self.gen.uniform_int(0, self.w - 1), self.w // 2
        return self.obs()

    def step(self, action: int) -> tuple[np.ndarray, float, bool]:
        self.paddle = min(max(self.paddle + action - 1, 0), self.w - 1)
        self.row += 1
        done = self.row == self.h - 1
        return self.obs(), (1.0 if self.col == self.paddle else -1.0) if done else 0.0, done


class NChainReference:
    def __init__(self, seed: int) -> None:
        self.gen = Mt19937(seed)

    def reset(self) -> int:
        self.s = 0
        return self.s

    def step(self, action: int) -> tuple[int, float, bool]:
        if self.gen.canonical() < 0.2:
            action = 1 - action
        if action:
            self.s, reward = 0, 2.0
        elif self.s < 4:
            self.s, reward = self.s + 1, 0.0
        else:
            reward = 10.0
        return self.s, reward, False


def _lockstep(env: Any, refs: list[Any], steps: int, n_actions: int, seed: int) -> int:
    """Both NEXT_STEP: after an episode ends the next step resets (its action ignored)."""
    obs, _ = env.reset()
    np.testing.assert_array_equal(obs, np.stack([r.reset() for r in refs]))
    rng = np.random.default_rng(seed)
    ended = np.zeros(len(refs), bool)
    episodes = 0
    for t in range(steps):
        actions = rng.integers(0, n_actions, size=len(refs))
        obs, reward, terminated, truncated, _ = env.step(actions)
        for i, ref in enumerate(refs):
            if ended[i]:
                want, want_r, want_done = ref.reset(), 0.0, False
            else:
                want, want_r, want_done = ref.step(int(actions[i]))
            np.testing.assert_array_equal(obs[i], want, err_msg=f"step {t} env {i}")
            assert reward[i] == want_r and bool(terminated[i]) == want_done, (t, i, reward[i], want_r)
            ended[i] = want_done or bool(truncated[i])
            episodes += ended[i]
    return episodes


@pytest.mark.parametrize("size", [(10, 5), (4, 7), (2, 1)])
def test_catch_matches_envpools_definition(size: tuple[int, int]) -> None:
    h, w = size
    env = envhive.make("Catch-v0", num_envs=3, seed=11, height=h, width=w)
    assert env.single_observation_space.shape == (h, w) and env.single_observation_space.dtype == np.float32
    episodes = _lockstep(env, [CatchReference(11 + i, h, w) for i in range(3)], 60, 3, seed=1)
    assert episodes >= 3 * (60 // h) - 3
    env.close()


def test_nchain_matches_envpools_definition_and_truncates_at_1000() -> None:
    env = envhive.make("NChain-v0", num_envs=2, seed=5)
    assert env.single_observation_space.n == 5 and env.single_action_space.n == 2
    assert _lockstep(env, [NChainReference(5 + i) for i in range(2)], 200, 2, seed=2) == 0
    env.close()
    env = envhive.make("NChain-v0", num_envs=1, seed=0)
    env.reset()
    steps = 0
    while True:
        steps += 1
        *_, terminated, truncated, _ = env.step(np.zeros(1, np.int64))
        if truncated[0] or terminated[0]:
            break
    assert steps == 1000 and not terminated[0]
    env.close()


def test_catch_and_nchain_through_envhive_envpool_as_envpools_tests_use_them() -> None:
    """EnvPool's toy_text_test: a paddle that follows the ball always catches it (reward 1 at the
    last row), and NChain's random policy earns ~1310 in its 1000 steps."""
    env = hive_envpool.make("Catch-v0", env_type="gymnasium", num_envs=4)
    obs, _ = env.reset()
    assert obs.shape == (4, 10, 5)
    ball = np.where(obs[:, 0] == 1)[1]
    for t in range(9):
        paddle = np.where(obs[:, -1] == 1)[1]
        obs, rew, term, trunc, _ = env.step(np.sign(ball - paddle) + 1)
        assert np.all(rew == (1 if t == 8 else 0)) and np.all(term == (t == 8))
    env.close()
    env = hive_envpool.make_gymnasium("NChain-v0", num_envs=32)
    env.reset()
    total = np.zeros(32)
    rng = np.random.default_rng(0)
    for _ in range(1000):
        _, rew, term, trunc, _ = env.step(rng.integers(2, size=32))
        total += rew
    assert trunc.all() and abs(total.mean() - 1310) < 30, total.mean()
    env.close()


@pytest.mark.parametrize("task_id", ["Catch-v0", "NChain-v0"])
def test_matches_envpool_itself(task_id: str) -> None:
    envpool = pytest.importorskip("envpool")
    n_actions = 3 if task_id == "Catch-v0" else 2
    ours = hive_envpool.make_gymnasium(task_id, num_envs=3, seed=7)
    theirs = envpool.make_gymnasium(task_id, num_envs=3, seed=7)
    np.testing.assert_array_equal(ours.reset()[0], theirs.reset()[0])
    rng = np.random.default_rng(3)
    for t in range(300):
        actions = rng.integers(0, n_actions, size=3).astype(np.int32)
        a, b = ours.step(actions), theirs.step(actions)
        for k in range(4):
            np.testing.assert_array_equal(a[k], b[k], err_msg=f"{task_id} step {t} output {k}")
    ours.close()
    theirs.close()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"height": 1}, r"height must be in \[2, 4096\]"),
        ({"width": 0}, r"width must be in \[1, 4096\]"),
        ({"height": 10**9}, r"height must be in \[2, 4096\]"),
        ({"width": -3}, r"width must be in \[1, 4096\]"),
    ],
)
def test_catch_bad_sizes(kwargs: dict[str, int], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        envhive.make("Catch-v0", **kwargs)
    with pytest.raises(TypeError, match="height"):
        envhive.make("Catch-v0", height=2.5)
