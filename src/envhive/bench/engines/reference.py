"""The reference env of a task: the Gymnasium env (or ALE ROM) every other engine runs for it; for a
DeepMind Control task, dm_control's own env behind a Gymnasium adapter (`envhive.bench.dm_control_env`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from envhive.bench.engines.base import task_kwargs
from envhive.families.base import Family

if TYPE_CHECKING:
    import gymnasium


def gymnasium_id(task: str) -> str:
    """The Gymnasium id of an envhive task's reference: the same name, or what its family's
    descriptor says (ALE tasks live under `ALE/`; minigrid's ids exist once minigrid is imported)."""
    import gymnasium

    if task in gymnasium.registry:
        return task
    family = _family(task)
    return family.reference_id(task) if family is not None and family.reference_id is not None else task


def is_dmc(task: str) -> bool:
    """A DeepMind Control Suite task (its references are dm_control's own envs)."""
    family = _family(task)
    return family is not None and family.name == "dmc"


def _family(task: str) -> Family | None:
    """The descriptor of a task's family (None: not an envhive task)."""
    from envhive import catalog, families  # the measured engine is imported only in its own worker process

    info = catalog.find(task)
    return None if info is None else families.by_task_family().get(info.family)


def reference_env_fn(task: str) -> Callable[[], gymnasium.Env[Any, Any]]:
    """A function making one Gymnasium env doing what envhive's task does: the same id. For Atari
    that is EnvPool's defaults (the DQN recipe envhive's Atari tasks follow): ALE's raw frames
    (frameskip=1, no sticky actions) through AtariPreprocessing(noop_max=30, frame_skip=4 with
    max-pooling, 84x84 gray) and a 4-frame stack -- ALE's own v5 defaults (sticky actions, no
    preprocessing) would not be like for like."""
    import gymnasium

    if is_dmc(task):  # dm_control's own env (what Shimmy's wrapper does, written here)
        from envhive.bench.dm_control_env import DmControlGymEnv

        return functools.partial(DmControlGymEnv, task, **task_kwargs())
    gid = gymnasium_id(task)
    if not gid.startswith("ALE/"):
        kwargs = task_kwargs()
        return lambda: gymnasium.make(gid, **kwargs)

    def make_atari() -> gymnasium.Env[Any, Any]:
        import ale_py
        from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

        gymnasium.register_envs(ale_py)  # also in a subprocess vectoriser's child processes
        env = gymnasium.make(gid, frameskip=1, repeat_action_probability=0.0)
        env = AtariPreprocessing(env, noop_max=30, frame_skip=4, screen_size=84, grayscale_obs=True)
        return FrameStackObservation(env, 4)

    return make_atari


def gymnasium_env(task: str) -> gymnasium.Env[Any, Any]:
    """One reference env of `task` (`reference_env_fn`)."""
    return reference_env_fn(task)()


def atari_rom_id(task: str) -> str:
    """Pong-v5 -> pong, MontezumaRevenge-v5 -> montezuma_revenge (ale-py's ROM ids)."""
    import ale_py.roms

    name = task.rsplit("-", 1)[0].lower()
    for rom in ale_py.roms.get_all_rom_ids():
        if rom.replace("_", "") == name:
            return rom
    raise ValueError(f"no ALE ROM for {task}")
