"""Rollout policies: what runs beside the pool in each rollout worker.

A policy is ``policy(weights, obs, rng) -> actions`` or ``-> (actions, extras)`` where ``extras`` is a
dict of per-env arrays (behaviour log-probs, values, ...) stored with the trajectory; ``rng`` is the
worker's own ``numpy.random.Generator``. It must pickle (Ray ships it to every worker): a module-level
function, ``TorchScriptPolicy(torch.jit.script(module))`` or ``JaxPolicy(apply)``.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np

Policy = Callable[[Any, np.ndarray, np.random.Generator], Any]


class TorchScriptPolicy:
    """A TorchScript module as a rollout policy: ``module(obs) -> actions`` or
    ``-> (actions, {name: tensor})``; weights are its ``state_dict`` (loaded when a new one arrives).

    It travels as ``torch.jit.save`` bytes; in the worker, torch runs on ``num_threads`` threads
    (default 1: the pool's threads are the actor's CPUs) and its RNG is seeded from the worker's.
    """

    def __init__(self, module: Any, num_threads: int = 1) -> None:
        import torch  # torch is optional (the [rllib] or a trainer extra): imported on use

        buffer = io.BytesIO()
        torch.jit.save(module, buffer)
        self._blob = buffer.getvalue()
        self.num_threads = num_threads
        self._module: Any = None
        self._weights: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"_blob": self._blob, "num_threads": self.num_threads}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._module = None
        self._weights = None

    def __call__(self, weights: Any, obs: np.ndarray, rng: np.random.Generator) -> Any:
        import torch

        if self._module is None:
            torch.set_num_threads(self.num_threads)
            torch.manual_seed(int(rng.integers(2**62)))
            self._module = torch.jit.load(io.BytesIO(self._blob))
            self._module.eval()
        if weights is not None and weights is not self._weights:
            self._module.load_state_dict(weights)
            self._weights = weights
        with torch.no_grad():
            out = self._module(torch.from_numpy(np.ascontiguousarray(obs)))
        if isinstance(out, tuple):
            actions, extras = out
            return actions.numpy(), {k: v.numpy() for k, v in extras.items()}
        return out.numpy()


class JaxPolicy:
    """A JAX function as a rollout policy: ``apply(params, obs, key) -> actions`` or
    ``-> (actions, {name: array})``, jitted in the worker; weights are its ``params`` (any pytree).

    ``apply`` must pickle (a module-level function). The worker keeps one PRNG key, seeded from its
    own generator and split inside the jitted step, so a seeded run repeats; new weights are put on
    the device once per version, not per step.
    """

    def __init__(self, apply: Callable[..., Any]) -> None:
        self.apply = apply
        self._forget()

    def _forget(self) -> None:
        """No jitted step, key or device weights yet (they are made in the worker)."""
        self._step: Any = None
        self._key: Any = None
        self._weights: Any = None
        self._params: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"apply": self.apply}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.apply = state["apply"]
        self._forget()

    def __call__(self, weights: Any, obs: np.ndarray, rng: np.random.Generator) -> Any:
        import jax  # jax is optional (the [jax] extra): imported on use

        if self._step is None:
            apply = self.apply

            def step(params: Any, obs: Any, key: Any) -> Any:
                key, sub = jax.random.split(key)
                return apply(params, obs, sub), key

            self._step = jax.jit(step)
            self._key = jax.random.key(int(rng.integers(2**62)))
        if weights is not self._weights:
            self._params = jax.device_put(weights)
            self._weights = weights
        out, self._key = self._step(self._params, obs, self._key)
        if isinstance(out, tuple):
            actions, extras = out
            return np.asarray(actions), {k: np.asarray(v) for k, v in extras.items()}
        return np.asarray(out)
