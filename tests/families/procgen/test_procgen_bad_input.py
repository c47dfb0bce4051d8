"""Bad input is a Python exception naming the problem, before the engine sees it (procgen itself
calls exit() on a value it does not accept); an engine that fails is an EnvError with the env's id;
the engine's fetch fails with the command it ran."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import envhive
from envhive.families import procgen as family

BAD_KWARGS = [
    ({"distribution_mode": "medium"}, ValueError, "distribution_mode must be one of"),
    ({"distribution_mode": "extreme"}, ValueError, "coinrun has no 'extreme' distribution_mode"),
    ({"distribution_mode": "memory"}, ValueError, "coinrun has no 'memory'"),
    ({"distribution_mode": 1}, TypeError, "distribution_mode"),
    ({"num_levels": -1}, ValueError, r"num_levels must be in \[0, 2147483647\]"),
    ({"num_levels": 2**31}, ValueError, "num_levels must be in"),
    ({"start_level": -5}, ValueError, "start_level must be in"),
    ({"start_level": 2**31 - 10, "num_levels": 20}, ValueError, "start_level \\+ num_levels"),
    ({"num_levels": 2.5}, TypeError, "num_levels"),
    ({"num_levels": float("nan")}, TypeError, "num_levels"),
    ({"num_levels": "3"}, TypeError, "num_levels"),
    ({"debug_mode": 2**40}, ValueError, "debug_mode must be in"),
    ({"distribution_mode": "exploration", "num_levels": 2}, ValueError, "exploration"),
    ({"distribution_mode": "exploration", "start_level": 7}, ValueError, "exploration"),
    ({"center_agent": "yes"}, TypeError, "center_agent"),
    ({"use_hard_mode": True}, (TypeError, ValueError), "use_hard_mode"),
]


@pytest.mark.parametrize(("kwargs", "error", "match"), BAD_KWARGS, ids=[str(k) for k, _, _ in BAD_KWARGS])
def test_bad_kwargs_are_refused_before_any_env(kwargs, error, match):
    with pytest.raises(error, match=match):
        envhive.make("procgen-coinrun-v0", num_envs=2, **kwargs)


def test_exploration_on_a_game_without_it():
    with pytest.raises(ValueError, match="bigfish has no 'exploration'"):
        envhive.make("procgen-bigfish-v0", num_envs=1, distribution_mode="exploration")


def test_seeds_are_int32():
    with pytest.raises(ValueError, match=r"seeds must be in \[0, 2147483647\], got 2147483648 for env 0"):
        envhive.make("procgen-maze-v0", num_envs=1, seed=2**31)
    env = envhive.make("procgen-maze-v0", num_envs=3)
    with pytest.raises(ValueError, match="got 2147483648 for env 2"):
        env.reset(seed=2**31 - 2)
    obs, _ = env.reset(seed=2**31 - 3)  # the largest seed a 3-env pool takes
    assert obs.shape == (3, 64, 64, 3)
    env.close()


@pytest.mark.parametrize("action", [15, -1, 2**40])
def test_actions_out_of_range(action):
    env = envhive.make("procgen-maze-v0", num_envs=2)
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step(np.array([0, action]))
    env.step(np.array([0, 1]))  # the pool is still usable
    env.close()


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=300)  # fmt: skip


FAKE_ENGINE = """
#include <stddef.h>
struct options { void* items; int count; };
int libenv_version(void) { return 1; }
void* libenv_make(int num, struct options o) { (void)num; (void)o; return NULL; }
int libenv_get_tensortypes(void* h, int name, void* out) { (void)h; (void)name; (void)out; return 0; }
void libenv_set_buffers(void* h, void* b) { (void)h; (void)b; }
void libenv_observe(void* h) { (void)h; }
void libenv_act(void* h) { (void)h; }
void libenv_close(void* h) { (void)h; }
"""


def test_an_engine_that_fails_is_an_env_error(tmp_path):
    """An engine library whose libenv_make fails (a stand-in compiled here; the process loads one
    engine for its life, hence the subprocess): reset raises EnvError with the env ids, not a crash."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    assert compiler, "a C compiler is needed to build the stand-in engine"
    (tmp_path / "assets").mkdir()
    (tmp_path / "fake.c").write_text(FAKE_ENGINE)
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(tmp_path / "libenv.so"), str(tmp_path / "fake.c")],
                   check=True)  # fmt: skip
    done = _run(
        """
        import envhive
        env = envhive.make("procgen-coinrun-v0", num_envs=3)
        try:
            env.reset(seed=0)
        except envhive.EnvError as e:
            print("EnvError", e.env_ids, str(e).splitlines()[0])
        """,
        {family.ENGINE_DIR_ENV: str(tmp_path)},
    )
    assert "EnvError [0, 1, 2]" in done.stdout, done.stdout + done.stderr
    assert "libenv_make returned no instance" in done.stdout + done.stderr


def test_a_missing_engine_names_what_is_missing(tmp_path):
    done = _run(
        """
        import envhive
        try:
            envhive.make("procgen-coinrun-v0", num_envs=1)
        except Exception as e:
            print(type(e).__name__, e)
        """,
        {family.ENGINE_DIR_ENV: str(tmp_path)},
    )
    assert f"${family.ENGINE_DIR_ENV}={tmp_path} holds no libenv.so and assets/" in done.stdout, (
        done.stdout + done.stderr
    )


def test_fetch_without_an_index_names_the_command(tmp_path):
    """No index reachable (pip pointed at a closed port, no config): the error names the command."""
    env = {"PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "0",
           "PIP_TIMEOUT": "2", "PIP_FIND_LINKS": ""}  # fmt: skip
    done = _run(
        f"""
        from pathlib import Path
        from envhive.families import procgen
        try:
            procgen.fetch_engine(Path({str(tmp_path / "engine")!r}))
        except procgen.ProcgenEngineError as e:
            print("refused:", e)
        """,
        env,
    )
    assert f"`{family.PIP_COMMAND}` failed" in done.stdout, done.stdout + done.stderr
    assert not (tmp_path / "engine").exists()


def test_other_platforms_are_refused_by_name(monkeypatch):
    monkeypatch.setattr(family.platform, "system", lambda: "Darwin")
    monkeypatch.setattr(family.platform, "machine", lambda: "arm64")
    with pytest.raises(family.ProcgenEngineError, match="Linux x86_64 only \\(this is Darwin arm64\\)"):
        family.engine_dir()


@pytest.mark.deep
def test_fetch_unpacks_the_official_engine(tmp_path):
    """The first-use fetch (pip, the pinned hash) gives the files the build cache holds."""
    folder = tmp_path / "engine"
    family.fetch_engine(folder)
    library, assets = family.engine_files()
    assert (folder / "libenv.so").read_bytes() == Path(library).read_bytes()
    assert sorted(p.relative_to(folder / "assets") for p in (folder / "assets").rglob("*")) == sorted(
        p.relative_to(assets) for p in Path(assets).rglob("*")
    )
    assert "sha256 " + family.WHEEL_SHA256 in (folder / "complete.stamp").read_text()
