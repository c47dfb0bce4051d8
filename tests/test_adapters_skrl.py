"""skrl 2.1 on envhive, unchanged: skrl's own Gymnasium wrapper takes an envhive pool as a vector env
(one env's spaces, batched torch tensors, seeded by skrl), and its PPO trains on it."""

from __future__ import annotations

import atexit

import numpy as np
import pytest
import torch
from skrl.agents.torch.ppo import PPO, PPO_CFG
from skrl.envs.wrappers.torch import wrap_env
from skrl.memories.torch import RandomMemory
from skrl.trainers.torch import SequentialTrainer, SequentialTrainerCfg
from skrl.utils import set_seed
from skrl.utils.model_instantiators.torch import categorical_model, deterministic_model

import envhive
from helpers import docs_snippet, run_snippet


def test_gymnasium_wrapper_takes_a_pool_as_a_vector_env() -> None:
    set_seed(5)
    pool = envhive.make("Pendulum-v1", num_envs=3, autoreset_mode="same_step")
    env = wrap_env(pool, wrapper="gymnasium")
    assert type(env).__name__ == "GymnasiumWrapper" and env.num_envs == 3
    assert env.observation_space == pool.single_observation_space and env.action_space == pool.single_action_space
    obs, _ = env.reset()
    want, _ = envhive.make("Pendulum-v1", num_envs=3, seed=5).reset()  # skrl's seed: env i gets 5 + i
    np.testing.assert_array_equal(obs.numpy(), want)
    ref = envhive.make("Pendulum-v1", num_envs=3, seed=5, autoreset_mode="same_step")
    ref.reset()
    for t in range(1, 201):
        actions = torch.full((3, 1), 0.5 * np.sin(t))
        obs, reward, terminated, truncated, _ = env.step(actions)
        robs, rreward, _, rtruncated, _ = ref.step(actions.numpy())
        np.testing.assert_array_equal(obs.numpy(), robs)
        np.testing.assert_array_equal(reward.numpy()[:, 0], rreward.astype(np.float32))
        assert obs.dtype == torch.float32 and reward.shape == terminated.shape == truncated.shape == (3, 1)
        np.testing.assert_array_equal(truncated.numpy()[:, 0], rtruncated)
    assert truncated.all()  # Pendulum's 200-step limit, in the same step for every env
    env.close()


@pytest.mark.learning
def test_ppo_trains_on_cartpole() -> None:
    """skrl's PPO and SequentialTrainer on a SAME_STEP pool (skrl records every step as a transition
    and never resets a vector env itself): a fixed seed lifts the mean return of the last 20
    episodes well above the first 20 within 8k steps."""
    torch.set_num_threads(1)
    set_seed(0)
    pool = envhive.RecordEpisodeStatistics(
        envhive.make("CartPole-v1", num_envs=8, autoreset_mode="same_step"), buffer_length=10_000
    )
    env = wrap_env(pool, wrapper="gymnasium")
    spaces = {"observation_space": env.observation_space, "state_space": env.state_space}
    spaces["action_space"] = env.action_space
    net = [{"name": "net", "input": "OBSERVATIONS", "layers": [64, 64], "activations": "tanh"}]
    models = {
        "policy": categorical_model(device=env.device, network=net, output="ACTIONS", **spaces),
        "value": deterministic_model(device=env.device, network=net, output="ONE", **spaces),
    }
    for role, model in models.items():
        model.init_state_dict(role=role)
    cfg = PPO_CFG(
        rollouts=64, learning_epochs=4, mini_batches=4, learning_rate=3e-3, entropy_loss_scale=0.01,
        time_limit_bootstrap=True,
    )  # fmt: skip
    cfg.experiment.write_interval = 0
    cfg.experiment.checkpoint_interval = 0
    memory = RandomMemory(memory_size=64, num_envs=env.num_envs, device=env.device)
    agent = PPO(models=models, memory=memory, cfg=cfg, device=env.device, **spaces)
    trainer_cfg = SequentialTrainerCfg(
        timesteps=1000, headless=True, disable_progressbar=True, close_environment_at_exit=False
    )
    SequentialTrainer(cfg=trainer_cfg, env=env, agents=agent).train()
    returns = list(pool.return_queue)
    rewards = memory.get_tensor_by_name("rewards")
    env.close()
    assert torch.all(rewards == 1.0)  # CartPole pays 1 a step: no NEXT_STEP filler row (reward 0) was recorded
    first, last = np.mean(returns[:20]), np.mean(returns[-20:])
    assert len(returns) > 60 and first < 40 and last > 100, (first, last)


@pytest.mark.learning
def test_documented_example_runs(tmp_path, monkeypatch) -> None:
    """docs/integrations.md's skrl example, as written but for 200 timesteps."""
    torch.set_num_threads(1)
    monkeypatch.chdir(tmp_path)  # skrl writes its runs/ under the working directory
    monkeypatch.setattr(atexit, "register", lambda fn: fn)  # the trainer's close-at-exit: closed here instead
    scope = run_snippet(docs_snippet("integrations.md", "skrl"), ("timesteps=1000", "timesteps=200"))
    assert scope["env"].num_envs == 8 and len(scope["agent"].memory.get_tensor_by_name("rewards")) == 64
    scope["env"].close()
