"""Procgen (``csrc/envs/procgen/``, module ``envhive._procgen``): the 16 games of OpenAI's Procgen
Benchmark on the official procgen 0.10.7 engine.

The games run on the official procgen 0.10.7 engine: the ``libenv.so`` of its Linux x86_64 wheel
(Qt linked in statically, LGPL-3.0) and the wheel's assets. envhive never ships that library; it is
unpacked into a cache (the build's, filled at configure time by ``csrc/envs/procgen/engine.cmake``,
else the user's, filled here on first use with the same pip command and the same pinned hash) and
loaded by the module with ``dlopen(RTLD_LOCAL)``. Linux x86_64 only: the only platform the wheel
has. The library needs the system's glib (``libglib2.0-0``; ``make install`` adds it).

Also here: the 16 games, their distribution modes and EnvPool's 50 ids and config values.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from envhive.errors import EnvPoolArgumentError
from envhive.families import _wheel_cache as wheel_cache
from envhive.families.base import EnvPoolNames, Family, Files

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo

ENGINE_VERSION = "0.10.7"
WHEEL_SHA256 = "4b594d14e42f0f2166e59a9e294477b906eb99c90c3343b570b7124cbc865f53"
# The command that fetches the wheel (what the errors name; fetch_engine adds --require-hashes).
PIP_COMMAND = (
    "python -m pip download --no-deps --only-binary :all: --python-version 3.10 "
    f"--platform manylinux2014_x86_64 procgen=={ENGINE_VERSION}"
)
ENGINE_DIR_ENV = "ENVHIVE_PROCGEN_DIR"  # a folder holding libenv.so and assets/ (used as is)
CACHE_DIR_ENV = "ENVHIVE_PROCGEN_CACHE_DIR"  # where the engine is unpacked (default: the user's cache)
_FOLDER = f"procgen-{ENGINE_VERSION}-{WHEEL_SHA256[:12]}"

GAMES = (
    "bigfish", "bossfight", "caveflyer", "chaser", "climber", "coinrun", "dodgeball", "fruitbot",
    "heist", "jumper", "leaper", "maze", "miner", "ninja", "plunder", "starpilot",
)  # fmt: skip
# procgen's DistributionMode values (EnvPool's distribution_mode config takes these numbers).
MODE_CODES = {"easy": 0, "hard": 1, "extreme": 2, "memory": 10, "exploration": 20}
# The modes procgen 0.10.7 accepts for each game (easy and hard: every game).
EXTREME = ("chaser", "dodgeball", "leaper", "starpilot")
MEMORY = ("caveflyer", "dodgeball", "heist", "jumper", "maze", "miner")
# The one level of each game's exploration mode (procgen/env.py's EXPLORATION_LEVEL_SEEDS).
EXPLORATION_LEVELS = {
    "coinrun": 1949448038, "caveflyer": 1259048185, "leaper": 1318677581, "jumper": 1434825276,
    "maze": 158988835, "heist": 876640971, "climber": 1561126160, "ninja": 1123500215,
}  # fmt: skip
EXPLORATION = tuple(sorted(EXPLORATION_LEVELS))
# The engine's own episode clock per game (Game::timeout; jumper's memory mode: 2000).
TIMEOUTS = {"bigfish": 6000, "bossfight": 4000, "leaper": 500, "maze": 500, "plunder": 4000}


class ProcgenEngineError(RuntimeError):
    """The procgen engine cannot be had here (an unsupported platform, no index to fetch it from, a
    file whose hash is not the pinned one)."""


def modes(game: str) -> tuple[str, ...]:
    """The distribution modes procgen allows for `game`, in procgen's order."""
    extra = [
        m for m, games in (("extreme", EXTREME), ("memory", MEMORY), ("exploration", EXPLORATION)) if game in games
    ]
    return ("easy", "hard", *extra)


def timeout(game: str, mode: str = "hard") -> int:
    """The number of steps after which the engine ends a level by itself."""
    return 2000 if (game, mode) == ("jumper", "memory") else TIMEOUTS.get(game, 1000)


def gym_id(game: str) -> str:
    """Upstream gym's id: ``procgen-coinrun-v0``."""
    return f"procgen-{game}-v0"


def envpool_id(game: str, mode: str) -> str:
    """EnvPool's id: ``CoinrunHard-v0``."""
    return f"{game.capitalize()}{mode.capitalize()}-v0"


# EnvPool's ids -> (game, mode): its 50 (every game in each mode procgen allows it).
ENVPOOL_IDS: dict[str, tuple[str, str]] = {envpool_id(g, m): (g, m) for g in GAMES for m in modes(g)}
TASK_IDS: tuple[str, ...] = tuple(gym_id(g) for g in GAMES) + tuple(ENVPOOL_IDS)


def game_mode(task_id: str) -> tuple[str, str]:
    """(game, default mode) of one of the family's ids."""
    return ENVPOOL_IDS.get(task_id) or (task_id.removeprefix("procgen-").removesuffix("-v0"), "hard")


def check_platform() -> None:
    """Raises ProcgenEngineError off Linux x86_64 (the only platform the official wheel has)."""
    system, machine = platform.system(), platform.machine().lower()
    if system != "Linux" or machine not in ("x86_64", "amd64"):
        raise ProcgenEngineError(
            f"envhive's Procgen runs the official procgen {ENGINE_VERSION} engine, which exists for Linux x86_64 "
            f"only (this is {system} {machine})"
        )


def _complete(folder: Path) -> bool:
    return wheel_cache.complete(folder) and (folder / "libenv.so").is_file() and (folder / "assets").is_dir()


def engine_dir(build_cache: str = "") -> Path:
    """The folder holding the engine (``libenv.so``, ``assets/``): $ENVHIVE_PROCGEN_DIR as given,
    else the build's cache (`build_cache`, which the module names), else the user's cache, fetched
    into it when missing."""
    check_platform()
    if os.environ.get(ENGINE_DIR_ENV):
        folder = Path(os.environ[ENGINE_DIR_ENV])
        if not (folder / "libenv.so").is_file() or not (folder / "assets").is_dir():
            raise ProcgenEngineError(f"${ENGINE_DIR_ENV}={folder} holds no libenv.so and assets/")
        return folder
    if build_cache and _complete(Path(build_cache)):
        return Path(build_cache)
    folder = wheel_cache.user_cache(CACHE_DIR_ENV) / _FOLDER
    if not _complete(folder):
        fetch_engine(folder)
    return folder


def engine_files(build_cache: str = "") -> tuple[str, str]:
    """(the library, the assets folder with its trailing slash): what ``envhive._procgen`` loads."""
    folder = engine_dir(build_cache)
    return str(folder / "libenv.so"), str(folder / "assets") + os.sep


def fetch_engine(folder: Path) -> None:
    """Fetches the official wheel with pip (the pinned hash required), checks it, and unpacks its
    libenv.so and assets into `folder` (then stamped). Raises ProcgenEngineError naming the command."""
    check_platform()

    def member(name: str) -> str | None:
        if name == "procgen/data/prebuilt/libenv.so":
            return "libenv.so"
        return name.removeprefix("procgen/data/") if name.startswith("procgen/data/assets/") else None

    pip_args = ["--only-binary", ":all:", "--python-version", "3.10", "--platform", "manylinux2014_x86_64"]
    hint = (
        "Or fetch the wheel elsewhere, unpack its procgen/data/prebuilt/libenv.so and procgen/data/assets/ into "
        f"one folder and set ${ENGINE_DIR_ENV} to it."
    )
    wheel_cache.fetch_wheel_members(
        f"procgen=={ENGINE_VERSION}", WHEEL_SHA256, pip_args, folder, member, PIP_COMMAND, ProcgenEngineError, hint
    )
    if not _complete(folder):
        raise ProcgenEngineError(f"the procgen {ENGINE_VERSION} wheel holds no procgen/data/prebuilt/libenv.so")


# ----------------------------------------------------------------------------- EnvPool's names
def translate_envpool(
    envpool_id: str, info: TaskInfo, kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]
) -> None:
    """EnvPool's Procgen kwargs -> envhive's, in place; EnvPool's Config entries into `view`.

    Seeding differs from EnvPool's and is not translated: envhive's env i of ``seed=s`` is the
    official engine made with ``rand_seed=s + i`` (procgen's ``ProcgenGym3Env(num=1, rand_seed=s + i)``),
    where EnvPool 1.2.5 seeds env i's level generator with the (i + 1)-th draw of procgen's
    ``RandGen`` seeded ``s`` (what ``ProcgenGym3Env(num=num_envs, rand_seed=s)`` gives its env i), and
    starts one more level at every episode end (its Reset draws again after the engine's own reset).
    Env 0's first level is the same in both; nothing after it is."""
    game, mode = game_mode(info.id)
    name = kwargs.pop("env_name", game)
    if isinstance(name, bytes):
        name = name.decode()
    if name != game:
        raise EnvPoolArgumentError(
            f"{envpool_id} plays procgen's {game!r}; env_name={name!r} names another game (its own id)"
        )
    dist = kwargs.pop("distribution_mode", mode)
    if isinstance(dist, int) and not isinstance(dist, bool):
        names = {code: m for m, code in MODE_CODES.items()}
        if dist not in names:
            raise EnvPoolArgumentError(f"distribution_mode={dist}: EnvPool's values are {sorted(names)} ({names})")
        dist = names[dist]
    if not isinstance(dist, str) or dist not in MODE_CODES:
        raise EnvPoolArgumentError(
            f"distribution_mode={dist!r}: one of {sorted(MODE_CODES)} or EnvPool's numbers for them"
        )
    kwargs["distribution_mode"] = dist
    kwargs.setdefault("channel_first", True)
    easy_jump = kwargs.pop("use_easy_jump", False)
    if not isinstance(easy_jump, bool):
        raise TypeError(f"use_easy_jump must be a bool, got {easy_jump!r}")
    # use_easy_jump: procgen reads it in coinrun_old only, none of the 16 games: it changes nothing.
    # EnvPool's Config entries where they are not envhive's kwargs (the others are, by name and value).
    view.update(env_name=game, channel_first=kwargs["channel_first"], use_easy_jump=easy_jump)


def config_view(target: str, config: Mapping[str, Any]) -> Mapping[str, Any]:
    """EnvPool's Config entries for what envhive runs: its distribution_mode number, and its
    max_episode_steps, the game's own clock (which ends the level in the engine itself: envhive sets
    no pool limit)."""
    game, _ = game_mode(target)
    dist = str(config["distribution_mode"])
    return {"distribution_mode": MODE_CODES[dist], "max_episode_steps": timeout(game, dist)}


def resolve(key: str, args: Mapping[str, int]) -> Files:
    """The family's resolver (FamilyData::resolve): key ``engine`` and, after a newline, the build's
    cache folder (which the module was compiled with) -> the engine library and assets folder."""
    kind, _, build_cache = key.partition("\n")
    if kind != "engine":
        raise KeyError(f"the procgen family resolves 'engine', not {kind!r}")
    library, assets = engine_files(build_cache)
    return [("library", library.encode()), ("assets", assets.encode())]


def loop_bench_data(info: TaskInfo, scratch: Path) -> dict[str, str]:
    """procgen_loop_bench's data: the folder holding the engine."""
    return {"engine_dir": str(engine_dir())}


def reference_id(task_id: str) -> str:
    """The benchmarks' reference of a task: upstream's gym env on the official engine through ctypes
    (envhive.bench.procgen_env), registered with Gymnasium under ``procgen-reference/<id>``."""
    import gymnasium

    ref = f"procgen-reference/{task_id}"
    if ref not in gymnasium.registry:
        gymnasium.register(ref, entry_point="envhive.bench.procgen_env:OfficialProcgenEnv", kwargs={"task": task_id})
    return ref


FAMILY = Family(
    name="procgen",
    module="envhive._procgen",
    doc="Procgen's 16 games on the official procgen 0.10.7 engine (fetched into a cache; Linux x86_64)",
    resolver=resolve,
    envpool=EnvPoolNames(
        translate=translate_envpool, config_view=config_view, info_casts={"prev_level_complete": np.int32}
    ),
    loop_bench_data=loop_bench_data,
    reference_id=reference_id,
)
