"""rl_games on envhive: the ENVHIVE vecenv type (same-step, time_outs, scores) and Runner PPO."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from rl_games.common import env_configurations, vecenv
from rl_games.common.algo_observer import DefaultAlgoObserver
from rl_games.torch_runner import Runner

import envhive
from envhive.adapters import rl_games as hive_rl_games
from envhive.bench.engines.ppo import rl_games_ppo_params
from helpers import docs_snippet, run_snippet


def make(num_actors: int, **env_config) -> hive_rl_games.RlGamesVecEnv:
    hive_rl_games.register()
    return vecenv.create_vec_env("envhive", num_actors, **env_config)


def test_register_adds_vecenv_type_and_env_configuration() -> None:
    assert hive_rl_games.register() == "envhive"
    assert env_configurations.configurations["envhive"]["vecenv_type"] == "ENVHIVE"
    assert "ENVHIVE" in vecenv.vecenv_config
    with pytest.raises(NotImplementedError, match="use_vecenv"):
        env_configurations.configurations["envhive"]["env_creator"](env_name="CartPole-v1")
    env = make(4, env_name="CartPole-v1", seed=3)
    info = env.get_env_info()
    assert info["observation_space"] == envhive.make_spec("CartPole-v1").observation_space
    assert info["agents"] == 1 and info["value_size"] == 1 and info["autoreset_mode"] == "same_step"


def test_same_step_rows_time_outs_and_scores() -> None:
    """Every row is a real transition (no NEXT_STEP filler); time_outs and scores as rl_games reads them."""
    n = 3
    env = make(n, env_name="Pendulum-v1", seed=1, max_episode_steps=50)
    ref = envhive.make("Pendulum-v1", num_envs=n, seed=1, max_episode_steps=50, autoreset_mode="same_step")
    np.testing.assert_array_equal(env.reset(), ref.reset()[0])
    returns = np.zeros(n)
    rng = np.random.default_rng(0)
    for t in range(1, 121):
        a = rng.uniform(-2, 2, size=(n, 1)).astype(np.float32)
        obs, rew, done, info = env.step(a)
        robs, rrew, rterm, rtrunc, rinfo = ref.step(a)
        np.testing.assert_array_equal(obs, robs)
        np.testing.assert_array_equal(rew, rrew)
        assert np.all(rew != 0.0)  # Pendulum's reward is never 0: no filler rows
        returns += rew
        np.testing.assert_allclose(info["scores"], returns)
        np.testing.assert_array_equal(done, t % 50 == 0)
        np.testing.assert_array_equal(info["time_outs"], t % 50 == 0)
        np.testing.assert_array_equal(info["elapsed_step"], np.full(n, 50 if t % 50 == 0 else t % 50))
        returns[done] = 0.0


def test_terminal_infos_for_ended_envs() -> None:
    """Atari: the terminal step's infos on envs whose game ended (lives 0, as rl_games' observer expects)."""
    env = make(2, env_name="Pong-v5", seed=0, max_episode_steps=40)
    env.reset()
    obs, rew, done, info = None, None, np.zeros(2, bool), {}
    for _ in range(40):
        obs, rew, done, info = env.step(np.zeros(2, dtype=np.int64))
    assert done.all() and info["time_outs"].all() and np.all(info["elapsed_step"] == 40)
    assert info["lives"].dtype == np.int32 and obs.dtype == np.uint8


def test_bad_use_gets_clear_errors() -> None:
    with pytest.raises(ValueError, match="SAME_STEP.*autoreset_mode='next_step'"):
        make(2, env_name="CartPole-v1", autoreset_mode="next_step")
    with pytest.raises(ValueError, match="async pool.*drop batch_size"):
        make(4, env_name="CartPole-v1", batch_size=2)
    with pytest.raises(ValueError, match="needs 'env_name'"):
        make(2)


class ReturnLog(DefaultAlgoObserver):
    """Mean training return (of the last episodes rl_games tracks) after every epoch."""

    def __init__(self) -> None:
        super().__init__()
        self.returns: list[float] = []

    def after_print_stats(self, frame: int, epoch_num: int, total_time: float) -> None:
        super().after_print_stats(frame, epoch_num, total_time)
        if self.algo.game_rewards.current_size > 0:
            self.returns.append(float(np.ravel(self.algo.game_rewards.get_mean())[0]))


def cartpole_params(train_dir: str, max_epochs: int) -> dict:
    """rl_games' own ppo_cartpole.yaml, on envhive, CPU, seeded, without torch.compile (the
    benchmark's configuration, with the yaml's learning rate, minibatch and score to win)."""
    params = rl_games_ppo_params("envhive", {"env_name": "CartPole-v1"}, num_actors=16, seed=1)
    # (seed 1: rl_games seeds nothing for seed 0, which it reads as false; the pool would draw OS entropy)
    params["params"]["config"].update(
        name="cartpole_envhive",
        learning_rate=1e-3,
        score_to_win=450,
        minibatch_size=128,
        save_best_after=10,
        max_epochs=max_epochs,
        train_dir=train_dir,
    )
    return params


@pytest.fixture
def one_torch_thread():
    """Small networks on a loaded 2-core machine: one torch thread (no spinning thread pool)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.learning
def test_runner_trains_ppo_on_cartpole(tmp_path, one_torch_thread) -> None:
    hive_rl_games.register()
    log = ReturnLog()
    runner = Runner(algo_observer=log)
    runner.load(cartpole_params(str(tmp_path), max_epochs=150))
    runner.run({"train": True, "play": False})
    assert len(log.returns) >= 140
    assert log.returns[0] < 40 and log.returns[-1] >= 150, (log.returns[0], log.returns[-1])


def test_player_plays_a_checkpoint_through_the_vecenv(tmp_path, capsys, one_torch_thread) -> None:
    """rl_games' player (``play: True``) with ``use_vecenv``: it restores a checkpoint and plays
    whole episodes on the ENVHIVE vecenv; CartPole pays 1 per step, so the average return it
    reports equals the average episode length it counted (rewards and dones line up row by row)."""
    hive_rl_games.register()
    params = cartpole_params(str(tmp_path), max_epochs=2)
    runner = Runner()
    runner.load(params)
    runner.run({"train": True, "play": False})
    checkpoints = sorted(tmp_path.rglob("*.pth"))
    assert checkpoints, list(tmp_path.rglob("*"))
    params["params"]["config"]["player"] = {"use_vecenv": True, "games_num": 12, "deterministic": True}
    params["params"]["config"]["num_actors"] = 4
    params["params"]["config"]["device_name"] = "cpu"  # the player defaults to cuda
    player_runner = Runner()
    player_runner.load(params)
    capsys.readouterr()
    player_runner.run({"train": False, "play": True, "checkpoint": str(checkpoints[-1])})
    out = capsys.readouterr().out
    found = re.search(r"av reward: ([0-9.]+) av steps: ([0-9.]+)", out)
    assert found, out[-2000:]
    reward, steps = float(found.group(1)), float(found.group(2))
    assert steps >= 8 and reward == pytest.approx(steps), (reward, steps)
    assert "Creating vecenv" in out


@pytest.mark.learning
def test_documented_snippet_runs_as_written_on_cpu(tmp_path, monkeypatch, capsys, one_torch_thread) -> None:
    """docs/integrations.md's rl_games snippet -- rl_games' own ppo_cartpole.yaml as it ships, whose
    device is 'cuda' -- trains on the CPU torch envhive pins; run as written but for 3 epochs, not 100."""
    code = docs_snippet("integrations.md", "rl_games")
    assert "cuda" in code
    monkeypatch.chdir(tmp_path)  # rl_games writes runs/ under the working directory
    run_snippet(code, ('config["max_epochs"] = 100', 'config["max_epochs"] = 3'))
    out = capsys.readouterr().out
    assert "epoch: 3/3" in out and "MAX EPOCHS NUM!" in out, out[-2000:]
    assert list(tmp_path.rglob("*.pth"))


def test_env_error_reaches_rl_games_and_the_vecenv_stays_usable() -> None:
    env = make(3, env_name="Dummy-v0", episode_length=0, fail_env=2, fail_step=1)
    env.reset()
    with pytest.raises(envhive.EnvError, match="env 2 raised"):
        env.step(np.zeros(3, dtype=np.int64))
    _, _, done, info = env.step(np.zeros(3, dtype=np.int64))
    np.testing.assert_array_equal(info["elapsed_step"], [2, 2, 0])
    assert not done.any()
