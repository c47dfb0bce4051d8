"""envhive on Ray: envs past one machine (needs Ray: ``pip install "envhive[ray]"``).

- ``RayVectorEnv``: a HiveVectorEnv over ``EnvShard`` actors (``RayBackend``) (one envhive pool each) on any
  nodes; global env ids and seeds independent of the split; sync, or async first-ready across shards.
- ``RolloutWorkers``: one pool plus the policy per actor, streaming fixed-length trajectories to
  the learner (``unrolls_per_call`` of them per Ray call), weights pushed to the workers (IMPALA /
  Sebulba style): the design that pays when one Ray call (0.1-1 ms) costs hundreds of env steps.
- RLlib: ``envhive.adapters.rllib`` ids in EnvRunners size their pool's threads from
  ``num_cpus_per_env_runner`` (``assigned_cpus``).

See docs/distributed.md for when to use which.
"""

from __future__ import annotations

from envhive.ray.backend import RayBackend
from envhive.ray.policies import JaxPolicy, TorchScriptPolicy
from envhive.ray.rollout import RolloutWorker, RolloutWorkers
from envhive.ray.shard import EnvShard, ShardLayout, assigned_cpus, incarnation_seeds
from envhive.ray.trajectory import Trajectory, TrajectoryBatch
from envhive.ray.vector import RayVectorEnv

__all__ = [
    "EnvShard",
    "JaxPolicy",
    "RayBackend",
    "RayVectorEnv",
    "RolloutWorker",
    "RolloutWorkers",
    "ShardLayout",
    "TorchScriptPolicy",
    "Trajectory",
    "TrajectoryBatch",
    "assigned_cpus",
    "incarnation_seeds",
]
