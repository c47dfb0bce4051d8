"""The Craftax family's first building block, csrc/envs/craftax/jax_random.h, against jax itself:
PRNGKey, split, fold_in, bits, uniform and randint of jax's default threefry2x32 PRNG with the
partitionable layout, bit for bit. The header is compiled here into a small probe program (a C++20
compiler is what building envhive needs anyway)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parents[3]
PROBE_SOURCE = Path(__file__).with_name("jax_random_probe.cc")


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("c++") or shutil.which("g++")
    assert compiler, "a C++20 compiler is needed to build envhive and this probe"
    exe = tmp_path_factory.mktemp("craftax") / "jax_random_probe"
    subprocess.run(
        [compiler, "-std=c++20", "-O1", "-ffp-contract=off", f"-I{ROOT / 'csrc'}", str(PROBE_SOURCE), "-o", str(exe)],
        check=True,
    )
    return exe


@pytest.mark.parametrize(
    ("seed", "n", "lo", "hi"), [(0, 5, 0, 10), (1, 9, -3, 4), (2**32 - 1, 4, 0, 1), (42, 17, 5, 100000)]
)
def test_threefry_draws_match_jax(probe: Path, seed: int, n: int, lo: int, hi: int) -> None:
    lines = subprocess.run(
        [str(probe), str(seed), str(n), str(lo), str(hi)], capture_output=True, text=True, check=True
    )
    rows = [np.array(line.split(), dtype=np.int64) for line in lines.stdout.strip().split("\n")]
    key = jax.random.PRNGKey(seed)
    assert rows[0].tolist() == np.asarray(key).tolist()
    assert rows[1].tolist() == np.asarray(jax.random.split(key, n)).ravel().tolist()
    assert rows[2].tolist() == np.asarray(jax.random.fold_in(key, 7)).tolist()
    assert rows[3].tolist() == np.asarray(jax.random.bits(key, (n,), np.uint32)).tolist()
    uniform = np.asarray(jax.random.uniform(key, (n,), np.float32)).view(np.uint32)
    assert rows[4].tolist() == uniform.tolist()
    assert rows[5].tolist() == np.asarray(jax.random.randint(key, (n,), lo, hi)).tolist()


@pytest.fixture(scope="module")
def cumsum_probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("c++") or shutil.which("g++")
    assert compiler
    exe = tmp_path_factory.mktemp("craftax") / "xla_cumsum_probe"
    source = Path(__file__).with_name("xla_cumsum_probe.cc")
    subprocess.run(
        [compiler, "-std=c++20", "-O1", "-ffp-contract=off", f"-I{ROOT / 'csrc'}", str(source), "-o", str(exe)],
        check=True,
    )
    return exe


@pytest.mark.parametrize(
    "n",
    [17, 100, 4096]
    + [pytest.param(n, marks=pytest.mark.deep) for n in (1, 5, 16, 31, 64, 255, 256, 257, 1000, 4097, 5000)],
)
def test_xla_cumsum_and_weighted_choice_match_jax(cumsum_probe: Path, n: int) -> None:
    """XLA's CPU cumsum is tiled (it differs from numpy's sequential float32 cumsum from about the
    17th element on); jax.random.choice(p=...) draws through it."""
    rng = np.random.default_rng(n)
    p = rng.random(n).astype(np.float32)
    p[rng.random(n) < 0.3] = 0.0  # zero weights, like craftax's masks of valid cells
    p[0] = max(p[0], np.float32(0.01))
    cumsum = jax.jit(lambda x: jax.numpy.cumsum(x))
    for seed in (0, 1, 2, 3):
        p_norm = np.asarray(jax.numpy.asarray(p) / jax.numpy.asarray(p).sum())
        out = subprocess.run(
            [str(cumsum_probe), str(n), str(seed)],
            input=" ".join(map(str, p_norm.view(np.uint32).tolist())),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\n")
        ours = np.array(out[0].split(), dtype=np.uint64).astype(np.uint32)
        assert ours.tolist() == np.asarray(cumsum(p_norm)).view(np.uint32).tolist()
        picked = jax.random.choice(jax.random.PRNGKey(seed), n, p=jax.numpy.asarray(p_norm))
        assert int(out[1]) == int(picked)
