"""A Python-written task's own ``discount`` info lowers dm_env discounts, whatever its dtype;
one that is not a number per env is refused by both dm facades."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

import envhive
import envhive.dm
from envhive.authoring import PyEnv, compile_env

FIRST, MID, LAST = 0, 1, 2


pytestmark = pytest.mark.usefixtures("fresh_compile_cache")


class HalvingCounter(PyEnv):
    """Counts its steps; every third step reports discount 0.5 (a float64 info), the fifth ends."""

    id = "tests/HalvingCounter-v0"
    observation_space = spaces.Box(0.0, 100.0, shape=(1,), dtype=np.float32)
    action_space = spaces.Discrete(2)
    state = {"t": float, "discount": float}
    infos = ("discount",)

    @staticmethod
    def reset(s, rand):  # noqa: ANN001, ANN205
        s.t = 0.0
        s.discount = 1.0

    @staticmethod
    def step(s, action):  # noqa: ANN001, ANN205
        s.t += 1.0
        s.discount = 0.5 if s.t % 3.0 == 0.0 else 1.0
        return 1.0, s.t >= 5.0

    @staticmethod
    def observe(s, obs):  # noqa: ANN001, ANN205
        obs[0] = s.t


class PairDiscount(PyEnv):
    """A 'discount' info of two numbers per env: not a discount dm_env can apply."""

    id = "tests/PairDiscount-v0"
    observation_space = spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
    action_space = spaces.Discrete(2)
    state = {"discount": (2,)}
    infos = ("discount",)

    @staticmethod
    def reset(s, rand):  # noqa: ANN001, ANN205
        s.discount[0] = 1.0

    @staticmethod
    def step(s, action):  # noqa: ANN001, ANN205
        return 0.0, False

    @staticmethod
    def observe(s, obs):  # noqa: ANN001, ANN205
        obs[0] = 0.0


def test_a_float64_discount_info_lowers_the_native_discount() -> None:
    env = envhive.make_dm(HalvingCounter, num_envs=2)
    assert env.task_spec.info_fields["discount"] == (np.dtype(np.float64), ())
    env.reset()
    got = []
    for _ in range(7):
        ts = env.step(np.zeros(2, dtype=np.int64))
        assert ts.discount.dtype == np.float32
        got.append((int(ts.step_type[0]), float(ts.discount[0]), int(ts.step_type[1]), float(ts.discount[1])))
    # steps 1-5 of the first episode (3: discount 0.5, 5: terminated), then FIRST, then step 1.
    column = [(MID, 1.0), (MID, 1.0), (MID, 0.5), (MID, 1.0), (LAST, 0.0), (FIRST, 1.0), (MID, 1.0)]
    assert got == [(t, d, t, d) for t, d in column]
    env.close()


def test_a_discount_info_that_is_not_one_number_per_env_is_refused() -> None:
    with pytest.raises(ValueError, match=r"'discount' info has shape \(2,\)"):
        envhive.make_dm(PairDiscount, num_envs=2)
    with pytest.raises(ValueError, match=r"'discount' info has shape \(2,\)"):
        envhive.dm.HiveSingleDmEnv(compile_env(PairDiscount))
