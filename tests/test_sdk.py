"""The C++ SDK end to end: templates/cpp-family is copied out of the repository, built with pip
against the envhive installed in this Python (its SDK from the installed package, never the
repository's csrc/), installed into a folder of its own, and used through envhive.make,
gymnasium.make_vec and the dm_env facade by code that never imports it; its own tests check its
C++ CartPole step for step against Gymnasium's. The refusal paths use real builds and installs
too: the same template built with the SDK of another envhive release (another version and module
protocol), and a second installed distribution whose module defines the same task id.

Building takes most of this file's time: both plug-ins are built once, concurrently, for the
whole module (fixture `plugins`); every check runs in a fresh interpreter that sees one of the
install folders on its PYTHONPATH, so no test leaves a plug-in in this process's catalog.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import envhive
from envhive import catalog
from envhive.testing import PoolContract

# The plug-in path end to end: the template built with pip against the installed SDK (a compile of
# the engine and the bindings, about a minute on 2 cores), installed, discovered and run. It runs in
# `make test-deep` (CI), not in `make test`.
pytestmark = [pytest.mark.sdk, pytest.mark.deep]

REPO = Path(__file__).resolve().parents[1]
TEMPLATE = REPO / "templates" / "cpp-family"
TASK = "mypkg/CartPole-v1"
OLD_VERSION = "0.0.1"  # the envhive release the second build's SDK claims to come from
OLD_PROTOCOL = catalog.PROTOCOL - 1
BUILD_TIMEOUT_S = 900  # a cold build on a loaded 2-core machine; a quiet one takes well under a minute


@dataclass(frozen=True)
class Plugins:
    source: Path  # the copy of the template that was built
    wheel: Path  # mypkg's wheel, built against this envhive
    site: Path  # that wheel, installed
    build_seconds: float  # both builds, run side by side
    old_site: Path  # the template built with another release's SDK, installed
    conflict_site: Path  # a second distribution (otherpkg) whose module defines TASK too


def _env(*sites: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(str(s) for s in sites)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])  # cmake, ninja
    env.pop("PYTHONWARNINGS", None)
    return env


def _copy_template(dest: Path) -> Path:
    shutil.copytree(TEMPLATE, dest, ignore=shutil.ignore_patterns("build", ".pytest_cache", "__pycache__"))
    return dest


def _old_sdk(dest: Path) -> Path:
    """The installed SDK as another envhive release would ship it: another version and protocol."""
    shutil.copytree(envhive.sdk.root(), dest, ignore=shutil.ignore_patterns("__pycache__"))
    info = dest / "cmake" / "envhive-sdk-info.cmake"
    text, n = re.subn(r'set\(ENVHIVE_VERSION "[^"]*"\)', f'set(ENVHIVE_VERSION "{OLD_VERSION}")', info.read_text())
    assert n == 1, info
    info.write_text(text)
    protocol = dest / "csrc" / "bindings" / "protocol.h"
    text, n = re.subn(r"kProtocol = \d+;", f"kProtocol = {OLD_PROTOCOL};", protocol.read_text())
    assert n == 1, protocol
    protocol.write_text(text)
    return dest / "cmake"


def _pip_wheel(source: Path, out: Path, *defines: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", str(out)]
    cmd += [f"--config-settings=cmake.define.{d}" for d in defines]
    return subprocess.Popen(
        [*cmd, str(source)], env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _install(wheel: Path, site: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", "--target", str(site)]
    subprocess.run([*cmd, str(wheel)], check=True, env=_env(), timeout=120)


def _second_distribution(site: Path, built: Path) -> None:
    """otherpkg 1.0: its own package and entry point, shipping a module (the template's, as built)
    whose manifest lists the same task id."""
    package = site / "otherpkg"
    shutil.copytree(built / "mypkg", package)
    info = site / "otherpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: otherpkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[envhive.families]\notherpkg = otherpkg._envs\n")
    (info / "INSTALLER").write_text("envhive-tests\n")
    files = [p.relative_to(site).as_posix() for p in [*package.rglob("*"), *info.iterdir()] if p.is_file()]
    (info / "RECORD").write_text("".join(f"{f},,\n" for f in [*files, f"{info.name}/RECORD"]))


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Plugins:
    root = tmp_path_factory.mktemp("sdk")
    source = _copy_template(root / "mypkg")
    old_source = _copy_template(root / "mypkg-old")
    old_cmake = _old_sdk(root / "old-sdk")
    start = time.perf_counter()
    builds = [
        _pip_wheel(source, root / "wheels"),
        _pip_wheel(old_source, root / "old-wheels", f"envhive_DIR={old_cmake}"),
    ]
    for build in builds:
        out, _ = build.communicate(timeout=BUILD_TIMEOUT_S)
        assert build.returncode == 0, f"building the template failed:\n{out[-6000:]}"
    seconds = time.perf_counter() - start
    (wheel,) = (root / "wheels").glob("mypkg-*.whl")
    (old_wheel,) = (root / "old-wheels").glob("mypkg-*.whl")
    _install(wheel, root / "site")
    _install(old_wheel, root / "old-site")
    _second_distribution(root / "conflict-site", root / "site")
    return Plugins(source, wheel, root / "site", seconds, root / "old-site", root / "conflict-site")


def _python(code: str, *sites: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], env=_env(*sites), capture_output=True, text=True, timeout=300, check=False
    )


def test_the_wheel_holds_the_module_its_manifest_stubs_and_entry_point(plugins: Plugins) -> None:
    names = set(zipfile.ZipFile(plugins.wheel).namelist())
    modules = [n for n in names if re.fullmatch(r"mypkg/_envs\..+\.so", n)]
    assert len(modules) == 1, sorted(names)
    assert {"mypkg/__init__.py", "mypkg/py.typed", "mypkg/_envs.tasks.json", "mypkg/_envs.pyi"} <= names
    info = next(n.rpartition("/")[0] for n in names if n.endswith(".dist-info/entry_points.txt"))
    entry_points = zipfile.ZipFile(plugins.wheel).read(f"{info}/entry_points.txt").decode()
    assert "[envhive.families]" in entry_points and "mypkg = mypkg._envs" in entry_points
    manifest = json.loads(zipfile.ZipFile(plugins.wheel).read("mypkg/_envs.tasks.json"))
    assert (manifest["module"], manifest["protocol"], manifest["envhive_version"]) == (
        "mypkg._envs",
        catalog.PROTOCOL,
        envhive.__version__,
    )
    assert list(manifest["tasks"]) == [TASK]
    assert "class NativePool" in zipfile.ZipFile(plugins.wheel).read("mypkg/_envs.pyi").decode()


def test_it_was_built_from_the_installed_sdk(plugins: Plugins) -> None:
    (cache,) = (plugins.source / "build").glob("*/CMakeCache.txt")
    found = re.search(r"^envhive_DIR:PATH=(.*)$", cache.read_text(), re.MULTILINE)
    assert found is not None
    assert Path(found.group(1)).resolve() == envhive.cmake_dir()
    assert envhive.cmake_dir().parent.name == "sdk" and not envhive.cmake_dir().is_relative_to(REPO / "cmake")
    # every C++ file the build compiled from envhive came from the installed package
    ninja = next((plugins.source / "build").glob("*/build.ninja")).read_text()
    assert str(REPO / "csrc") not in ninja and str(envhive.sdk.csrc_dir() / "core" / "pool.cc") in ninja


def test_the_template_tests_pass_against_the_installed_plugin(plugins: Plugins) -> None:
    """The template's own suite (step for step against Gymnasium's CartPole in every autoreset
    mode, async, seeds, EnvError, dm_env, bench, gymnasium.make_vec and discovery without an
    import), run as its author would after `pip install .`."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(plugins.source / "tests")]
    out = subprocess.run(
        cmd, env=_env(plugins.site), cwd=plugins.source, capture_output=True, text=True, timeout=600, check=False
    )
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    # Every test collected passed (none skipped): the template's own ten and the call contract's
    # (envhive.testing.PoolContract, parametrized ones counted once here).
    summary = re.fullmatch(r"(\d+) passed in [\d.]+s", out.stdout.strip().splitlines()[-1])
    contract = sum(1 for name in dir(PoolContract) if name.startswith("test_"))
    assert summary and int(summary.group(1)) >= 10 + contract, out.stdout[-2000:]


def test_a_plugin_task_runs_without_importing_the_plugin(plugins: Plugins) -> None:
    code = f"""
import sys, gymnasium, numpy as np, envhive
assert {TASK!r} in envhive.list_envs(), envhive.list_envs()
print("imported before make:", "mypkg" in sys.modules)
env = envhive.make({TASK!r}, num_envs=3, seed=1)
ref = gymnasium.make_vec("CartPole-v1", num_envs=3, vectorization_mode="sync")
np.testing.assert_array_equal(env.reset()[0], ref.reset(seed=1)[0])
for t in range(80):
    a = np.array([t % 2, 1, (t // 3) % 2])
    for x, y in zip(env.step(a)[:4], ref.step(a)[:4]):
        np.testing.assert_array_equal(x, y)
vec = gymnasium.make_vec({TASK!r}, num_envs=2, autoreset_mode="same_step")
dm = envhive.make_dm({TASK!r}, num_envs=2)
print(type(env).__name__, type(vec).__name__, type(dm).__name__, dm.reset().observation.shape)
single, twin = gymnasium.make({TASK!r}), gymnasium.make("CartPole-v1")
np.testing.assert_array_equal(single.reset(seed=5)[0], twin.reset(seed=5)[0])
for t in range(200):
    mine, theirs = single.step(t % 2)[:4], twin.step(t % 2)[:4]
    for x, y in zip(mine, theirs):
        np.testing.assert_array_equal(x, y)
    if mine[2] or mine[3]:
        break
print(type(single.unwrapped).__name__)
"""
    out = _python(code, plugins.site)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "imported before make: False",
        "HiveVectorEnv HiveVectorEnv HiveDmEnv (2, 4)",
        "HiveEnv",
    ]


def test_a_plugin_task_runs_inside_jax_through_xla(plugins: Plugins) -> None:
    """The plug-in module exports the pool's C interface (POOL_ABI) like a built-in one, so its
    pools step inside a jitted lax.scan: the same rows as Gymnasium's CartPole for the same seeds."""
    pytest.importorskip("jax")
    code = f"""
import gymnasium, jax, numpy as np, envhive
env = envhive.make({TASK!r}, num_envs=4, seed=3)
ref = gymnasium.make_vec("CartPole-v1", num_envs=4, vectorization_mode="sync")
np.testing.assert_array_equal(env.reset()[0], ref.reset(seed=3)[0])
handle, recv, send, step = env.xla()
actions = np.array([[t % 2, 1, (t // 3) % 2, 0] for t in range(40)], dtype=np.int32)

@jax.jit
def rollout(h, acts):
    def body(h, a):
        h, (obs, reward, terminated, truncated, info) = step(h, a)
        return h, (obs, reward, terminated, truncated)
    return jax.lax.scan(body, h, acts)

handle, (obs, reward, terminated, truncated) = rollout(handle, actions)
for t in range(40):
    r_obs, r_rew, r_term, r_trunc, _ = ref.step(actions[t])
    np.testing.assert_allclose(np.asarray(obs[t]), r_obs, rtol=0, atol=0)
    np.testing.assert_array_equal(np.asarray(reward[t]), r_rew.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(terminated[t]), r_term)
    np.testing.assert_array_equal(np.asarray(truncated[t]), r_trunc)
print("compared", t + 1, "steps, episode ends:", int(np.asarray(terminated | truncated).sum()) > 0)
"""
    out = _python(code, plugins.site)
    assert out.returncode == 0, out.stderr[-4000:]
    assert out.stdout.splitlines() == ["compared 40 steps, episode ends: True"]


def test_a_plugin_built_for_another_envhive_is_refused_with_the_rebuild_command(plugins: Plugins) -> None:
    code = f"""
import sys, gymnasium, envhive
assert {TASK!r} not in envhive.list_envs()
for make in (lambda: envhive.make({TASK!r}), lambda: gymnasium.make_vec({TASK!r}, num_envs=1)):
    try:
        make()
    except envhive.IncompatibleModuleError as e:
        print(e)
    else:
        raise SystemExit("not refused")
print("loaded:", "mypkg._envs" in sys.modules)
"""
    out = _python(code, plugins.old_site)
    assert out.returncode == 0, out.stderr
    first, second, loaded = out.stdout.splitlines()
    assert first == second
    assert loaded == "loaded: False"  # refused from its manifest, none of its code ran
    assert f"envhive {OLD_VERSION} (module protocol {OLD_PROTOCOL})" in first
    assert f"envhive {envhive.__version__} (protocol {catalog.PROTOCOL}) is installed" in first
    assert "distribution mypkg 0.1.0" in first
    assert "-m pip install --no-build-isolation --force-reinstall --no-deps --no-binary mypkg mypkg==0.1.0" in first
    listing = subprocess.run(
        [sys.executable, "-m", "envhive", "list"],
        env=_env(plugins.old_site),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listing.returncode == 0 and TASK not in listing.stdout
    assert f"module protocol {OLD_PROTOCOL}" in listing.stderr and "Rebuild it" in listing.stderr


def test_a_plugin_without_a_manifest_is_checked_when_it_loads(plugins: Plugins, tmp_path: Path) -> None:
    """No manifest to read: envhive loads the module to list its tasks, and the module's own
    report (PROTOCOL, ENVHIVE_VERSION) gets it refused."""
    site = tmp_path / "site"
    shutil.copytree(plugins.old_site, site)
    (site / "mypkg" / "_envs.tasks.json").unlink()
    code = f"""
import envhive
assert {TASK!r} not in envhive.list_envs()
try:
    envhive.make({TASK!r})
except envhive.UnknownTaskError as e:
    print(e)
"""
    out = _python(code, site)
    assert out.returncode == 0, out.stderr
    assert "plug-ins that cannot be used" in out.stdout
    assert f"built for envhive {OLD_VERSION} (module protocol {OLD_PROTOCOL})" in out.stdout
    assert "Rebuild it against this envhive" in out.stdout


def test_two_distributions_defining_one_task_id_is_an_error_naming_both(plugins: Plugins) -> None:
    code = f"""
import sys, envhive
assert {TASK!r} not in envhive.list_envs()
try:
    envhive.make({TASK!r})
except envhive.TaskConflictError as e:
    print(e)
print("loaded:", sorted(m for m in sys.modules if m.endswith("._envs")))
"""
    out = _python(code, plugins.site, plugins.conflict_site)
    assert out.returncode == 0, out.stderr
    message, loaded = out.stdout.splitlines()
    assert loaded == "loaded: []"
    assert f"task id {TASK!r} is defined by 2 family modules" in message
    assert "distribution mypkg 0.1.0" in message and "distribution otherpkg 1.0" in message
    assert "pip uninstall mypkg or otherpkg" in message
    listing = subprocess.run(
        [sys.executable, "-m", "envhive", "list"],
        env=_env(plugins.site, plugins.conflict_site),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listing.returncode == 0 and TASK not in listing.stdout and message in listing.stderr
