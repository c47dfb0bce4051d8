"""The CleanRL-style PPO examples in examples/train/ learn, and their loops run on every pool mode.

ppo_classic trains CartPole to a mean return of 475 within a fixed, seeded step budget (a learning
test: no wall-clock condition; the time it takes is reported by benchmarks/train_ppo.py). ppo_atari
(async send/recv) and ppo_mujoco (continuous actions, normalisation) run short smoke trainings whose
losses must stay finite and whose episodes must be reported.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from examples.train import ppo_atari, ppo_classic, ppo_mujoco  # noqa: E402

# The step budget of the learning test (the seeded run reaches 475 well before it, see the test).
CLASSIC_BUDGET = 300_000


def _finite(losses: list[dict[str, float]]) -> bool:
    return bool(losses) and all(math.isfinite(v) for row in losses for v in row.values())


@pytest.mark.learning
def test_ppo_classic_reaches_475_on_cartpole():
    args = ppo_classic.Args(seed=1, total_timesteps=CLASSIC_BUDGET, target_return=475.0, log_every=0)
    result = ppo_classic.train(args)
    assert result.reached_target, f"mean return {result.mean_return:.1f} after {result.global_step} steps"
    assert result.mean_return >= 475.0
    assert result.global_step <= CLASSIC_BUDGET
    assert _finite(result.losses)
    # The curve is the run's: steps grow by one rollout per iteration, returns are episode means.
    steps = [s for s, _, _ in result.history]
    assert steps == [args.num_envs * args.num_steps * (i + 1) for i in range(len(steps))]
    assert all(0 < r <= 500 for _, _, r in result.history if not math.isnan(r))


def test_ppo_classic_cli_parses_every_flag_and_runs():
    flags = "--total-timesteps 1024 --num-envs 8 --no-anneal-lr --target-return none --log-every 0"
    args = ppo_classic.parse_args(flags.split())
    assert args.total_timesteps == 1024 and args.num_envs == 8
    assert args.anneal_lr is False and args.target_return is None
    assert ppo_classic.parse_args([]) == ppo_classic.Args()
    result = ppo_classic.train(args)
    assert result.global_step == 1024 and not result.reached_target
    assert result.episodes > 0  # a random CartPole policy ends episodes within ~20 steps
    assert _finite(result.losses)
    assert ppo_classic.main(["--total-timesteps", "1024", "--log-every", "0"]) == 0


@pytest.mark.parametrize(("num_envs", "batch_size"), [(6, 3), (4, 4)], ids=["async", "sync"])
def test_ppo_atari_smoke(num_envs, batch_size):
    """The send/recv loop on an async pool (3 of 6 envs per recv) and on a sync pool (recv of all)."""
    args = ppo_atari.Args(
        num_envs=num_envs,
        batch_size=batch_size,
        num_steps=16,
        total_timesteps=16 * batch_size * 3,
        max_episode_steps=20,  # short games, so that episodes end within the smoke run
        num_minibatches=2,
        update_epochs=1,
        log_every=0,
    )
    result = ppo_atari.train(args)
    assert result.global_step == 16 * batch_size * 3
    assert _finite(result.losses)
    # Games are cut at 20 steps, so episodes end in the run; their returns are raw Pong scores. In sync
    # mode every env steps 48 times: two episodes each. In async mode which envs come back first is
    # up to the threads, so only "some" is certain.
    assert result.episodes >= (2 * num_envs if batch_size == num_envs else 1)
    assert -20.0 <= result.mean_return <= 20.0
    # The loss sees real transitions whose result came back: not the final-observation rows (at most one
    # per env per rollout here, where an env gets at most 16 rows of a rollout and games last 20 steps)
    # and not the rows still in flight when the rollout ends (one per env).
    rows = 16 * batch_size
    for row in result.losses:
        assert rows - 2 * num_envs <= row["trained_rows"] <= rows


def test_ppo_mujoco_smoke():
    args = ppo_mujoco.Args(
        num_envs=4,
        num_steps=32,
        total_timesteps=4 * 32 * 3,
        max_episode_steps=25,
        num_minibatches=4,
        update_epochs=2,
        log_every=0,
    )
    result = ppo_mujoco.train(args)
    assert result.global_step == 4 * 32 * 3
    assert _finite(result.losses)
    assert result.episodes >= 4 * 3  # 96 steps per env, episodes of 25
    # Episode returns are the raw rewards (normalisation is for the agent only): a random
    # HalfCheetah loses a few tenths per step to its control cost and drifts a little.
    assert -50.0 < result.mean_return < 50.0


def test_running_mean_std_matches_numpy():
    rng = np.random.default_rng(0)
    data = rng.normal(3.0, 2.0, size=(1000, 5))
    rms = ppo_mujoco.RunningMeanStd((5,))
    for chunk in np.array_split(data, 7):
        rms.update(chunk)
    np.testing.assert_allclose(rms.mean, data.mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(rms.var, data.var(axis=0), rtol=1e-5)
