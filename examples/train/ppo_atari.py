"""PPO on Atari (Pong) over an envhive *async* pool, EnvPool style, in one file.

    python examples/train/ppo_atari.py                              # Pong-v5, 16 envs, batches of 8
    python examples/train/ppo_atari.py --device cuda --num-envs 64 --batch-size 32 --total-timesteps 10000000
    python examples/train/ppo_atari.py --help

The loop is EnvPool's: ``recv()`` hands back the first ``batch_size`` envs to finish a step, with
``info["env_id"]``; the agent acts on just those and ``send(actions, env_id)`` queues their next
step, so envs step on the pool's threads while the agent computes -- also during the PPO update.
The network and hyperparameters are CleanRL's ``ppo_atari_envpool.py`` (Nature CNN, DQN
preprocessing with episodic life and clipped rewards, clip 0.1).

A rollout is ``num_steps`` batches. Every row is one env's observation and the action sent for it;
which row follows it is recorded per env (``next_row``), because in async mode envs do not come
back in step order. The reward and end flags of a row arrive with that env's next row, so GAE walks
each env's chain of rows. Rows whose result is still in flight when the rollout ends (at most one per
env) are not trained on. NEXT_STEP autoreset: a row that arrives with ``terminated | truncated`` holds
the final observation; its action is ignored by the pool (the next step is the reset step), so it is
no transition and is left out of the loss, but its value bootstraps an episode the time limit cut.

Episode returns are the game's raw score and whole games (``info["reward"]`` and
``info["terminated"]``, read by ``envhive.EpisodeStatistics``), not the clipped per-life rewards the
agent learns from.

Needs ``pip install "envhive[atari,train]"`` (ale-py, torch 2.13.0 CPU).
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
    env_id: str = "Pong-v5"
    """the envhive Atari task id"""
    seed: int = 1
    """seed of the experiment (torch, numpy and the pool's envs: env i gets seed + i)"""
    total_timesteps: int = 10_000_000
    """the step budget (agent steps over all envs)"""
    target_return: float | None = None
    """stop once the mean game score of the last ``return_window`` games reaches it (None: run the budget)"""
    return_window: int = 20
    """games in the running mean"""
    learning_rate: float = 2.5e-4
    """Adam's learning rate (annealed linearly to 0 over the budget when ``anneal_lr``)"""
    anneal_lr: bool = True
    """anneal the learning rate"""
    num_envs: int = 16
    """envs in the pool"""
    batch_size: int = 8
    """envs per recv() (async when below num_envs; EnvPool suggests num_envs of 2-3 x batch_size)"""
    num_threads: int = 0
    """pool threads (0: envhive's default)"""
    num_steps: int = 128
    """recv() batches per rollout (a rollout holds num_steps x batch_size rows)"""
    max_episode_steps: int = 27_000
    """time limit in agent steps (108k frames)"""
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
    clip_coef: float = 0.1
    """the surrogate clipping coefficient"""
    clip_vloss: bool = True
    """clip the value loss"""
    ent_coef: float = 0.01
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient norm clip"""
    target_kl: float | None = None
    """stop an update's epochs early above this approximate KL (None: never)"""
    device: str = "cpu"
    """torch device: cpu, cuda, cuda:1, ..."""
    torch_threads: int = 0
    """torch intra-op threads (0: torch's default)"""
    log_every: int = 1
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


def layer_init(layer: nn.Module, std: float = float(np.sqrt(2)), bias_const: float = 0.0) -> nn.Module:
    nn.init.orthogonal_(layer.weight, std)  # type: ignore[arg-type]
    nn.init.constant_(layer.bias, bias_const)  # type: ignore[arg-type]
    return layer


class Agent(nn.Module):
    """The Nature DQN CNN torso with a policy and a value head."""

    def __init__(self, in_channels: int, num_actions: int) -> None:
        super().__init__()
        self.network = nn.Sequential(
            layer_init(nn.Conv2d(in_channels, 32, 8, stride=4)),
            nn.ReLU(),
            layer_init(nn.Conv2d(32, 64, 4, stride=2)),
            nn.ReLU(),
            layer_init(nn.Conv2d(64, 64, 3, stride=1)),
            nn.ReLU(),
            nn.Flatten(),
            layer_init(nn.Linear(64 * 7 * 7, 512)),
            nn.ReLU(),
        )
        self.actor = layer_init(nn.Linear(512, num_actions), std=0.01)
        self.critic = layer_init(nn.Linear(512, 1), std=1.0)

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(self.network(x.float() / 255.0))

    def get_action_and_value(
        self, x: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        hidden = self.network(x.float() / 255.0)
        probs = Categorical(logits=self.actor(hidden), validate_args=False)  # no per-call checks
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(hidden)


@dataclass
class Result:
    """What a run did: ``history`` rows are (global_step, seconds since the start, mean score of the last
    ``return_window`` games, or nan before the first), one per iteration."""

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
    """The envhive pool, async when ``batch_size < num_envs``, with DQN-style Atari preprocessing."""
    return envhive.make(
        args.env_id,
        num_envs=args.num_envs,
        batch_size=args.batch_size,
        num_threads=args.num_threads or None,
        seed=args.seed,
        episodic_life=True,
        reward_clip=True,
        max_episode_steps=args.max_episode_steps,
    )


def train(args: Args, envs: Any = None) -> Result:
    """Train ``args.env_id``; ``envs``: anything with EnvPool's ``async_reset`` / ``recv`` / ``send(actions,
    env_id)`` and NEXT_STEP autoreset whose ``recv`` returns ``args.batch_size`` rows (default
    :func:`make_envs`; benchmarks/train_ppo.py passes others). Returns what happened."""
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    device = torch.device(args.device)
    own_envs = envs is None
    if envs is None:
        envs = make_envs(args)
    num_envs, batch, num_steps = args.num_envs, args.batch_size, args.num_steps
    rows = num_steps * batch
    minibatch_size = max(1, rows // args.num_minibatches)
    num_iterations = max(1, args.total_timesteps // rows)
    obs_shape = envs.single_observation_space.shape
    stats = envhive.EpisodeStatistics.for_env(envs, buffer_length=args.return_window)

    agent = Agent(obs_shape[0], int(envs.single_action_space.n)).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # Rollout storage, one row per (batch, slot); flat row index = step * batch + slot.
    obs = torch.zeros((num_steps, batch, *obs_shape), dtype=torch.uint8, device=device)
    actions = torch.zeros((num_steps, batch), dtype=torch.long, device=device)
    logprobs = torch.zeros((num_steps, batch), device=device)
    values = torch.zeros((num_steps, batch), device=device)
    valid = torch.zeros((num_steps, batch), dtype=torch.bool, device=device)  # a real transition
    # Filled when the row's env comes back: its reward and flags, and the row that env got next.
    rewards = torch.zeros((num_steps, batch), device=device)
    terminated = torch.zeros((num_steps, batch), device=device)
    ended = torch.zeros((num_steps, batch), device=device)
    next_row = torch.full((num_steps, batch), -1, dtype=torch.long, device=device)
    pending = np.full(num_envs, -1, dtype=np.int64)  # each env's row whose result is in flight (-1: none)

    global_step, start = 0, time.perf_counter()
    history: list[tuple[int, float, float]] = []
    losses: list[dict[str, float]] = []
    reached = False
    envs.async_reset()

    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / num_iterations) * args.learning_rate
        next_row.fill_(-1)
        pending.fill(-1)  # results of the last rollout's final actions belong to no row of this one

        for step in range(num_steps):
            next_obs, reward, term, trunc, info = envs.recv()
            env_id = np.asarray(info["env_id"])
            stats.update(reward, term, trunc, info)
            global_step += len(env_id)
            done = np.logical_or(term, trunc)
            here = np.arange(step * batch, (step + 1) * batch)

            # This batch completes each env's previous row.
            prev = pending[env_id]
            got = prev >= 0
            if got.any():
                p = torch.as_tensor(prev[got], device=device)
                rewards.view(-1)[p] = torch.as_tensor(reward[got], dtype=torch.float32, device=device)
                terminated.view(-1)[p] = torch.as_tensor(term[got], dtype=torch.float32, device=device)
                ended.view(-1)[p] = torch.as_tensor(done[got], dtype=torch.float32, device=device)
                next_row.view(-1)[p] = torch.as_tensor(here[got], device=device)
            pending[env_id] = here

            x = torch.as_tensor(next_obs, device=device)
            obs[step] = x
            valid[step] = torch.as_tensor(~done, device=device)  # final observations are no transition
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(x)
            actions[step], logprobs[step], values[step] = action, logprob, value.flatten()
            envs.send(action.cpu().numpy(), env_id)

        # GAE along each env's chain of rows; a row's successor always lies in a later batch.
        with torch.no_grad():
            flat_values, flat_adv = values.view(-1), torch.zeros(rows, device=device)
            for step in reversed(range(num_steps)):
                nxt = next_row[step]
                has_next = nxt >= 0
                nxt = nxt.clamp(min=0)
                delta = rewards[step] + args.gamma * flat_values[nxt] * (1.0 - terminated[step]) - values[step]
                adv = delta + args.gamma * args.gae_lambda * (1.0 - ended[step]) * flat_adv[nxt]
                flat_adv[step * batch : (step + 1) * batch] = torch.where(has_next, adv, 0.0)
            flat_returns = flat_adv + flat_values

        keep = (valid & (next_row >= 0)).view(-1)
        b_obs = obs.view(-1, *obs_shape)[keep]
        b_actions, b_logprobs = actions.view(-1)[keep], logprobs.view(-1)[keep]
        b_advantages, b_returns, b_values = flat_adv[keep], flat_returns[keep], flat_values[keep]
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
                "trained_rows": float(n),
            }
        )
        if args.log_every and (iteration % args.log_every == 0 or iteration == num_iterations):
            print(
                f"step={global_step} games={stats.episode_count} mean_score={mean_return:.1f} "
                f"value_loss={v_loss.item():.4f} entropy={entropy_loss.item():.3f} SPS={int(global_step / seconds)}"
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
        f"{args.env_id}: mean score {result.mean_return:.1f} over the last {args.return_window} games "
        f"({result.episodes} games) after {result.global_step} steps, {result.seconds:.1f} s "
        f"({int(result.steps_per_second)} steps/s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
