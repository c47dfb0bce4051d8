"""Family modules load on first use: `import envhive` knows every task from the build's manifests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import envhive
from envhive import backends


def run_python(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_loads_no_family_module_and_use_loads_only_the_tasks_module() -> None:
    code = """
import sys, gymnasium, envhive
loaded = lambda: sorted(m for m in sys.modules if m.startswith("envhive._"))
print(loaded())
ids = envhive.list_envs()
print("CartPole-v1" in ids, "Pong-v5" in ids, "Ant-v5" in ids, "envhive/Pong-v5" in gymnasium.registry)
print(loaded())
env = gymnasium.make_vec("envhive/CartPole-v1", num_envs=2)
env.reset(seed=0)
print(loaded())
envhive.make_spec("Pong-v5")
print(loaded())
"""
    lines = run_python(code).splitlines()
    assert lines == [
        "[]",
        "True True True True",
        "[]",
        "['envhive._native']",
        "['envhive._atari', 'envhive._native']",
    ]


@pytest.mark.parametrize("name", list(backends.FAMILY_MODULES))
def test_manifest_matches_the_module(name: str) -> None:
    """The manifest the build wrote lists exactly the module's tasks, in order, with their defaults."""
    path = backends._module_path(name)
    if path is None:
        pytest.skip(f"envhive.{name} not built")
    manifest = json.loads(path.with_name(name + backends.MANIFEST_SUFFIX).read_text())
    assert manifest["module"] == name
    module = backends.load(name)
    # Python-authored envs compiled by other tests join _native at run time; they are not built in.
    ids = [t for t in module.task_ids() if module.task_info(t)["family"] != "python"]
    assert list(manifest["tasks"]) == ids
    for task_id, entry in manifest["tasks"].items():
        info = module.task_info(task_id)
        defaults = {field: default for field, default, _ in info["config"]}
        assert entry == {"family": info["family"], "max_episode_steps": defaults["max_episode_steps"]}
        assert backends.task_module(task_id) is module
        assert backends.default_max_episode_steps(task_id) == defaults["max_episode_steps"]


def test_gymnasium_specs_carry_the_default_time_limit() -> None:
    import gymnasium

    assert gymnasium.spec("envhive/CartPole-v1").max_episode_steps == 500
    assert gymnasium.spec("envhive/Pong-v5").max_episode_steps == 27000
    assert gymnasium.spec("envhive/HalfCheetah-v5").max_episode_steps == 1000


def test_unknown_id_still_suggests_names() -> None:
    with pytest.raises(envhive.UnknownTaskError, match="Pong-v5"):
        envhive.make_spec("Pongg-v5")


def test_a_module_without_manifest_is_listed_by_loading_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No manifest (e.g. a build that could not write one): the module is loaded to list its tasks."""
    monkeypatch.setattr(backends, "MANIFEST_SUFFIX", ".no-such-manifest.json")
    monkeypatch.setattr(backends, "_tasks", {})
    monkeypatch.setattr(backends, "_cataloged", False)
    ids = backends.task_ids()
    assert "CartPole-v1" in ids and "Pong-v5" in ids
    assert backends.default_max_episode_steps("Pong-v5") == 27000
