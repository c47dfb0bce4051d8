"""envhive's C++ PCG64/SeedSequence reproduces numpy's default generator bit for bit."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import envhive

SEEDS = [0, 1, 7, 42, 12345, 2**31 - 1, 2**32 - 1, 2**32, 2**32 + 1, 2**48 + 17, 2**63 - 1, 2**63, 2**64 - 1]


def _numpy(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))


@pytest.mark.parametrize("seed", SEEDS)
def test_cartpole_reset_equals_numpy_and_gymnasium(seed: int) -> None:
    env = envhive.make("CartPole-v1", num_envs=1, seed=seed)
    obs = env.reset()[0][0]
    expected = _numpy(seed).uniform(low=-0.05, high=0.05, size=(4,)).astype(np.float32)
    np.testing.assert_array_equal(obs, expected)
    ref = gymnasium.make("CartPole-v1")
    np.testing.assert_array_equal(obs, ref.reset(seed=seed)[0])
    # The second episode continues the same stream.
    np.testing.assert_array_equal(env.reset()[0][0], ref.reset()[0])


@pytest.mark.parametrize("seed", SEEDS)
def test_uniform_draws_equal_numpy_float64(seed: int) -> None:
    # Dummy-v0 reports its reset draw, uniform(0, 1), as a float64: a direct check of random().
    env = envhive.make("Dummy-v0", num_envs=1, seed=seed)
    gen = _numpy(seed)
    draws = [env.reset()[0][0, 0] for _ in range(20)]
    assert draws == gen.uniform(0.0, 1.0, size=20).tolist()


def test_reseeding_through_reset_uses_the_same_mapping() -> None:
    env = envhive.make("Dummy-v0", num_envs=3, seed=0)
    env.reset()
    obs, _ = env.reset(seed=[2**64 - 1, 5, 2**40])
    assert obs[:, 0].tolist() == [_numpy(s).uniform(0.0, 1.0) for s in (2**64 - 1, 5, 2**40)]


def test_vector_seed_plus_index_near_the_top() -> None:
    # seed + i must stay below 2**64 for every env.
    top = 2**64 - 3
    env = envhive.make("Dummy-v0", num_envs=3, seed=top)
    assert env.reset()[0][:, 0].tolist() == [_numpy(top + i).uniform(0.0, 1.0) for i in range(3)]
    with pytest.raises(ValueError, match="2\\*\\*64"):
        envhive.make("Dummy-v0", num_envs=4, seed=top)


def _numpy_program(gen: np.random.Generator, program: list[tuple[int, int, int]]) -> list[float]:
    out: list[float] = []
    for op, a, b in program:
        if op == 0:
            out.append(float(gen.integers(a, b)))
        elif op == 1:
            out.append(gen.random())
        else:
            items = list(range(a))
            gen.shuffle(items)
            out.extend(float(v) for v in items)
    return out


# Ranges on both sides of numpy's 32-bit path (2**32 values: the unbounded 32-bit draw; one value:
# no draw at all), random() between them (it leaves a kept 32-bit half in place), shuffles.
PROGRAMS = {
    "small": [(0, 0, 2), (0, 0, 7), (0, -5, 3), (0, 3, 4), (0, 0, 6), (0, 1, 1000)] * 4,
    "interleaved": [(0, 0, 5), (1, 0, 0), (0, 0, 5), (0, 0, 5), (1, 0, 0), (0, 0, 9)] * 3,
    "wide": [(0, 0, 2**32), (0, 0, 2**32 - 1), (0, 0, 2**32 + 5), (0, -(2**40), 2**40), (0, 7, 2**31 + 7), (0, 0, 3)],
    "shuffles": [(2, 5, 0), (0, 0, 4), (2, 1, 0), (2, 12, 0), (1, 0, 0), (2, 3, 0)],
}


@pytest.mark.parametrize("name", list(PROGRAMS))
@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_integers_and_shuffle_equal_numpy(name: str, seed: int) -> None:
    program = PROGRAMS[name]
    gen = _numpy(seed)
    want = _numpy_program(gen, program)
    want += _numpy_program(gen, program)  # a second reset continues the stream
    flat = [float(v) for triple in program for v in triple]
    env = envhive.make("RngDraws-v0", num_envs=1, seed=seed, program=flat, outputs=len(want) // 2)
    draws = env.reset()[0][0].tolist() + env.reset()[0][0].tolist()
    env.close()
    assert draws == want
