"""The process backend: any Gymnasium env, in worker processes over one shared-memory arena.

    import envhive
    env = envhive.make("highway-v0", num_envs=16)                  # no native task: process backend
    env = envhive.make("CartPole-v1", num_envs=16, backend="process")  # Gymnasium's Python CartPole

See docs/process-backend.md. Modules, bottom up: ``arena`` (the memfd mapping and space leaves),
``infos`` (info records and batching), ``waiting`` (eventfds, pidfds, spin-then-block),
``protocol`` (the arena's regions and command codes), ``factory`` (what workers build),
``worker`` (the worker process), ``pool`` (starting, queueing, waiting, faults), ``rows`` (a
batch out of the arena), ``backend`` (``ProcessBackend``, the protocol of ``envhive.backend``) and
``vector`` (``ProcessVectorEnv``: an ``envhive.HiveVectorEnv`` over it).
"""

from envhive.process.backend import ProcessBackend
from envhive.process.pool import WorkerDiedError
from envhive.process.vector import PROCESS_KWARGS, ProcessVectorEnv

__all__ = ["PROCESS_KWARGS", "ProcessBackend", "ProcessVectorEnv", "WorkerDiedError"]
