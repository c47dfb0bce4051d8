"""What envhive's Python side knows of a family of tasks: its descriptor.

A family is one unit: its C++ in ``csrc/envs/<family>/`` (one ``envhive_add_family`` call in its
``family.cmake``: sources, dependencies, register function, the data it is handed, its loop
benchmark), this descriptor in ``src/envhive/families/<family>.py`` (the module ``FAMILY``), and its
tests in ``tests/families/<family>/``. Nothing else names a family: the catalog, the EnvPool
drop-in, ``envhive bench`` and the docs' tables read the descriptors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for annotations only: the catalog imports the descriptors
    from envhive.catalog.tasks import TaskInfo

Files = list[tuple[str, bytes]]
"""Files built on demand, ``(name, contents)``."""
Resolver = Callable[[str, Mapping[str, int]], Files]
"""``resolver(key, args) -> files``: what a family's C++ asks for with ``FamilyData::resolve``."""
EnvPoolTranslation = Callable[[str, "TaskInfo", dict[str, Any], dict[str, Any], dict[str, Any]], None]
"""``translate(envpool_id, info, kwargs, out, view)``: EnvPool's kwargs of one of the family's tasks
into envhive's, in place (``kwargs``: the task's own; ``out``: the pool's; ``view``: EnvPool's Config
entries); raises ``envhive.errors.EnvPoolArgumentError`` for a value envhive cannot run."""
TaskMethods = Callable[[str, Mapping[str, Any]], Mapping[str, Callable[..., Any]]]
"""``task_methods(task_id, config) -> {name: method}``: the methods a task offers beyond Gymnasium's
(a GoalEnv's ``compute_reward``), for a pool of the task with its resolved ``config``."""


@dataclass(frozen=True)
class EnvPoolNames:
    """How EnvPool names the family's tasks and kwargs (``envhive.envpool``)."""

    aliases: Mapping[str, tuple[str, Mapping[str, Any]]] = field(default_factory=dict)
    """EnvPool ids that name an envhive task differently: EnvPool id -> (envhive id, kwargs it implies)."""
    not_in_envhive: Mapping[str, str] = field(default_factory=dict)
    """EnvPool ids of the family that envhive does not run, and why."""
    translate: EnvPoolTranslation | None = None
    config_view: Callable[[str, Mapping[str, Any]], Mapping[str, Any]] | None = None
    """``config_view(target, config)``: EnvPool's Config entries for what envhive runs (its names of
    the task's fixed parameters), from the envhive id and the resolved config of the pool."""
    info_casts: Mapping[str, Any] = field(default_factory=dict)
    """Info fields EnvPool reports in another dtype (Atari's ``reward``: float32)."""
    pixel_observations: bool = False
    """EnvPool's ``from_pixels`` makes frames the observation (the DeepMind Control Suite)."""


@dataclass(frozen=True)
class Family:
    """A family's descriptor. ``name`` is its folder (``csrc/envs/<name>/``) and, unless
    ``task_families`` says otherwise, the ``family`` of its tasks."""

    name: str
    module: str
    """The extension module that carries it (``envhive._mujoco``; families may share one)."""
    doc: str
    task_families: tuple[str, ...] = ()
    """The ``family`` its tasks report, when it is not ``name`` alone (minigrid: minigrid and babyai)."""
    extra: str | None = None
    """The pip extra with its runtime dependencies (``envhive[<extra>]``)."""
    requires: str | None = None
    """The Python package that extra provides and the module needs at run time."""
    preload: str | None = None
    """A package imported before the module, whose shared library the module links (mujoco)."""
    resolver: Resolver | None = None
    """Files its C++ asks for on demand (``envhive_add_family(... RESOLVER)``: dm_control's models)."""
    envpool: EnvPoolNames | None = None
    loop_bench_data: Callable[[TaskInfo, Path], dict[str, str]] | None = None
    """For ``<name>_loop_bench`` of a task: data beyond the family's DATA, written into a folder
    (dm_control's model files, CarRacing's glyphs)."""
    tasks_vary: Callable[[], bool] | None = None
    """Whether the module's task set may differ now from its manifest (Atari: ``$ALE_ROMS_DIR`` names
    another ROM folder); only then does an id no manifest lists load the module to look for it.
    None: the manifest lists every task."""
    reference_id: Callable[[str], str] | None = None
    """The id of a task's reference with ``gymnasium.make`` (ALE's ``ALE/Pong-v5``), importing the
    package that registers it; None: the same id."""
    time_limit_kwarg: str | None = None
    """For tasks whose episode limit is their own (``TaskInfo.task_time_limit``: minigrid's
    ``max_steps``, which also scales the success reward), the reference constructor's kwarg that holds
    it: ``max_episode_steps`` on the process and Ray backends sets it instead of adding a
    ``TimeLimit``, so the limit means one thing on every backend."""
    task_methods: TaskMethods | None = None
    """The methods of a task that its reference env has beyond Gymnasium's API and that need no
    stepping (Gymnasium-Robotics' ``compute_reward`` / ``compute_terminated`` / ``compute_truncated``,
    which HER relabels with): every facade answers them by name (``HiveVectorEnv``'s attributes, the
    single env's, SB3's ``env_method``), through ``envhive.families.task_methods``. Plain Python over
    arrays: they never touch the pool's envs."""

    @property
    def families(self) -> tuple[str, ...]:
        """Every ``family`` its tasks report."""
        return self.task_families or (self.name,)
