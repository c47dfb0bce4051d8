"""The engines the harness can time: what each one honours, and how it steps.

One module per family of engines: `hive` (envhive's own), `gym_vector` (Gymnasium's
vectorisers), `thread_pools` (EnvPool, ale-py's vector env), `processes` (plain processes,
PufferLib), `dmc` (dm_control's own loop), `trainers` (the trainers' env APIs) and `ppo` (the
trainers' PPO); `base` is what an engine is, `reference` the Gymnasium env each runs. The
metadata (`ENGINES`) is cheap to import; the simulators themselves (envhive's native module,
EnvPool, Gymnasium) are imported only inside `build`, in the worker process.
"""

from __future__ import annotations

from envhive.bench.engines import dmc, gym_vector, hive, ppo, processes, thread_pools, trainers
from envhive.bench.engines.base import (
    ALT_ENGINE_ENV,
    ALT_PYTHON_ENV,
    Builder,
    Engine,
    Runner,
    action_pool,
    set_task_kwargs,
    task_kwargs,
)
from envhive.bench.engines.hive import LOOP_BENCH_DIR_ENV

__all__ = [
    "ALT_ENGINE_ENV",
    "ALT_PYTHON_ENV",
    "ENGINES",
    "LOOP_BENCH_DIR_ENV",
    "Builder",
    "Engine",
    "Runner",
    "action_pool",
    "set_task_kwargs",
    "task_kwargs",
]

# In the order `envhive bench --help` lists them.
ENGINES: dict[str, Engine] = {
    e.name: e
    for e in (
        *hive.POOLS,
        *processes.ENGINES,
        *gym_vector.ENGINES,
        *thread_pools.ENGINES,
        dmc.DM_CONTROL,
        hive.RENDER,
        hive.CPP_LOOP,
        *trainers.ENGINES,
        *ppo.ENGINES,
    )
}
