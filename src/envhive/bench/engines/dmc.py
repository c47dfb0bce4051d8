"""dm_control's own loop of a DeepMind Control Suite task: `suite.load` (behind its pixels wrapper
with `from_pixels`) stepped by its dm_env loop, one env on one core."""

from __future__ import annotations

from itertools import cycle, islice

from envhive.bench.engines.base import POOL_SINGLE, Engine, Runner, task_kwargs
from envhive.bench.engines.reference import is_dmc


def _build_dm_control(task: str, num_envs: int, batch_size: int, num_threads: int | None, seed: int) -> Runner:
    import numpy as np

    from envhive.bench.dm_control_env import load

    if not is_dmc(task):
        raise ValueError(f"{task} is not a DeepMind Control Suite task")
    env = load(task, seed, **task_kwargs())
    spec = env.action_spec()
    rng = np.random.default_rng(seed)
    actions = cycle([rng.uniform(spec.minimum, spec.maximum, spec.shape) for _ in range(POOL_SINGLE)])
    step, reset = env.step, env.reset
    reset()

    def advance(n: int) -> None:
        for a in islice(actions, n):
            if step(a).last():
                reset()

    return Runner(advance, env.close, 1)


DM_CONTROL = Engine(
    "dm-control",
    "dm_control's own env (suite.load) and dm_env loop, one env, one core (DMC tasks)",
    "dm_control",
    "dm_control not installed: pip install 'envhive[dmc]' && pip install --no-deps dm-control==1.0.52",
    _build_dm_control,
    vectorized=False,
    label="1 env, dm_env loop",
    kwargs=True,
)
