"""EnvPool's task ids and kwargs as envhive's: the ids EnvPool names differently (``phys2d/CartPole-v1``,
``Ant-v3``, ...), EnvPool's pool kwargs (``seed`` / ``env_seed``, ``max_num_players``, ...) and its
render kwargs here; each family's own (MuJoCo's ``healthy_z_min``, Atari's ``task``, the DeepMind
Control Suite's ``frame_skip`` and ``task_name``) in its descriptor (``envhive.families.<name>``:
``EnvPoolNames``). A value envhive cannot run is refused naming EnvPool's and envhive's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from envhive import families
from envhive.envpool.errors import EnvPoolArgumentError, EnvPoolUnknownTaskError
from envhive.families.base import EnvPoolNames, Family
from envhive.registry import list_envs, task_info


# ------------------------------------------------------------------------------------ task ids
def _envpool_names() -> list[EnvPoolNames]:
    return [family.envpool for family in families.builtin() if family.envpool is not None]


def _aliases() -> dict[str, tuple[str, Mapping[str, Any]]]:
    """EnvPool ids that name an envhive task differently (each family's descriptor lists its own):
    EnvPool id -> (envhive id, kwargs it implies)."""
    return {alias: target for names in _envpool_names() for alias, target in names.aliases.items()}


def _not_in_envhive() -> dict[str, str]:
    """EnvPool ids of families envhive has, but no envhive task, and why."""
    return {task_id: why for names in _envpool_names() for task_id, why in names.not_in_envhive.items()}


def resolve_id(task_id: str) -> tuple[str, dict[str, Any]]:
    if not isinstance(task_id, str):
        raise TypeError(f"task_id must be a str, got {task_id!r}")
    missing = _not_in_envhive()
    if task_id in missing:
        raise EnvPoolUnknownTaskError(f"{task_id} is not available in envhive: {missing[task_id]}")
    target, implied = _aliases().get(task_id, (task_id, {}))
    return target, dict(implied)


def list_all_envs() -> list[str]:
    """Every task id this module makes: envhive's, and EnvPool's names for them."""
    ids = list_envs()
    known = set(ids)
    return ids + [alias for alias, (target, _) in _aliases().items() if target in known]


# ------------------------------------------------------------------------------------ kwargs
# EnvPool's pool kwargs, in the order its Config lists them.
_COMMON = ("num_envs", "batch_size", "num_threads", "max_num_players", "thread_affinity_offset", "seed", "env_seed")
RENDER_KWARGS = ("render_mode", "render_env_id", "render_width", "render_height", "render_camera_id", "from_pixels")
_INT32 = 2**31


def _check_seed(seed: Any, name: str) -> int:
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool | np.bool_):
        raise TypeError(f"{name} must be an int, got {seed!r}")
    if not -_INT32 <= seed < _INT32:
        raise EnvPoolArgumentError(f"Seed should be in range of int32, got {seed}")
    if seed < 0:
        raise EnvPoolArgumentError(f"envhive seeds are non-negative, got {name}={seed}")
    return int(seed)


def translate_common(kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]) -> None:
    """EnvPool's pool kwargs -> envhive's (``out``) and EnvPool's Config entries (``view``)."""
    num_envs = kwargs.pop("num_envs", 1)
    out["num_envs"] = num_envs
    if "batch_size" in kwargs:
        out["batch_size"] = kwargs.pop("batch_size")
    if "num_threads" in kwargs:
        out["num_threads"] = kwargs.pop("num_threads")
    if kwargs.pop("max_num_players", 1) != 1:
        raise EnvPoolArgumentError("max_num_players: envhive's tasks are single-player (max_num_players=1)")
    if "thread_affinity_offset" in kwargs:
        out["thread_affinity_offset"] = kwargs.pop("thread_affinity_offset")
    if "base_path" in kwargs:
        raise TypeError(
            "base_path: envhive reads Atari ROMs from the installed ale-py (or $ALE_ROMS_DIR) and MuJoCo models "
            "from the installed gymnasium; give a model file with xml_file"
        )
    if not kwargs.pop("gym_reset_return_info", True):
        raise EnvPoolArgumentError("gym_reset_return_info=False: reset() always returns (obs, info), as in EnvPool 1.2")
    seed = kwargs.pop("seed", 42)
    env_seed = kwargs.pop("env_seed", None)
    if isinstance(seed, list | tuple | np.ndarray):
        if env_seed is not None:
            raise EnvPoolArgumentError("Pass either `seed` as an int or seed list, or `env_seed`, but not both.")
        env_seed, seed = seed, 0
    if env_seed is not None and len(env_seed) > 0:
        seeds = [_check_seed(s, "env_seed") for s in np.asarray(env_seed).reshape(-1).tolist()]
        out["seed"] = seeds
        view.update(seed=seed, env_seed=seeds)
    elif seed is None:
        out["seed"] = None
        view.update(seed=None, env_seed=[])
    else:
        out["seed"] = _check_seed(seed, "seed")
        view.update(seed=out["seed"], env_seed=[])
    if "max_episode_steps" in kwargs:
        out["max_episode_steps"] = kwargs.pop("max_episode_steps")
    if "autoreset_mode" in kwargs:  # envhive's own (EnvPool has NEXT_STEP only)
        out["autoreset_mode"] = kwargs.pop("autoreset_mode")


def check_render(task_id: str, render_kwargs: dict[str, Any], kwargs: dict[str, Any]) -> tuple[str | None, int]:
    """EnvPool's render kwargs: the mode and the default env of ``render()``; the frame size and
    camera go into ``kwargs`` as the task's own (MuJoCo's ``width``/``height``/``camera_id``), and a
    DMC task's ``from_pixels`` makes them its observation."""
    mode = render_kwargs.pop("render_mode", None)
    if mode not in (None, "rgb_array", "human"):
        raise EnvPoolArgumentError("render_mode must be one of None, 'rgb_array', or 'human'")
    if mode == "human":
        raise EnvPoolArgumentError(
            f"{task_id}: envhive opens no window (render_mode='human'); use render_mode='rgb_array' and show the frames"
        )
    from_pixels = render_kwargs.pop("from_pixels", False)
    env_id = render_kwargs.pop("render_env_id", None)
    given = {k: v for k, v in render_kwargs.items() if v is not None}
    if from_pixels:
        target, _ = resolve_id(task_id)
        names = family_of(target).envpool if target in list_envs() else None
        if names is None or not names.pixel_observations:
            raise EnvPoolArgumentError(
                f"{task_id}: envhive's from_pixels observations are the DeepMind Control Suite's; render() the frames"
            )
        # EnvPool's pixel observation: one (3 * frame_stack, H, W) uint8 Box, 84 x 84 from the free camera
        # unless its render kwargs say otherwise
        kwargs.update(
            from_pixels=True,
            flatten=True,
            channels_first=True,
            height=int(given.get("render_height", 84)),
            width=int(given.get("render_width", 84)),
            camera_id=int(given.get("render_camera_id", -1)),
        )
        given = {}
    if mode is None:
        if given or env_id is not None:
            raise EnvPoolArgumentError(f"{task_id}: {', '.join(sorted(given) or ['render_env_id'])} need render_mode")
        return None, 0
    info = task_info(resolve_id(task_id)[0])
    for envpool_name, hive_name in (
        ("render_width", "width"),
        ("render_height", "height"),
        ("render_camera_id", "camera_id"),
    ):
        if envpool_name not in given:
            continue
        if hive_name in info.defaults:
            kwargs[hive_name] = int(given[envpool_name])
            continue
        # a task whose frames have one size (Gymnasium's): that size is accepted, any other refused
        render = info.default_spaces.render if info.default_spaces is not None else None
        native = {"width": render.width, "height": render.height} if render is not None else {}
        if hive_name in native and given[envpool_name] == native[hive_name]:
            continue
        size = f"{native['width']} x {native['height']}" if native else "fixed"
        raise EnvPoolArgumentError(
            f"{task_id}: {envpool_name}={given[envpool_name]!r}: envhive draws this task's frames at Gymnasium's "
            f"size ({size}, width x height) and has no other camera; leave {envpool_name} out"
        )
    kwargs["render_mode"] = mode
    return mode, int(env_id or 0)


def family_of(task_id: str) -> Family:
    """The descriptor of an envhive task's family (a plug-in's task: a family with no EnvPool names)."""
    info = task_info(task_id)
    return families.by_task_family().get(info.family) or Family(info.family, info.module, "")
