"""examples/train/ppo_jax.py learns CartPole with the rollout inside lax.scan over env.xla()."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from examples.train.ppo_jax import Args, train  # noqa: E402


@pytest.mark.learning
def test_ppo_jax_solves_cartpole_within_a_fixed_budget() -> None:
    # Seeded and fixed: 50k env steps (195 updates of 8 envs x 32 steps), then a greedy evaluation
    # on 16 fresh envs for 1000 steps each.
    result = train(Args(seed=1, total_steps=50_000))
    assert result["env_steps"] == 49_920
    assert result["eval_return"] >= 475, result
    assert result["train_return_last_50"] >= 400, result
