"""A family is one unit in three places, as a plug-in is: its folder ``csrc/envs/<family>/`` with one
``envhive_add_family`` call in ``family.cmake``, its descriptor ``src/envhive/families/<family>.py``,
its tests ``tests/families/<family>/``. Nothing else names it: no file of ``csrc/bindings/``, no
branch of the catalog, the EnvPool drop-in or the benchmark engines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import envhive
from envhive import catalog, families

ROOT = Path(__file__).resolve().parents[1]
ENVS = ROOT / "csrc" / "envs"
CALL = re.compile(r"envhive_add_family\((.*?)\)", re.S)
# Families without a reference to be aligned with: the engine's own test tasks, and environments
# written in Python (their tests are tests/test_python_env*.py).
NO_REFERENCE = {"testing", "python"}


def cmake_families() -> dict[str, dict[str, str]]:
    """Every family.cmake's envhive_add_family call: NAME -> its single-valued arguments."""
    out = {}
    for path in sorted(ENVS.glob("*/family.cmake")):
        calls = CALL.findall(path.read_text())
        assert len(calls) == 1, f"{path}: one envhive_add_family call, found {len(calls)}"
        words = calls[0].split()
        args = {key: words[i + 1] for i, key in enumerate(words[:-1]) if key in ("NAME", "MODULE", "PACKAGE")}
        assert args.get("NAME") == path.parent.name, f"{path}: NAME must be its folder's name, {path.parent.name}"
        out[args["NAME"]] = args
    return out


CMAKE = cmake_families()
DESCRIPTORS = {f.name: f for f in families.builtin()}


def test_every_family_folder_has_a_descriptor_and_back() -> None:
    assert set(CMAKE) == set(DESCRIPTORS)


@pytest.mark.parametrize("name", sorted(CMAKE))
def test_the_descriptor_names_the_module_its_cmake_builds(name: str) -> None:
    args = CMAKE[name]
    assert DESCRIPTORS[name].module == f"{args['PACKAGE']}.{args.get('MODULE', name)}"


@pytest.mark.parametrize("name", sorted(set(CMAKE) - NO_REFERENCE))
def test_every_family_has_its_tests_in_one_folder(name: str) -> None:
    folder = ROOT / "tests" / "families" / name
    assert (folder / f"test_{name}_alignment.py").exists(), f"{folder}: test_{name}_alignment.py"
    stray = [p.name for p in folder.glob("test_*.py") if not p.name.startswith(f"test_{name}_")]
    assert not stray, f"{folder}: test files are test_{name}_<aspect>.py, found {stray}"


def test_bindings_hold_no_family_file() -> None:
    names = set(CMAKE) | {"atari", "mujoco", "dmc", "box2d", "minigrid", "native"}
    files = [p.name for p in (ROOT / "csrc" / "bindings").iterdir()]
    assert not [f for f in files if f.endswith("_tasks.cc") or f.split(".")[0] in names]


def test_every_listed_task_belongs_to_a_descriptor() -> None:
    by_family = families.by_task_family()
    for task_id in envhive.list_envs():
        info = catalog.get(task_id)
        assert info.family in by_family, f"{task_id}: family {info.family!r} has no descriptor"
        assert by_family[info.family].module == info.module, task_id


def test_no_module_outside_the_families_names_a_family() -> None:
    """The catalog, the EnvPool drop-in and the bench engines read the descriptors."""
    package = ROOT / "src" / "envhive"
    pattern = re.compile(r"""family\s*[!=]=\s*["']|\.family\s+in\s""")
    for path in package.rglob("*.py"):
        if "families" in path.relative_to(package).parts:
            continue
        text = path.read_text()
        assert not pattern.search(text), f"{path.relative_to(ROOT)} branches on a family name"
