"""envhive's C++ RandomState (csrc/core/random_state.h) reproduces numpy's legacy
numpy.random.RandomState bit for bit: MT19937 seeding and the draws dm_control's suite makes."""

from __future__ import annotations

import numpy as np
import pytest

_dmc = pytest.importorskip("envhive._mujoco")  # the DMC family's test hooks

SEEDS = [0, 1, 7, 42, 12345, 2**31 - 1, 2**32 - 1]


def _numpy_draws(seed: int, calls: list[tuple[str, float, float, int]]) -> list[float]:
    rs = np.random.RandomState(seed)
    out: list[float] = []
    for method, a, b, n in calls:
        for _ in range(n):
            if method == "random_sample":
                out.append(rs.random_sample())
            elif method == "uniform":
                out.append(rs.uniform(a, b))
            elif method == "standard_normal":
                out.append(rs.standard_normal())
            elif method == "randint":
                out.append(float(rs.randint(int(a), int(b))))
            elif method == "next_u32":
                out.append(float(rs.randint(0, 2**32, dtype=np.uint64)))
    return out


MIXED = [
    ("random_sample", 0, 0, 3),
    ("standard_normal", 0, 0, 5),  # odd: the cached second value carries over
    ("uniform", -np.pi, np.pi, 4),
    ("standard_normal", 0, 0, 2),
    ("uniform", 0.05, 0.2, 3),
    ("randint", 0, 5, 7),
    ("randint", -3, 3, 4),
    ("randint", 0, 2**32, 2),
    ("randint", 0, 2**40, 3),
    ("randint", 7, 8, 2),  # a range of one value draws nothing
    ("standard_normal", 0, 0, 1),
    ("random_sample", 0, 0, 700),  # past one MT19937 block (624 words)
    ("standard_normal", 0, 0, 3),
]


@pytest.mark.parametrize("seed", SEEDS)
def test_mixed_draws_equal_numpy(seed: int) -> None:
    calls = list(MIXED)
    assert _dmc._random_state_draws(seed, calls) == _numpy_draws(seed, calls)


@pytest.mark.parametrize("seed", [0, 3, 2**32 - 1])
def test_raw_words_equal_numpy(seed: int) -> None:
    # numpy's randint over the full 32-bit range is the raw MT19937 stream.
    ours = _dmc._random_state_draws(seed, [("next_u32", 0, 0, 2000)])
    assert ours == np.random.RandomState(seed).randint(0, 2**32, size=2000, dtype=np.uint64).astype(float).tolist()


@pytest.mark.parametrize("seed", [0, 11])
def test_shuffle_positions_equal_numpy(seed: int) -> None:
    # Shuffling [0, 1] swaps x[1] with x[interval(1)]: the outcome shows each draw.
    rs = np.random.RandomState(seed)
    expected = []
    for _ in range(50):
        x = np.arange(2)
        rs.shuffle(x)
        expected.append(float(x[0]))  # x[0] == 1 iff interval(1) == 0
    ours = _dmc._random_state_draws(seed, [("interval", 1, 0, 50)])
    assert [1.0 - v for v in ours] == expected


def test_seed_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="2\\*\\*32"):
        _dmc._random_state_draws(2**32, [("random_sample", 0, 0, 1)])
