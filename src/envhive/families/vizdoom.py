"""ViZDoom under EnvPool's names (``csrc/envs/vizdoom/``, module ``envhive._vizdoom``).

EnvPool 1.2.5's 21 ViZDoom ids run on the ``vizdoom`` wheel (``envhive[vizdoom]``: vizdoom==1.3.2):
its C++ client, compiled into the wheel's extension and driven by the module from the pool's
threads, its engine binary and IWAD (freedoom2.wad) and its scenarios; EnvPool's four maps of its
own (D1_basic, D2_navigation, D3_battle, D4_battle2) come from the ``envpool-assets`` wheel, fetched
on first use into a cache (envhive.families._wheel_cache). Also here: the ids, and EnvPool's kwargs
in envhive's form.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envhive.errors import MissingExtraError
from envhive.families import _wheel_cache as wheel_cache
from envhive.families.base import EnvPoolNames, Family, Files

if TYPE_CHECKING:
    from envhive.catalog.tasks import TaskInfo

VIZDOOM_VERSION = "1.3.2"
ASSETS_VERSION = "0.3.0"
ASSETS_SHA256 = "b6f1d230a9f721d77cec41da8b3edb00a1db223eec8f826de919db8b9ac133e0"
ASSETS_COMMAND = f"python -m pip download --no-deps envpool-assets=={ASSETS_VERSION}"
CACHE_DIR_ENV = "ENVHIVE_VIZDOOM_CACHE_DIR"
ENVPOOL_MAPS = ("D1_basic", "D2_navigation", "D3_battle", "D4_battle2")
SCENARIOS = (
    *ENVPOOL_MAPS, "basic", "basic_audio", "basic_notifications", "cig", "deadly_corridor", "deathmatch",
    "defend_the_center", "defend_the_line", "health_gathering", "health_gathering_supreme", "multi_duel",
    "my_way_home", "predict_position", "rocket_basic", "simpler_basic", "take_cover",
)  # fmt: skip


# Engine arguments a scenario needs in ViZDoom 1.3.2 (its deathmatch maps die as a plain game, with
# EnvPool's settings; the default of their game_args).
GAME_ARGS = {"cig": "-deathmatch", "multi_duel": "-deathmatch"}


def envpool_id(scenario: str) -> str:
    """EnvPool's id of a scenario: its words capitalised, ``-v1`` (``D1_basic`` -> ``D1Basic-v1``)."""
    return "".join(word.capitalize() for word in scenario.split("_")) + "-v1"


ENVPOOL_IDS: dict[str, str] = {envpool_id(s): s for s in SCENARIOS} | {"VizdoomCustom-v1": ""}


class VizdoomFilesError(RuntimeError):
    """A file ViZDoom needs cannot be had (EnvPool's maps without an index to fetch them from)."""


def package_dir() -> Path:
    """The installed vizdoom wheel's folder (not imported)."""
    spec = importlib.util.find_spec("vizdoom")
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtraError(
            f'envhive\'s ViZDoom tasks run the vizdoom wheel, which is not installed: pip install "envhive[vizdoom]" '
            f"(vizdoom=={VIZDOOM_VERSION})"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def doom_files() -> tuple[str, str, str]:
    """(the client library, the engine binary, the IWAD) of the installed vizdoom wheel."""
    folder = package_dir()
    clients = sorted(folder.glob("vizdoom.cpython-*.so"))
    if len(clients) != 1 or not (folder / "vizdoom").is_file():
        raise MissingExtraError(f"{folder} is not a vizdoom {VIZDOOM_VERSION} wheel (no client library or engine)")
    return str(clients[0]), str(folder / "vizdoom"), str(folder / "freedoom2.wad")


def scenario_files(scenario: str) -> tuple[str, str]:
    """A scenario's (cfg, wad): the vizdoom wheel's, or EnvPool's maps, fetched when missing."""
    if scenario not in SCENARIOS:
        raise ValueError(f"no ViZDoom scenario {scenario!r}")
    if scenario in ENVPOOL_MAPS:
        folder = wheel_cache.user_cache(CACHE_DIR_ENV) / f"envpool-assets-{ASSETS_VERSION}-vizdoom-maps"
        if not wheel_cache.complete(folder):
            wheel_cache.fetch_wheel_members(
                f"envpool-assets=={ASSETS_VERSION}",
                ASSETS_SHA256,
                ["--only-binary", ":all:"],
                folder,
                lambda name: name.rsplit("/", 1)[1] if name.startswith("envpool_assets/vizdoom/maps/D") else None,
                ASSETS_COMMAND,
                VizdoomFilesError,
            )
    else:
        folder = package_dir() / "scenarios"
    return str(folder / f"{scenario}.cfg"), str(folder / f"{scenario}.wad")


def translate_envpool(
    envpool_id: str, info: TaskInfo, kwargs: dict[str, Any], out: dict[str, Any], view: dict[str, Any]
) -> None:
    """EnvPool's ViZDoom kwargs -> envhive's, in place: its reward_config (name -> (rise, fall)),
    selected_weapon_reward_config (slot -> reward) and delta_button_config (name -> (num, low, high))
    as tables of number lists."""
    if "reward_config" in kwargs:
        kwargs["reward_config"] = {str(k): [float(x) for x in v] for k, v in dict(kwargs["reward_config"]).items()}
    if "selected_weapon_reward_config" in kwargs:
        table = dict(kwargs["selected_weapon_reward_config"])
        kwargs["selected_weapon_reward_config"] = {str(int(k)): [float(v)] for k, v in table.items()}
    if "delta_button_config" in kwargs:
        table = dict(kwargs["delta_button_config"])
        kwargs["delta_button_config"] = {str(k): [float(x) for x in v] for k, v in table.items()}
    for key in ("cfg_path", "wad_path", "vzd_path", "iwad_path", "lmp_save_dir", "game_args", "map_id"):
        if isinstance(kwargs.get(key), bytes):
            kwargs[key] = kwargs[key].decode()


def resolve(key: str, args: Mapping[str, int]) -> Files:
    """The family's resolver (FamilyData::resolve): ``doom`` -> the wheel's client library, engine
    and IWAD; ``scenario:<name>`` -> the scenario's cfg and wad."""
    if key == "doom":
        client, engine, iwad = doom_files()
        return [("client", client.encode()), ("engine", engine.encode()), ("iwad", iwad.encode())]
    kind, _, scenario = key.partition(":")
    if kind != "scenario":
        raise KeyError(f"the vizdoom family resolves 'doom' and 'scenario:<name>', not {key!r}")
    cfg, wad = scenario_files(scenario)
    return [("cfg", cfg.encode()), ("wad", wad.encode())]


FAMILY = Family(
    name="vizdoom",
    module="envhive._vizdoom",
    doc="EnvPool's 21 ViZDoom ids on the vizdoom wheel's C++ client, engine and scenarios",
    extra="vizdoom",
    requires="vizdoom",
    resolver=resolve,
    envpool=EnvPoolNames(translate=translate_envpool),
)
