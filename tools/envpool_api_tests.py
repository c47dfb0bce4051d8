"""Run EnvPool's own API test files against envhive.envpool (or against EnvPool itself, for the baseline).

    python tools/envpool_api_tests.py --envpool-src PATH/TO/envpool-checkout [--engine envhive|envpool]

PATH is a checkout of github.com/sail-sg/envpool (its test files are read from there and run from a
temporary folder; nothing of EnvPool's is copied into this repository). The files are those of the
families envhive has (classic control, toy text, Box2D, Atari, MuJoCo gym, DMC, MiniGrid, ViZDoom,
Procgen, Meta-World, Gymnasium-Robotics) plus envpool/make_test.py; the render tests are left out
(they test rendering, not this API), and so is make_test.py's case for Google Research Football,
which envhive does not have.

With ``--engine envhive`` a meta-path hook serves ``import envpool`` and every ``envpool.*`` module
the tests import from ``envhive.envpool``. Three things are the hook's own, not envhive.envpool's:
EnvPool's private pybind classes (``envpool.atari.atari_envpool._AtariEnvPool`` / ``_AtariEnvSpec``)
resolve to placeholders that raise when used (so the file loads and only the cases using them
fail); ``envpool.atari.AtariEnvSpec`` is a class whose ``gen_config`` / constructor run
``envhive.envpool.make_spec``; ``envpool.mujoco.gym.registration.gym_mujoco_envs`` (EnvPool's
registration table, which one test iterates) lists envhive's MuJoCo tasks. Prints one line per
test case and a summary; exit status 0.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

FILES = (
    "envpool/make_test.py",
    "envpool/classic_control/classic_control_test.py",
    "envpool/toy_text/toy_text_test.py",
    "envpool/box2d/box2d_deterministic_test.py",
    "envpool/box2d/box2d_correctness_test.py",
    "envpool/atari/api_test.py",
    "envpool/atari/atari_envpool_test.py",
    "envpool/mujoco/gym/mujoco_gym_align_test.py",
    "envpool/mujoco/gym/mujoco_gym_deterministic_test.py",
    "envpool/mujoco/dmc/mujoco_dmc_suite_deterministic_test.py",
    "envpool/minigrid/minigrid_deterministic_test.py",
    "envpool/vizdoom/vizdoom_test.py",
    "envpool/procgen/procgen_test.py",
    "envpool/mujoco/metaworld/metaworld_test.py",
    "envpool/mujoco/robotics/robotics_test.py",
)
# make_test.py cases for families envhive does not have.
OTHER_FAMILIES = ("test_make_gfootball",)

HOOK = textwrap.dedent(
    '''
    """Serves `envpool` and `envpool.*` from envhive.envpool (tools/envpool_api_tests.py)."""
    import importlib.abc
    import importlib.machinery
    import sys
    import types

    import envhive.envpool as compat


    class _Private:
        """EnvPool's private pybind classes: nothing in envhive stands for them."""

        _config_keys = ()
        _default_config_values = ()

        def __init__(self, *args, **kwargs):
            raise NotImplementedError("EnvPool's private pybind API has no envhive.envpool counterpart")


    class AtariEnvSpec:
        """EnvPool's per-family spec class: gen_config(**kw) then AtariEnvSpec(config)."""

        @staticmethod
        def gen_config(task="pong", **kwargs):
            return dict(kwargs, task=task)

        def __new__(cls, config):
            task = config.pop("task")
            name = "".join(part.capitalize() for part in str(task).split("_")) + "-v5"
            return compat.make_spec(name, **config)


    def _mujoco_table():
        tasks = {}
        from envhive import catalog

        for task_id in compat.list_all_envs():
            try:
                info = catalog.find(compat.kwargs.resolve_id(task_id)[0])
            except compat.EnvPoolUnknownTaskError:
                continue
            if info is None or info.family != "mujoco":
                continue  # no spec built: some tasks have none without kwargs (VizdoomCustom-v1)
            spec = compat.make_spec(task_id)
            name, version = task_id.rsplit("-", 1)
            tasks.setdefault(name, (set(), spec.max_episode_steps or 0))[0].add(version)
        return [(name, tuple(sorted(v)), steps) for name, (v, steps) in sorted(tasks.items())]


    class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path=None, target=None):
            if name == "envpool" or name.startswith("envpool."):
                return importlib.machinery.ModuleSpec(name, self, is_package=True)
            return None

        def create_module(self, spec):
            if spec.name == "envpool":
                return compat
            module = types.ModuleType(spec.name)
            module.__path__ = []
            for attr in compat.__all__:
                setattr(module, attr, getattr(compat, attr))
            module.DMEnvPool = compat.DMEnvPool
            module.AtariEnvSpec = AtariEnvSpec
            module._AtariEnvPool = module._AtariEnvSpec = _Private
            if spec.name == "envpool.mujoco.gym.registration":
                module.gym_mujoco_envs = _mujoco_table()
            return module

        def exec_module(self, module):
            pass


    sys.meta_path.insert(0, _Finder())
    '''
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envpool-src", type=Path, required=True, help="a checkout of sail-sg/envpool")
    parser.add_argument("--engine", choices=("envhive", "envpool"), default="envhive")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds for the whole run")
    parser.add_argument("-k", dest="select", help="only the cases pytest's -k expression selects")
    parser.add_argument("--show", action="store_true", help="print pytest's output (tracebacks) too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="envpool-api-tests-") as tmp:
        root = Path(tmp)
        tests = root / "tests"
        tests.mkdir()
        files = []
        for rel in FILES:
            src = args.envpool_src / rel
            if not src.exists():
                print(f"missing {src}", file=sys.stderr)
                return 1
            dst = tests / rel.replace("/", "__")
            shutil.copyfile(src, dst)
            files.append(dst.name)
        if args.engine == "envhive":
            (tests / "conftest.py").write_text(HOOK)
        deselect = [f"--deselect=envpool__make_test.py::_MakeTest::{name}" for name in OTHER_FAMILIES]
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "-q", "--tb=line", *deselect]
        cmd += ["--continue-on-collection-errors"]  # a file that imports EnvPool internals fails alone
        cmd += ["-o", "python_files=*.py", "-o", "python_classes=*Test", *files]
        if args.select:
            cmd[cmd.index("--tb=line")] = "--tb=short"
            cmd += ["-k", args.select]
        proc = subprocess.run(cmd, cwd=tests, capture_output=True, text=True, timeout=args.timeout)
    passed = failed = 0
    for line in proc.stdout.splitlines():
        if line.startswith(("PASSED ", "FAILED ", "ERROR ")):
            print(line[:220])
            passed += line.startswith("PASSED ")
            failed += not line.startswith("PASSED ")
    print(f"{args.engine}: {passed} of {passed + failed} EnvPool API test cases pass")
    if passed + failed == 0 or args.show:
        print(proc.stdout[-20000:], proc.stderr[-3000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
