"""Parameter-shared PPO on MPE's simple_spread_v3 through envhive's agent-flattened view, in one
file (CleanRL's ppo.py as SuperSuit users run it on PettingZoo: every agent of every env is one row).

    python examples/ppo_simple_spread.py                            # mpe2 in worker processes
    python examples/ppo_simple_spread.py --task simple_spread_v3    # envhive's native MPE (family mpe)
    python examples/ppo_simple_spread.py --total-timesteps 20000 --num-envs 8

The SuperSuit lines this replaces:

    env = ss.pettingzoo_env_to_vec_env_v1(simple_spread_v3.parallel_env(max_cycles=25))
    envs = ss.concat_vec_envs_v1(env, num_envs, num_cpus=2, base_class="gymnasium")

become ``envs = envhive.multiagent.vector_env(task, num_envs=num_envs, max_cycles=25, seed=seed)``,
same row order (env * n_agents + agent), same autoreset (the step that ends a game returns the next
one's observations). Needs ``pip install "envhive[multiagent,train]" mpe2``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn
from torch.distributions.categorical import Categorical

from envhive import multiagent


def layer(i: int, o: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(layer(obs_dim, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, 1, 1.0))
        self.actor = nn.Sequential(layer(obs_dim, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, n_actions, 0.01))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def act(self, x: torch.Tensor, action: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
        dist = Categorical(logits=self.actor(x))
        action = dist.sample() if action is None else action
        return action, dist.log_prob(action), dist.entropy(), self.value(x)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--task", default="mpe2.simple_spread_v3", help="an envhive MPE id or a PettingZoo module")
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--num-steps", type=int, default=64)
    p.add_argument("--total-timesteps", type=int, default=300_000, help="agent steps")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lr", type=float, default=2.5e-4)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    envs = multiagent.vector_env(args.task, num_envs=args.num_envs, max_cycles=25, seed=args.seed)
    rows, steps = envs.num_envs, args.num_steps
    agent = Agent(int(np.prod(envs.single_observation_space.shape)), int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    obs_buf = torch.zeros((steps, rows, *envs.single_observation_space.shape))
    act_buf, logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((steps, rows)) for _ in range(5))
    next_obs = torch.as_tensor(envs.reset()[0], dtype=torch.float32)
    next_done = torch.zeros(rows)
    returns_seen: list[float] = []
    episode_return = np.zeros(rows)
    start = time.time()
    for update in range(args.total_timesteps // (rows * steps)):
        for t in range(steps):
            obs_buf[t], done_buf[t] = next_obs, next_done
            with torch.no_grad():
                action, logp, _, value = agent.act(next_obs)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs, reward, term, trunc, _ = envs.step(action.numpy())
            rew_buf[t] = torch.as_tensor(reward)
            done = term | trunc
            episode_return += reward
            returns_seen += episode_return[done].tolist()
            episode_return[done] = 0.0
            next_obs, next_done = torch.as_tensor(obs, dtype=torch.float32), torch.as_tensor(done, dtype=torch.float32)
        with torch.no_grad():  # GAE (gamma 0.99, lambda 0.95)
            advantages = torch.zeros_like(rew_buf)
            last = torch.zeros(rows)
            next_value = agent.value(next_obs)
            for t in reversed(range(steps)):
                not_done = 1.0 - (next_done if t == steps - 1 else done_buf[t + 1])
                nv = next_value if t == steps - 1 else val_buf[t + 1]
                delta = rew_buf[t] + 0.99 * nv * not_done - val_buf[t]
                advantages[t] = last = delta + 0.99 * 0.95 * not_done * last
            target = advantages + val_buf
        b_obs, b_act, b_logp = obs_buf.flatten(0, 1), act_buf.flatten(), logp_buf.flatten()
        b_adv, b_target = advantages.flatten(), target.flatten()
        for _ in range(4):  # epochs of 4 minibatches, clipped objective
            for idx in torch.randperm(len(b_obs)).split(len(b_obs) // 4):
                _, logp, entropy, value = agent.act(b_obs[idx], b_act[idx].long())
                ratio = (logp - b_logp[idx]).exp()
                adv = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                pg = torch.max(-adv * ratio, -adv * ratio.clamp(0.8, 1.2)).mean()
                loss = pg + 0.5 * ((value - b_target[idx]) ** 2).mean() - 0.01 * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        if returns_seen:
            sps = (update + 1) * rows * steps / (time.time() - start)
            print(
                f"update {update + 1}: mean agent return {np.mean(returns_seen[-100:]):.1f}, {sps:,.0f} agent-steps/s"
            )
    envs.close()


if __name__ == "__main__":
    main()
