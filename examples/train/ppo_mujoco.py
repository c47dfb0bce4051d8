"""PPO for continuous control (MuJoCo HalfCheetah) over an envhive sync pool, in one file.

    python examples/train/ppo_mujoco.py                                 # HalfCheetah-v4, 1M steps
    python examples/train/ppo_mujoco.py --env-id Ant-v4 --device cuda --num-envs 64
    python examples/train/ppo_mujoco.py --help

CleanRL's ppo_continuous_action.py rewritten for a vector pool: a Gaussian policy with a
state-independent log std, actions clipped to the action space before they are sent, observations
normalised by a running mean and variance (clipped to +-10) and rewards scaled by the running
standard deviation of the discounted return (clipped to +-10), as Gymnasium's NormalizeObservation /
NormalizeReward do. The normalisers (``RunningMeanStd`` below) work on the batch in the training
loop, so they serve any vector env unchanged. Episode returns are logged raw (unscaled) by
``envhive.EpisodeStatistics``.

NEXT_STEP autoreset as in ppo_classic.py: the reset step after an episode's end is no transition and is
left out of the loss; its value (of the final observation) bootstraps the episode the time limit cut
-- which is every HalfCheetah episode.

Needs ``pip install "envhive[mujoco,train]"`` (mujoco, torch 2.13.0 CPU).
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
from torch.distributions.normal import Normal

import envhive


@dataclass
class Args:
    env_id: str = "HalfCheetah-v4"
    """the envhive MuJoCo task id"""
    seed: int = 1
    """seed of the experiment (torch, numpy and the pool's envs: env i gets seed + i)"""
    total_timesteps: int = 1_000_000
    """the step budget (env steps over all envs)"""
    target_return: float | None = None
    """stop once the mean return of the last ``return_window`` episodes reaches it (None: run the budget)"""
    return_window: int = 20
    """episodes in the running mean"""
    learning_rate: float = 3e-4
    """Adam's learning rate (annealed linearly to 0 over the budget when ``anneal_lr``)"""
    anneal_lr: bool = True
    """anneal the learning rate"""
    num_envs: int = 8
    """envs in the pool"""
    num_threads: int = 0
    """pool threads (0: envhive's default)"""
    num_steps: int = 256
    """steps per env per rollout"""
    max_episode_steps: int = 0
    """time limit (0: the task's, 1000 for HalfCheetah)"""
    gamma: float = 0.99
    """discount factor"""
    gae_lambda: float = 0.95
    """GAE's lambda"""
    num_minibatches: int = 32
    """minibatches per epoch"""
    update_epochs: int = 10
    """epochs over each rollout"""
    norm_adv: bool = True
    """normalise advantages per minibatch"""
    clip_coef: float = 0.2
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """clip the value loss"""
    ent_coef: float = 0.0
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient norm clip"""
    target_kl: float | None = None
    """stop an update's epochs early above this approximate KL (None: never)"""
    norm_obs: bool = True
    """normalise observations by their running mean and variance"""
    norm_reward: bool = True
    """scale rewards by the running standard deviation of the discounted return"""
    clip: float = 10.0
    """clip normalised observations and scaled rewards to +-clip"""
    device: str = "cpu"
    """torch device: cpu, cuda, cuda:1, ..."""
    torch_threads: int = 1
    """torch intra-op threads (0: torch's default); a network this small runs fastest on one, and more
    threads than free cores make torch's spinning workers starve the env pool"""
    log_every: int = 5
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


class RunningMeanStd:
    """Mean and variance of everything seen so far, merged batch by batch (Chan et al.'s parallel update)."""

    def __init__(self, shape: tuple[int, ...] = ()) -> None:
        self.mean = np.zeros(shape, dtype=np.float64)
        self.var = np.ones(shape, dtype=np.float64)
        self.count = 1e-4

    def update(self, batch: np.ndarray) -> None:
        batch_mean, batch_var, batch_count = batch.mean(axis=0), batch.var(axis=0), batch.shape[0]
        delta, total = batch_mean - self.mean, self.count + batch_count
        self.mean = self.mean + delta * batch_count / total
        m2 = self.var * self.count + batch_var * batch_count + delta**2 * self.count * batch_count / total
        self.var, self.count = m2 / total, total


class Normalizer:
    """Observation normalisation and return-based reward scaling for a batch of envs."""

    def __init__(self, obs_shape: tuple[int, ...], num_envs: int, args: Args) -> None:
        self.obs_rms, self.return_rms = RunningMeanStd(obs_shape), RunningMeanStd()
        self.discounted_return = np.zeros(num_envs, dtype=np.float64)
        self.args = args

    def observation(self, obs: np.ndarray) -> np.ndarray:
        if not self.args.norm_obs:
            return obs.astype(np.float32)
        self.obs_rms.update(obs)
        normed = (obs - self.obs_rms.mean) / np.sqrt(self.obs_rms.var + 1e-8)
        return np.clip(normed, -self.args.clip, self.args.clip).astype(np.float32)

    def reward(self, reward: np.ndarray, ended: np.ndarray) -> np.ndarray:
        if not self.args.norm_reward:
            return reward.astype(np.float32)
        self.discounted_return = self.discounted_return * self.args.gamma + reward
        self.return_rms.update(self.discounted_return)
        self.discounted_return[ended] = 0.0
        scaled = reward / np.sqrt(self.return_rms.var + 1e-8)
        return np.clip(scaled, -self.args.clip, self.args.clip).astype(np.float32)


def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias_const: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """Critic and Gaussian actor MLPs (2 x 64, tanh); the log std is a free parameter per action dim."""

    def __init__(self, obs_dim: int, action_dim: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor_mean = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, action_dim), std=0.01),
        )
        self.actor_logstd = nn.Parameter(torch.zeros(1, action_dim))

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(
        self, x: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        mean = self.actor_mean(x)
        probs = Normal(mean, torch.exp(self.actor_logstd.expand_as(mean)), validate_args=False)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action).sum(1), probs.entropy().sum(1), self.critic(x)


@dataclass
class Result:
    """What a run did: ``history`` rows are (global_step, seconds since the start, mean raw return of the
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
    kwargs: dict[str, Any] = {"max_episode_steps": args.max_episode_steps} if args.max_episode_steps else {}
    return envhive.make(
        args.env_id, num_envs=args.num_envs, num_threads=args.num_threads or None, seed=args.seed, **kwargs
    )


def train(args: Args, envs: Any = None) -> Result:
    """Train ``args.env_id``; ``envs``: any vector env with Gymnasium's sync API, a Box action space and
    NEXT_STEP autoreset (default :func:`make_envs`; benchmarks/train_ppo.py passes others)."""
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
    minibatch_size = max(1, batch_size // args.num_minibatches)
    num_iterations = max(1, args.total_timesteps // batch_size)
    obs_shape = envs.single_observation_space.shape
    action_space = envs.single_action_space
    low, high = action_space.low.astype(np.float32), action_space.high.astype(np.float32)
    stats = envhive.EpisodeStatistics.for_env(envs, buffer_length=args.return_window)
    normalizer = Normalizer(obs_shape, num_envs, args)

    agent = Agent(int(np.prod(obs_shape)), int(np.prod(action_space.shape))).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((num_steps, num_envs, *obs_shape), device=device)
    actions = torch.zeros((num_steps, num_envs, *action_space.shape), device=device)
    logprobs = torch.zeros((num_steps, num_envs), device=device)
    values = torch.zeros((num_steps, num_envs), device=device)
    rewards = torch.zeros((num_steps, num_envs), device=device)
    terminated = torch.zeros((num_steps, num_envs), device=device)
    ended = torch.zeros((num_steps, num_envs), device=device)
    valid = torch.zeros((num_steps, num_envs), device=device)  # 0 on NEXT_STEP's reset rows

    global_step, start = 0, time.perf_counter()
    history: list[tuple[int, float, float]] = []
    losses: list[dict[str, float]] = []
    reached = False
    next_obs_np, _ = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(normalizer.observation(next_obs_np), device=device)
    next_is_reset_row = torch.zeros(num_envs, device=device)

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

            next_obs_np, reward, term, trunc, info = envs.step(np.clip(action.cpu().numpy(), low, high))
            stats.update(reward, term, trunc, info)
            done = np.logical_or(term, trunc)
            reward = np.asarray(reward, dtype=np.float64)
            rewards[step] = torch.as_tensor(normalizer.reward(reward, done), device=device)
            terminated[step] = torch.as_tensor(term, dtype=torch.float32, device=device)
            ended[step] = torch.as_tensor(done, dtype=torch.float32, device=device)
            next_obs = torch.as_tensor(normalizer.observation(np.asarray(next_obs_np, dtype=np.float64)), device=device)
            next_is_reset_row = ended[step]

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

        keep = valid.reshape(-1).bool()
        b_obs = obs.reshape((-1, *obs_shape))[keep]
        b_actions = actions.reshape((-1, *action_space.shape))[keep]
        b_logprobs = logprobs.reshape(-1)[keep]
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
    print(
        f"{args.env_id}: mean return {result.mean_return:.1f} over the last {args.return_window} episodes "
        f"({result.episodes} episodes) after {result.global_step} steps, {result.seconds:.1f} s "
        f"({int(result.steps_per_second)} steps/s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
