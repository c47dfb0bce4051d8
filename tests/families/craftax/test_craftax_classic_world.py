"""Craftax-Classic's world generation in C++ (csrc/envs/craftax/classic_world.cc) against craftax
1.6.1's jitted reset on the CPU: the block map and the state's key, bit for bit, for several reset
keys (the first reset jit compiles craftax's world generation: about 10 s)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
craftax_env = pytest.importorskip("craftax.craftax_env")

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("c++") or shutil.which("g++")
    assert compiler
    exe = tmp_path_factory.mktemp("craftax") / "classic_world_probe"
    sources = [Path(__file__).with_name("classic_world_probe.cc"), ROOT / "csrc/envs/craftax/classic_world.cc"]
    subprocess.run(
        [compiler, "-std=c++20", "-O2", "-ffp-contract=off", f"-I{ROOT / 'csrc'}", *map(str, sources), "-o", str(exe)],
        check=True,
    )
    return exe


@pytest.fixture(scope="module")
def reference_reset():  # type: ignore[no-untyped-def]
    env = craftax_env.make_craftax_env_from_name("Craftax-Classic-Symbolic-v1", auto_reset=True)
    params = env.default_params
    reset = jax.jit(env.reset)
    return lambda key: reset(key, params)[1]


@pytest.mark.parametrize("seed", [0, 1, 2, 7, 123])
def test_classic_world_matches_craftax(probe: Path, reference_reset, seed: int) -> None:  # type: ignore[no-untyped-def]
    key = jax.random.split(jax.random.PRNGKey(seed))[1]
    state = reference_reset(key)
    k0, k1 = np.asarray(key).tolist()
    out = subprocess.run([str(probe), str(k0), str(k1)], capture_output=True, text=True, check=True).stdout.split("\n")
    ours = np.array(out[0].split(), dtype=np.int64).reshape(64, 64)
    ref = np.asarray(state.map)
    diff = np.argwhere(ours != ref)
    assert len(diff) == 0, f"{len(diff)} cells differ, first {diff[:5].tolist()}"
    assert [int(v) for v in out[1].split()] == np.asarray(state.state_rng).tolist()
