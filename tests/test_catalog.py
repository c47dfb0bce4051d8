"""The catalog: `import envhive` knows every task from the build's manifests, and listing or
describing tasks never loads a family module; a module loads when one of its tasks is made."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

import envhive
from envhive import catalog, registry
from envhive.catalog import Catalog, manifests


def run_python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_loads_no_family_module_and_use_loads_only_the_tasks_module() -> None:
    code = """
import sys, gymnasium, envhive
from envhive.cli import main
# (_procwire is no family module: the process backend's few C++ functions, no engine; ~1 ms to load)
loaded = lambda: sorted(
    m for m in sys.modules if m.startswith("envhive._") and m not in ("envhive._version", "envhive._procwire")
)
print(loaded())
ids = envhive.list_envs()
print("CartPole-v1" in ids, "Pong-v5" in ids, "Ant-v5" in ids, "envhive/Pong-v5" in gymnasium.registry)
print(loaded())
main(["list"]); main(["info", "Pong-v5"]); main(["info", "HalfCheetah-v5"])
envhive.make_spec("Pong-v5"); envhive.make_spec("Ant-v5", num_envs=4)  # the default config's spaces are known
print(loaded())
env = gymnasium.make_vec("envhive/CartPole-v1", num_envs=2)
env.reset(seed=0)
print(loaded())
envhive.make_spec("Pong-v5", stack_num=2)  # another config: only the task knows its spaces
print(loaded())
"""
    lines = run_python(code).splitlines()
    assert lines[:3] == ["[]", "True True True True", "[]"]
    assert lines[-3:] == ["[]", "['envhive._native']", "['envhive._atari', 'envhive._native']"]


# Tasks whose spaces need a kwarg the default config leaves empty (EnvPool's VizdoomCustom-v1: its
# buttons and screen are the cfg_path it is given; EnvPool's spec refuses the empty path too).
NEEDS_KWARGS = {"VizdoomCustom-v1": "needs cfg_path"}


@pytest.mark.parametrize("name", [m.name for m in catalog.BUILTIN_MODULES])
def test_manifest_matches_the_module(name: str) -> None:
    """The manifest the build wrote lists exactly the module's tasks, in order, with their info."""
    path = manifests.module_path(name)
    if path is None:
        pytest.skip(f"{name} not built")
    short = name.rpartition(".")[2]
    manifest = json.loads(path.with_name(short + catalog.MANIFEST_SUFFIX).read_text())
    assert manifest["module"] == name
    assert manifest["build_abi"] == catalog.load(name).BUILD_ABI
    assert manifest["protocol"] == catalog.PROTOCOL and manifest["envhive_version"] == envhive.__version__
    module = catalog.load(name)
    # Python-authored envs compiled by other tests join _native at run time; they are not built in.
    ids = [t for t in module.task_ids() if module.task_info(t).family != "python"]
    assert list(manifest["tasks"]) == ids
    for task_id, entry in manifest["tasks"].items():
        info = module.task_info(task_id)
        from_manifest = catalog.TaskInfo.from_manifest(task_id, name, entry)
        if entry.get("spaces_unknown") and task_id in NEEDS_KWARGS:  # no spaces without a kwarg, at build or run time
            with pytest.raises(ValueError, match=NEEDS_KWARGS[task_id]):
                catalog.TaskInfo.from_module(module, task_id)
            assert from_manifest.default_spaces is None and NEEDS_KWARGS[task_id] in entry["spaces_unknown"]
            continue
        from_module = catalog.TaskInfo.from_module(module, task_id)
        if entry.get("spaces_unknown"):  # spaces the build could not resolve (dm_control's XML): None, loaded later
            assert from_manifest.default_spaces is None and from_module.default_spaces is not None
            from_module = dataclasses.replace(from_module, default_spaces=None)
        assert from_manifest == from_module
        assert entry["max_episode_steps"] == info.max_episode_steps
        assert catalog.module_for(task_id) is module


def test_gymnasium_specs_carry_the_default_time_limit() -> None:
    import gymnasium

    assert gymnasium.spec("envhive/CartPole-v1").max_episode_steps == 500
    assert gymnasium.spec("envhive/Pong-v5").max_episode_steps == 27000
    assert gymnasium.spec("envhive/HalfCheetah-v5").max_episode_steps == 1000


def test_unknown_id_still_suggests_names() -> None:
    with pytest.raises(envhive.UnknownTaskError, match="Pong-v5"):
        envhive.make_spec("Pongg-v5")


def test_a_module_without_manifest_is_listed_by_loading_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """No manifest (e.g. a build that could not write one): the module is loaded to list its tasks."""
    monkeypatch.setattr(manifests, "MANIFEST_SUFFIX", ".no-such-manifest.json")
    fresh = Catalog(catalog.BUILTIN_MODULES)
    ids = fresh.task_ids()
    assert "CartPole-v1" in ids and "Pong-v5" in ids
    assert fresh.find("Pong-v5").max_episode_steps == 27000


def test_engine_test_tasks_are_hidden_but_makeable() -> None:
    import gymnasium

    assert "Dummy-v0" not in envhive.list_envs()
    assert "Dummy-v0" in catalog.task_ids(include_hidden=True)
    assert "envhive/Dummy-v0" not in gymnasium.registry
    env = envhive.make("Dummy-v0", num_envs=2)
    env.reset()
    env.close()


def test_the_native_size_limit_matches() -> None:
    assert catalog.load("envhive._native").MAX_NUM_ENVS == registry.MAX_NUM_ENVS


def test_a_module_built_for_another_envhive_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module reporting another version or protocol is refused with both versions and the fix."""
    module = tmp_path / "stale_family.py"
    module.write_text("PROTOCOL = 1\nENVHIVE_VERSION = '0.0.1'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    fresh = Catalog([catalog.FamilyModule("stale_family")])
    with pytest.raises(
        ImportError,
        match=r"built for envhive 0\.0\.1.*envhive "
        + envhive.__version__
        + ".*Rebuild it against this envhive: .*pip install",
    ):
        fresh.load("stale_family")
