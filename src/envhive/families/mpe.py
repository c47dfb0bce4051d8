"""The Multi-Agent Particle Environments (``csrc/envs/mpe/``, module ``envhive._mpe``): mpe2 1.1.1's
nine classic scenarios as multi-agent tasks, written in C++ with no dependency. Ids and kwargs are
mpe2's (``simple_spread_v3``, ``N``, ``local_ratio``, ``max_cycles``, ``continuous_actions``, ...);
env i of a pool seeded ``s`` is mpe2's ``parallel_env(...)`` reset with seed ``s + i``."""

from __future__ import annotations

from envhive.families.base import Family

# mpe2's module names, in the order the family lists them (most used first).
TASK_IDS: tuple[str, ...] = (
    "simple_spread_v3",
    "simple_adversary_v3",
    "simple_tag_v3",
    "simple_v3",
    "simple_push_v3",
    "simple_speaker_listener_v4",
    "simple_reference_v3",
    "simple_crypto_v3",
    "simple_world_comm_v3",
)

REFERENCE_REQUIREMENT = "mpe2==1.1.1"
"""The reference the lock-step tests and benchmarks compare against (with pettingzoo 1.27.0)."""


def reference_parallel_env(task_id: str, **kwargs: object) -> object:
    """mpe2's ``parallel_env`` of a task id (``simple_spread_v3``), built with ``kwargs``."""
    import importlib

    if task_id not in TASK_IDS:
        raise ValueError(f"{task_id!r} is not an MPE task id (one of {', '.join(TASK_IDS)})")
    module = importlib.import_module(f"mpe2.{task_id}")
    return module.parallel_env(**kwargs)


FAMILY = Family(
    name="mpe",
    module="envhive._mpe",
    doc="mpe2's Multi-Agent Particle Environments (multi-agent tasks)",
)
