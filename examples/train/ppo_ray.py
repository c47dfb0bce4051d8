"""PPO from Ray rollout workers (IMPALA / Sebulba style): the policy acts next to the envs, in Ray
actors, and the learner trains on the trajectories they stream.

    python examples/train/ppo_ray.py                                  # local Ray: CartPole to 475
    python examples/train/ppo_ray.py --address auto --num-workers 16 --envs-per-worker 64
    python examples/train/ppo_ray.py --help

- Workers: ``envhive.ray.RolloutWorkers``. Each is a Ray actor holding one envhive pool and the
  actor network (TorchScript, one torch thread); it steps ``unroll_length`` steps of its envs per
  trajectory and sends ``unrolls_per_call`` trajectories per Ray call (a call costs about a
  millisecond of CPU on each side: cheap envs want several unrolls per call, see
  docs/distributed.md). Env ``g`` gets seed ``seed + g`` wherever it runs.
- Learner (this process): PPO's clipped surrogate against the log-probs the workers recorded when
  they acted, so a trajectory produced by weights a version or two old is still a correct sample
  (the ratio corrects it); GAE with NEXT_STEP bootstrapping (the step after an episode's end is an
  autoreset row, ``valid=False``, left out of the loss; a truncated row bootstraps from the next
  row's observation, its final one); new weights go to every worker after each update.

Needs ``pip install "envhive[rllib]"`` (Ray 2.60 and torch 2.13.0, the CPU build).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
import ray
import torch
from torch import nn

import envhive
from envhive.ray import RolloutWorkers, TorchScriptPolicy, Trajectory


@dataclass
class Args:
    env_id: str = "CartPole-v1"
    seed: int = 0
    total_timesteps: int = 300_000  # env steps over all workers (autoreset rows included)
    target_return: float | None = 475.0  # stop once the mean of the last return_window episodes reaches it
    return_window: int = 20
    address: str | None = None  # a Ray cluster ("auto", "ray://..."); None starts a local Ray
    num_workers: int = 2
    envs_per_worker: int = 8
    num_cpus_per_worker: float = 1.0  # the pool's threads are its whole CPUs
    unroll_length: int = 64
    unrolls_per_call: int = 1
    max_in_flight: int = 2
    learning_rate: float = 2.5e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    update_epochs: int = 4
    minibatch_size: int = 128
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    torch_threads: int = 1  # the learner's; a network this small runs fastest on one
    log_every: int = 20  # print a line every this many updates (0: never)


@dataclass
class Result:
    global_step: int
    updates: int
    episodes: int
    mean_return: float  # of the last return_window episodes (nan before any)
    reached_target: bool
    steps_per_s: float  # env steps the learner received per second of training
    history: list[tuple[int, float]] = field(default_factory=list)  # (global_step, mean_return) per update
    max_policy_lag: int = 0  # the most versions a trajectory trained on was behind the learner


class Actor(nn.Module):
    """The policy the workers run: an MLP's logits, a sampled action and its log-prob."""

    def __init__(self, obs_dim: int, num_actions: int) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, num_actions)
        )

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        logits = self.net(obs.float())
        actions = torch.multinomial(torch.softmax(logits, -1), 1).squeeze(1)
        logp = torch.log_softmax(logits, -1).gather(1, actions[:, None]).squeeze(1)
        return actions, {"logp": logp}


def advantages(t: Trajectory, critic: nn.Module, args: Args) -> tuple[torch.Tensor, torch.Tensor]:
    """GAE over one trajectory (T, N): advantages and value targets."""
    obs = torch.tensor(t.obs, dtype=torch.float32)
    with torch.no_grad():
        values = critic(obs).squeeze(-1)
        last_value = critic(torch.tensor(t.last_obs, dtype=torch.float32)).squeeze(-1)
    rewards = torch.tensor(t.rewards, dtype=torch.float32)
    not_terminal = 1.0 - torch.tensor(t.terminated, dtype=torch.float32)
    not_ended = 1.0 - torch.tensor(t.terminated | t.truncated, dtype=torch.float32)
    valid = torch.tensor(t.valid, dtype=torch.float32)
    adv = torch.zeros_like(rewards)
    gae = torch.zeros(rewards.shape[1])
    for i in reversed(range(len(rewards))):
        next_value = last_value if i == len(rewards) - 1 else values[i + 1]
        delta = rewards[i] + args.gamma * next_value * not_terminal[i] - values[i]
        gae = (delta + args.gamma * args.gae_lambda * not_ended[i] * gae) * valid[i]  # autoreset rows: 0
        adv[i] = gae
    return adv, adv + values


def train(args: Args) -> Result:
    torch.manual_seed(args.seed)
    threads = torch.get_num_threads()
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    try:
        return _train(args)
    finally:
        torch.set_num_threads(threads)
        if started_ray:
            ray.shutdown()


def _train(args: Args) -> Result:
    spec = envhive.make_spec(args.env_id)
    if not isinstance(spec.action_space, gym.spaces.Discrete) or spec.observation_space.shape is None:
        raise ValueError(f"ppo_ray.py trains tasks with discrete actions and flat observations, not {args.env_id}")
    obs_dim, num_actions = int(np.prod(spec.observation_space.shape)), int(spec.action_space.n)
    actor = Actor(obs_dim, num_actions)
    critic = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
    params = list(actor.parameters()) + list(critic.parameters())
    optimizer = torch.optim.Adam(params, lr=args.learning_rate, eps=1e-5)
    returns: list[float] = []
    result = Result(
        global_step=0, updates=0, episodes=0, mean_return=float("nan"), reached_target=False, steps_per_s=0.0
    )
    with RolloutWorkers(
        args.env_id,
        args.num_workers,
        args.envs_per_worker,
        TorchScriptPolicy(torch.jit.script(Actor(obs_dim, num_actions))),
        {k: v.detach().clone() for k, v in actor.state_dict().items()},
        unroll_length=args.unroll_length,
        unrolls_per_call=args.unrolls_per_call,
        max_in_flight=args.max_in_flight,
        num_cpus_per_worker=args.num_cpus_per_worker,
        seed=args.seed,
        ordered=True,
        timeout=300,
    ) as workers:
        start = time.perf_counter()
        while result.global_step < args.total_timesteps:
            t = workers.next()
            result.global_step += t.num_steps
            result.max_policy_lag = max(result.max_policy_lag, workers.version - t.policy_version)
            returns.extend(t.episode_returns.tolist())
            adv, targets = advantages(t, critic, args)
            rows = torch.tensor(t.valid).reshape(-1)
            b_obs = torch.tensor(t.obs, dtype=torch.float32).reshape(-1, obs_dim)[rows]
            b_act = torch.tensor(t.actions).reshape(-1)[rows]
            b_logp = torch.tensor(t.extras["logp"]).reshape(-1)[rows]
            b_adv, b_tgt = adv.reshape(-1)[rows], targets.reshape(-1)[rows]
            b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
            for _ in range(args.update_epochs):
                for idx in torch.randperm(len(b_obs)).split(args.minibatch_size):
                    logits = actor.net(b_obs[idx])
                    logp_all = torch.log_softmax(logits, -1)
                    ratio = torch.exp(logp_all.gather(1, b_act[idx, None]).squeeze(1) - b_logp[idx])
                    pg = -torch.min(
                        ratio * b_adv[idx], ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef) * b_adv[idx]
                    )
                    v_loss = (critic(b_obs[idx]).squeeze(-1) - b_tgt[idx]) ** 2
                    entropy = -(logp_all.exp() * logp_all).sum(-1)
                    loss = pg.mean() + args.vf_coef * v_loss.mean() - args.ent_coef * entropy.mean()
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(params, args.max_grad_norm)
                    optimizer.step()
            workers.set_weights({k: v.detach().clone() for k, v in actor.state_dict().items()})
            result.updates += 1
            result.episodes = len(returns)
            if returns:
                result.mean_return = float(np.mean(returns[-args.return_window :]))
            result.history.append((result.global_step, result.mean_return))
            result.steps_per_s = result.global_step / (time.perf_counter() - start)
            if args.log_every and result.updates % args.log_every == 0:
                print(
                    f"step {result.global_step:>8}  return {result.mean_return:6.1f}  "
                    f"{result.steps_per_s:8.0f} steps/s  policy lag <= {result.max_policy_lag}"
                )
            if (
                args.target_return is not None
                and len(returns) >= args.return_window
                and result.mean_return >= args.target_return
            ):
                result.reached_target = True
                break
    return result


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    defaults = Args()
    for name, value in vars(defaults).items():
        flag = "--" + name.replace("_", "-")
        if name in ("target_return", "address"):  # optional: "none" turns it off
            parser.add_argument(flag, type=_optional(float if name == "target_return" else str), default=value)
        else:
            parser.add_argument(flag, type=type(value), default=value, help=f"(default {value})")
    return Args(**vars(parser.parse_args(argv)))


def _optional(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    return lambda text: None if text.lower() == "none" else kind(text)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = train(args)
    print(
        f"{result.global_step} steps, {result.updates} updates, {result.episodes} episodes: mean return "
        f"{result.mean_return:.1f} ({'target reached' if result.reached_target else 'budget spent'}), "
        f"{result.steps_per_s:.0f} steps/s, policy lag <= {result.max_policy_lag} versions"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
