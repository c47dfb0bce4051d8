"""PPO on CartPole over an envhive sync pool, in one file (CleanRL's ppo.py, rewritten for envhive).

    python examples/train/ppo_classic.py                       # CartPole-v1 to a mean return of 475
    python examples/train/ppo_classic.py --device cuda --num-envs 64
    python examples/train/ppo_classic.py --help

What differs from CleanRL's ppo.py, apart from the env engine (one native pool instead of Python envs):
- envhive's pool autoresets NEXT_STEP (Gymnasium 1.x's default): the step after an episode's end
  is a reset step whose action is ignored. That row is no transition, so it is left out of the loss
  (``valid`` below), and its value -- the value of the final observation -- bootstraps the episode's
  last transition when the time limit (not a failure) ended it.
- episodes are counted by ``envhive.EpisodeStatistics`` (return and length per env).
- defaults tuned for wall-clock time on a small CPU: 16 envs x 64 steps, 2 torch threads at most.

Needs ``pip install "envhive[train]"`` (torch 2.13.0, the CPU build).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.distributions.categorical import Categorical

import envhive


@dataclass
class Args:
    env_id: str = "CartPole-v1"
    """the envhive task id"""
    seed: int = 1
    """seed of the experiment (torch, numpy and the pool's envs: env i gets seed + i)"""
    total_timesteps: int = 300_000
    """the step budget (env steps over all envs)"""
    target_return: float | None = 475.0
    """stop once the mean return of the last ``return_window`` episodes reaches it (None: run the budget)"""
    return_window: int = 20
    """episodes in the running mean that ``target_return`` is checked against"""
    learning_rate: float = 2.5e-3
    """Adam's learning rate (annealed linearly to 0 over the budget when ``anneal_lr``)"""
    anneal_lr: bool = True
    """anneal the learning rate"""
    num_envs: int = 16
    """envs in the pool"""
    num_threads: int = 0
    """pool threads (0: envhive's default)"""
    num_steps: int = 64
    """steps per env per rollout"""
    gamma: float = 0.99
    """discount factor"""
    gae_lambda: float = 0.95
    """GAE's lambda"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """epochs over each rollout"""
    norm_adv: bool = True
    """normalise advantages per minibatch"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """clip the value loss as in the PPO paper's implementation"""
    ent_coef: float = 0.0
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient norm clip"""
    target_kl: float | None = None
    """stop an update's epochs early above this approximate KL (None: never)"""
    device: str = "cpu"
    """torch device: cpu, cuda, cuda:1, ..."""
    torch_threads: int = 1
    """torch intra-op threads (0: torch's default); a network this small runs fastest on one, and more
    threads than free cores make torch's spinning workers starve the env pool"""
    log_every: int = 10
    """print a progress line every this many iterations (0: never)"""


def parse_args(argv: list[str] | None = None) -> Args:
    """``Args`` from the command line: one ``--flag`` per field (``--no-flag`` for booleans)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for field in dataclasses.fields(Args):
        flag, default, hint = "--" + field.name.replace("_", "-"), field.default, str(field.type)
        if hint == "bool":
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default)
        else:
            kind: Callable[[str], Any] = float if "float" in hint else int if "int" in hint else str
            if "None" in hint:
                kind = _optional(kind)
            parser.add_argument(flag, type=kind, default=default, help=f"(default {default})")
    return Args(**vars(parser.parse_args(argv)))


def _optional(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    return lambda text: None if text.lower() == "none" else kind(text)


def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias_const: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """Separate actor and critic MLPs (2 x 64, tanh), orthogonal init, as in CleanRL."""

    def __init__(self, obs_dim: int, num_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, num_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(
        self, x: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        probs = Categorical(logits=self.actor(x), validate_args=False)  # no per-call checks
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


@dataclass
class Result:
    """What a run did: ``history`` rows are (global_step, seconds since the start, mean return of the
    last ``return_window`` episodes, or nan before the first episode), one per iteration."""

    global_step: int
    seconds: float
    episodes: int
    mean_return: float
    reached_target: bool
    history: list[tuple[int, float, float]]
    losses: list[dict[str, float]]

    @property
    def steps_per_second(self) -> float:
        return self.global_step / self.seconds


def make_envs(args: Args) -> Any:
    """The envhive sync pool: a ``gymnasium.vector.VectorEnv`` autoresetting NEXT_STEP."""
    return envhive.make(args.env_id, num_envs=args.num_envs, num_threads=args.num_threads or None, seed=args.seed)


def train(args: Args, envs: Any = None) -> Result:
    """Train ``args.env_id``; ``envs``: any vector env with Gymnasium's sync API and NEXT_STEP autoreset
    (default :func:`make_envs`; benchmarks/train_ppo.py passes others). Returns what happened."""
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    device = torch.device(args.device)
    own_envs = envs is None
    if envs is None:
        envs = make_envs(args)
    num_envs, num_steps = args.num_envs, args.num_steps
    batch_size = num_envs * num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)
    obs_shape = envs.single_observation_space.shape
    stats = envhive.EpisodeStatistics.for_env(envs, buffer_length=args.return_window)

    agent = Agent(int(np.prod(obs_shape)), int(envs.single_action_space.n)).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # Rollout storage; row t holds the observation the action at t was chosen on and what it led to.
    obs = torch.zeros((num_steps, num_envs, *obs_shape), device=device)
    actions = torch.zeros((num_steps, num_envs), dtype=torch.long, device=device)
    logprobs = torch.zeros((num_steps, num_envs), device=device)
    values = torch.zeros((num_steps, num_envs), device=device)
    rewards = torch.zeros((num_steps, num_envs), device=device)
    terminated = torch.zeros((num_steps, num_envs), device=device)
    ended = torch.zeros((num_steps, num_envs), device=device)  # terminated or truncated
    valid = torch.zeros((num_steps, num_envs), device=device)  # 0 on NEXT_STEP's reset rows

    global_step, start = 0, time.perf_counter()
    history: list[tuple[int, float, float]] = []
    losses: list[dict[str, float]] = []
    reached = False
    next_obs_np, _ = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs_np, dtype=torch.float32, device=device)
    next_is_reset_row = torch.zeros(num_envs, device=device)  # the env's next step is a reset step

    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / num_iterations) * args.learning_rate

        for step in range(num_steps):
            global_step += num_envs
            obs[step] = next_obs
            valid[step] = 1.0 - next_is_reset_row
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
            values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob

            next_obs_np, reward, term, trunc, info = envs.step(action.cpu().numpy())
            stats.update(reward, term, trunc, info)
            done = np.logical_or(term, trunc)
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32, device=device)
            terminated[step] = torch.as_tensor(term, dtype=torch.float32, device=device)
            ended[step] = torch.as_tensor(done, dtype=torch.float32, device=device)
            next_obs = torch.as_tensor(next_obs_np, dtype=torch.float32, device=device)
            next_is_reset_row = ended[step]

        # GAE. The value after row t is row t+1's (after an end, that row is the reset step holding the
        # final observation: it bootstraps a truncated episode, a terminated one is cut by `terminated`).
        with torch.no_grad():
            next_value = agent.get_value(next_obs).flatten()
            advantages = torch.zeros_like(rewards)
            lastgaelam = torch.zeros(num_envs, device=device)
            for t in reversed(range(num_steps)):
                nextvalues = next_value if t == num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * (1.0 - terminated[t]) - values[t]
                lastgaelam = delta + args.gamma * args.gae_lambda * (1.0 - ended[t]) * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values

        # Flatten, keeping only real transitions.
        keep = valid.reshape(-1).bool()
        b_obs = obs.reshape((-1, *obs_shape))[keep]
        b_actions, b_logprobs = actions.reshape(-1)[keep], logprobs.reshape(-1)[keep]
        b_advantages, b_returns = advantages.reshape(-1)[keep], returns.reshape(-1)[keep]
        b_values = values.reshape(-1)[keep]
        n = int(b_obs.shape[0])

        clipfracs: list[float] = []
        for _epoch in range(args.update_epochs):
            b_inds = torch.randperm(n, device=device)
            for begin in range(0, n, minibatch_size):
                mb_inds = b_inds[begin : begin + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())

                mb_advantages = b_advantages[mb_inds]
                if args.norm_adv and mb_advantages.numel() > 1:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                pg_loss = torch.max(
                    -mb_advantages * ratio, -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()

                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_clipped = b_values[mb_inds] + torch.clamp(
                        newvalue - b_values[mb_inds], -args.clip_coef, args.clip_coef
                    )
                    v_loss_max = torch.max((newvalue - b_returns[mb_inds]) ** 2, (v_clipped - b_returns[mb_inds]) ** 2)
                    v_loss = 0.5 * v_loss_max.mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        seconds = time.perf_counter() - start
        mean_return = float(np.mean(stats.return_queue)) if stats.return_queue else float("nan")
        history.append((global_step, seconds, mean_return))
        losses.append(
            {
                "policy": pg_loss.item(),
                "value": v_loss.item(),
                "entropy": entropy_loss.item(),
                "approx_kl": approx_kl.item(),
                "clipfrac": float(np.mean(clipfracs)),
            }
        )
        if args.log_every and (iteration % args.log_every == 0 or iteration == num_iterations):
            print(
                f"step={global_step} episodes={stats.episode_count} mean_return={mean_return:.1f} "
                f"value_loss={v_loss.item():.3f} SPS={int(global_step / seconds)}"
            )
        if (
            args.target_return is not None
            and len(stats.return_queue) >= args.return_window
            and mean_return >= args.target_return
        ):
            reached = True
            break

    if own_envs:
        envs.close()
    seconds = time.perf_counter() - start
    mean_return = float(np.mean(stats.return_queue)) if stats.return_queue else float("nan")
    return Result(global_step, seconds, stats.episode_count, mean_return, reached, history, losses)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = train(args)
    verdict = f"reached {args.target_return}" if result.reached_target else "did not reach the target"
    print(
        f"{args.env_id}: {verdict}: mean return {result.mean_return:.1f} over the last {args.return_window} "
        f"episodes after {result.global_step} steps, {result.seconds:.1f} s ({int(result.steps_per_second)} steps/s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
