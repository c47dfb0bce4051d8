"""SB3's PPO trains unchanged on the agent-flattened view of a multi-agent pool (parameter sharing,
SuperSuit's row order): a short seeded run with a fixed budget on MultiAgentDummy-v0, where a policy
that reads each agent's cue earns 1 per step and a random one 1/3."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")
import torch  # noqa: E402
from stable_baselines3 import PPO  # noqa: E402

from envhive.adapters.sb3_multiagent import make_vec_env  # noqa: E402

TASK = "MultiAgentDummy-v0"


def accuracy(model, venv, steps=10):
    """How often the greedy policy picks each agent's cue, over the rows of agents in play."""
    obs = venv.reset()
    correct = []
    for _ in range(steps):
        actions, _ = model.predict(obs, deterministic=True)
        live = obs[:, :3].sum(1) > 0  # rows of agents in play hold their one-hot cue (others: zeros)
        correct.append((actions == obs[:, :3].argmax(1))[live])
        obs, reward, dones, infos = venv.step(actions)
    return float(np.concatenate(correct).mean())


@pytest.mark.learning
def test_ppo_learns_on_the_flattened_view():
    """~8 s on 2 cores: 6,144 agent steps of PPO (12 rows, n_steps 64)."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    venv = make_vec_env(TASK, num_envs=4, same_spaces=True, leave_after=[6, 8, 10], seed=0)
    assert venv.num_envs == 12
    model = PPO("MlpPolicy", venv, n_steps=64, batch_size=128, n_epochs=4, learning_rate=3e-3, seed=0, verbose=0)
    before = accuracy(model, venv)
    model.learn(6144)
    after = accuracy(model, venv)
    assert before < 0.6 and after > 0.9, (before, after)
    venv.close()


@pytest.mark.learning
def test_the_cleanrl_style_example_runs():
    """examples/ppo_simple_spread.py, 8 updates on mpe2 in worker processes: ~5 s on an idle 2-core
    machine, up to ~17 s under load (most of it a fresh interpreter importing torch)."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "examples" / "ppo_simple_spread.py"
    args = ["--num-envs", "2", "--num-steps", "64", "--total-timesteps", str(8 * 6 * 64)]
    out = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = [line for line in out.stdout.splitlines() if line.startswith("update ")]
    assert lines and lines[-1].startswith("update 8: mean agent return -"), out.stdout[-500:]
