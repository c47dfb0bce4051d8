"""What a task is, independent of any pool: from a module's manifest, or from the loaded module."""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from envhive.spaces import AgentDecl, ConfigDecl, InfoDecl, RenderDecl, SpaceDecl

# Gymnasium's grammar of an environment id ([namespace/]name[-vN]); every listed task is registered
# with Gymnasium, so a plug-in's ids must follow it.
TASK_ID = re.compile(r"(?:[\w:-]+/)?[\w:.-]+?(?:-v\d+)?")


@dataclass(frozen=True)
class DefaultSpaces:
    """A task's spaces (and frames) for its default config."""

    observation: SpaceDecl
    action: SpaceDecl
    infos: tuple[InfoDecl, ...]
    render: RenderDecl | None = None  # None: the task has no renderer
    agents: tuple[AgentDecl, ...] = ()  # a multi-agent task's agents (csrc/core/multi_agent.h); () for one agent


@dataclass(frozen=True)
class TaskInfo:
    """What a task is, independent of any pool."""

    id: str
    module: str
    family: str
    doc: str
    max_episode_steps: int  # the default time limit; 0: none
    hidden: bool  # an engine test task: makeable, but not listed nor registered with Gymnasium
    config: tuple[ConfigDecl, ...]  # every kwarg, max_episode_steps included
    reset_options: tuple[tuple[str, str], ...]  # per-env reset(options=...) names and docs
    default_spaces: DefaultSpaces | None  # None: known only by loading the module
    # max_episode_steps is part of the task (minigrid's max_steps scales its reward), not only a
    # truncation: a single env keeps it and Gymnasium registers no TimeLimit around the id.
    task_time_limit: bool = False

    @property
    def multi_agent(self) -> bool:
        """A task of several agents (PettingZoo's parallel API: envhive.multiagent)."""
        return self.default_spaces is not None and bool(self.default_spaces.agents)

    @property
    def defaults(self) -> dict[str, Any]:
        return {f.name: f.default for f in self.config}

    @property
    def config_docs(self) -> dict[str, str]:
        return {f.name: f.doc for f in self.config}

    @classmethod
    def from_module(cls, module: ModuleType, task_id: str) -> TaskInfo:
        """A loaded module's own account of a task (what its manifest says, for a built-in one)."""
        t = module.task_info(task_id)
        s = module.task_spaces(task_id, {})
        return cls(
            id=t.id,
            module=module.__name__,
            family=t.family,
            doc=t.doc,
            max_episode_steps=t.max_episode_steps,
            hidden=t.hidden,
            task_time_limit=t.task_time_limit,
            config=tuple(ConfigDecl(f.name, f.default, f.doc) for f in t.config),
            reset_options=tuple((n, d) for n, d in t.reset_options),
            default_spaces=DefaultSpaces(
                SpaceDecl.of(s.observation),
                SpaceDecl.of(s.action),
                tuple(InfoDecl.of(i) for i in s.infos),
                RenderDecl.of(s.render),
                tuple(AgentDecl.of(a) for a in s.agents),
            ),
        )

    @classmethod
    def from_manifest(cls, task_id: str, module: str, entry: dict[str, Any]) -> TaskInfo:
        spaces = entry.get("spaces")
        return cls(
            id=task_id,
            module=module,
            family=str(entry["family"]),
            doc=str(entry.get("doc", "")),
            max_episode_steps=int(entry.get("max_episode_steps", 0)),
            hidden=bool(entry.get("hidden", False)),
            config=tuple(ConfigDecl(str(n), d, str(doc)) for n, d, doc in entry.get("config", ())),
            reset_options=tuple((str(n), str(doc)) for n, doc in entry.get("reset_options", ())),
            default_spaces=None
            if spaces is None
            else DefaultSpaces(
                SpaceDecl.from_json(spaces["observation"]),
                SpaceDecl.from_json(spaces["action"]),
                tuple(InfoDecl.from_json(i) for i in spaces["infos"]),
                RenderDecl.from_json(spaces.get("render")),
                tuple(AgentDecl.from_json(a) for a in spaces.get("agents", ())),
            ),
            task_time_limit=bool(entry.get("task_time_limit", False)),
        )
