"""PPO on an envhive pool, the whole rollout inside one compiled JAX program (CleanRL style).

In the spirit of CleanRL's ``ppo_atari_envpool_xla_jax_scan.py``: the env steps are XLA custom
calls (``env.xla()``), so one jitted ``update`` runs ``num_steps`` env steps in a ``lax.scan``,
computes GAE and runs the PPO epochs, with no Python between steps. Equinox holds the networks,
optax the optimiser.

The pool runs in SAME_STEP autoreset mode: an env that ends is reset in the same step, and the
terminal observation comes back densely in ``info["final_obs"]`` (zeros elsewhere, with its mask),
so a truncated episode bootstraps from the value of its real last state.

    python examples/train/ppo_jax.py                      # CartPole-v1, 100k steps, ~1 min on 2 cores
    python examples/train/ppo_jax.py --total-steps 200000 --seed 3

Needs ``pip install "envhive[train-jax]"`` (jax, optax, equinox).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import Any, NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax

import envhive


@dataclass(frozen=True)
class Args:
    task: str = "CartPole-v1"
    seed: int = 1
    total_steps: int = 100_000
    num_envs: int = 8
    num_steps: int = 32  # steps per env per update (rollout length)
    learning_rate: float = 1e-3  # annealed linearly to 0
    gamma: float = 0.98
    gae_lambda: float = 0.8
    update_epochs: int = 20
    num_minibatches: int = 1
    clip_coef: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    eval_envs: int = 16
    eval_steps: int = 1000  # greedy evaluation after training: steps per eval env


class ActorCritic(eqx.Module):
    actor: eqx.nn.MLP
    critic: eqx.nn.MLP

    def __init__(self, obs_dim: int, n_actions: int, key: jax.Array) -> None:
        k1, k2 = jax.random.split(key)
        self.actor = eqx.nn.MLP(obs_dim, n_actions, 64, 2, activation=jnp.tanh, key=k1)
        self.critic = eqx.nn.MLP(obs_dim, "scalar", 64, 2, activation=jnp.tanh, key=k2)

    def logits(self, obs: jax.Array) -> jax.Array:
        return jax.vmap(self.actor)(obs)

    def value(self, obs: jax.Array) -> jax.Array:
        return jax.vmap(self.critic)(obs)


class Transition(NamedTuple):
    obs: jax.Array
    action: jax.Array
    logprob: jax.Array
    value: jax.Array
    reward: jax.Array  # with the bootstrap of truncated episodes folded in
    done: jax.Array  # the episode ended at this step (terminated or truncated)
    ep_return: jax.Array  # the return of the episode that ended here (0 elsewhere)


class Carry(NamedTuple):
    handle: jax.Array
    obs: jax.Array
    ep_return: jax.Array
    key: jax.Array


def log_prob(logits: jax.Array, action: jax.Array) -> jax.Array:
    return jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], axis=1)[:, 0]


def make_update(args: Args, step: Any, optimiser: optax.GradientTransformation) -> Any:
    batch = args.num_envs * args.num_steps
    minibatch = batch // args.num_minibatches

    def rollout(model: ActorCritic, carry: Carry) -> tuple[Carry, Transition]:
        def one_step(c: Carry, _: None) -> tuple[Carry, Transition]:
            key, sub = jax.random.split(c.key)
            logits = model.logits(c.obs)
            action = jax.random.categorical(sub, logits)
            value = model.value(c.obs)
            handle, (obs, reward, terminated, truncated, info) = step(c.handle, action)
            done = terminated | truncated
            ep_return = c.ep_return + reward
            # A truncated episode is not over for the value function: bootstrap from its last state.
            reward = reward + args.gamma * model.value(info["final_obs"]) * truncated
            ended = jnp.where(done, ep_return, 0.0)
            t = Transition(c.obs, action, log_prob(logits, action), value, reward, done, ended)
            return Carry(handle, obs, jnp.where(done, 0.0, ep_return), key), t

        return jax.lax.scan(one_step, carry, None, length=args.num_steps)

    def gae(model: ActorCritic, carry: Carry, traj: Transition) -> tuple[jax.Array, jax.Array]:
        last_value = model.value(carry.obs)

        def back(c: tuple[jax.Array, jax.Array], t: Transition) -> tuple[tuple[jax.Array, jax.Array], jax.Array]:
            adv, next_value = c
            not_done = 1.0 - t.done
            delta = t.reward + args.gamma * next_value * not_done - t.value
            adv = delta + args.gamma * args.gae_lambda * not_done * adv
            return (adv, t.value), adv

        _, adv = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value), traj, reverse=True)
        return adv, adv + traj.value

    def loss(model: ActorCritic, t: Transition, adv: jax.Array, ret: jax.Array) -> jax.Array:
        logits = model.logits(t.obs)
        ratio = jnp.exp(log_prob(logits, t.action) - t.logprob)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        pg = jnp.maximum(-adv * ratio, -adv * jnp.clip(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
        v = 0.5 * ((model.value(t.obs) - ret) ** 2).mean()
        entropy = -(jax.nn.softmax(logits) * jax.nn.log_softmax(logits)).sum(-1).mean()
        return pg + args.vf_coef * v - args.ent_coef * entropy

    @eqx.filter_jit(donate="all-except-first")
    def update(model: ActorCritic, opt_state: Any, carry: Carry) -> tuple[ActorCritic, Any, Carry, jax.Array]:
        carry, traj = rollout(model, carry)
        adv, ret = gae(model, carry, traj)
        flat = jax.tree.map(lambda x: x.reshape(batch, *x.shape[2:]), (traj, adv, ret))

        params, static = eqx.partition(model, eqx.is_array)  # scans carry arrays only

        def epoch(state: tuple[Any, Any, jax.Array], _: None) -> tuple[tuple[Any, Any, jax.Array], None]:
            params, opt_state, key = state
            key, sub = jax.random.split(key)
            order = jax.random.permutation(sub, batch).reshape(args.num_minibatches, minibatch)

            def mb(s: tuple[Any, Any], idx: jax.Array) -> tuple[tuple[Any, Any], None]:
                params, opt_state = s
                t, a, r = jax.tree.map(lambda x: x[idx], flat)
                grads = jax.grad(lambda p: loss(eqx.combine(p, static), t, a, r))(params)
                updates, opt_state = optimiser.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), None

            (params, opt_state), _ = jax.lax.scan(mb, (params, opt_state), order)
            return (params, opt_state, key), None

        key, sub = jax.random.split(carry.key)
        (params, opt_state, _), _ = jax.lax.scan(epoch, (params, opt_state, sub), None, length=args.update_epochs)
        model = eqx.combine(params, static)
        return model, opt_state, carry._replace(key=key), traj.ep_return

    return update


def evaluate(model: ActorCritic, args: Args) -> float:
    """Mean return of the episodes a greedy policy completes on fresh envs (another seed)."""
    env = envhive.make(args.task, num_envs=args.eval_envs, seed=args.seed + 10_000, autoreset_mode="same_step")
    obs, _ = env.reset()
    handle, _, _, step = env.xla()

    @eqx.filter_jit
    def run(model: ActorCritic, handle: jax.Array, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        def one(c: tuple[jax.Array, jax.Array, jax.Array], _: None) -> tuple[Any, tuple[jax.Array, jax.Array]]:
            h, o, ret = c
            h, (o, r, term, trunc, _) = step(h, jnp.argmax(model.logits(o), axis=-1))
            ret = ret + r
            done = term | trunc
            return (h, o, jnp.where(done, 0.0, ret)), (jnp.where(done, ret, 0.0), done)

        _, (returns, done) = jax.lax.scan(one, (handle, obs, jnp.zeros(args.eval_envs)), None, length=args.eval_steps)
        return returns.sum(), done.sum()

    total, episodes = run(model, handle, jnp.asarray(obs))
    env.close()
    return float(total) / max(int(episodes), 1)


def train(args: Args) -> dict[str, Any]:
    env = envhive.make(args.task, num_envs=args.num_envs, seed=args.seed, autoreset_mode="same_step")
    obs, _ = env.reset()
    handle, _, _, step = env.xla()
    key = jax.random.key(args.seed)
    key, model_key = jax.random.split(key)
    model = ActorCritic(int(np.prod(env.single_observation_space.shape)), int(env.single_action_space.n), model_key)
    num_updates = args.total_steps // (args.num_envs * args.num_steps)
    grad_steps = num_updates * args.update_epochs * args.num_minibatches
    optimiser = optax.chain(
        optax.clip_by_global_norm(args.max_grad_norm),
        optax.adam(optax.linear_schedule(args.learning_rate, 0.0, grad_steps), eps=1e-5),
    )
    opt_state = optimiser.init(eqx.filter(model, eqx.is_array))
    update = make_update(args, step, optimiser)
    carry = Carry(handle, jnp.asarray(obs), jnp.zeros(args.num_envs), key)
    start = time.perf_counter()
    recent: list[float] = []
    for _ in range(num_updates):
        model, opt_state, carry, ep_returns = update(model, opt_state, carry)
        r = np.asarray(ep_returns)
        recent = (recent + r[r != 0].tolist())[-50:]
    train_s = time.perf_counter() - start
    env.close()
    return {
        "updates": num_updates,
        "env_steps": num_updates * args.num_envs * args.num_steps,
        "train_seconds": train_s,
        "train_return_last_50": float(np.mean(recent)) if recent else 0.0,
        "eval_return": evaluate(model, args),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in Args().__dict__.items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(default), default=default)
    result = train(Args(**vars(parser.parse_args())))
    for k, v in result.items():
        print(f"{k}: {v:.1f}" if isinstance(v, float) else f"{k}: {v}")


if __name__ == "__main__":
    main()
