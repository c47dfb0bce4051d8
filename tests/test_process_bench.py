"""`envhive bench` and the harness on the process backend: engines, the multi-process ceiling,
memory of the process tree."""

from __future__ import annotations

import json
import os
from pathlib import Path

from envhive.bench import ENGINES, Measurement, Settings
from envhive.cli import main
from process_envs import DICT_WALK


def test_bench_runs_process_backend_ids_and_the_ceiling(capsys) -> None:
    code = main(
        [
            "bench",
            "CartPole-v1",
            "--num-envs",
            "4",
            "--threads",
            "2",
            "--seconds",
            "0.2",
            "--warmup",
            "0",
            "--repeats",
            "1",
            "--compare",
            "envhive-process,gymnasium-procs,gymnasium-async",
            "--json",
            "-q",
        ]
    )
    assert code == 0
    rows = {r["engine"]: r for r in json.loads(capsys.readouterr().out)["cases"][0]["rows"]}
    assert set(rows) == {"envhive", "envhive-process", "gymnasium-procs", "gymnasium-async"}
    for row in rows.values():
        assert row["steps_per_s"] > 0 and row["rss_mb"] > 0 and row["pss_mb"] > 0, row
    assert rows["envhive"]["processes"] == 1  # CartPole-v1 is a native task
    assert rows["envhive-process"]["processes"] == 3  # the trainer and two workers
    assert rows["gymnasium-procs"]["processes"] == 3  # the harness worker and two plain processes
    assert rows["gymnasium-async"]["processes"] == 5  # one per env


def test_envhive_engine_picks_the_process_backend_for_gymnasium_ids(capsys, monkeypatch) -> None:
    # A Gymnasium id without a native task: the test suite's own env (its module on the workers' path).
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(Path(__file__).parent), os.environ.get("PYTHONPATH")]))
    )
    code = main(
        ["bench", "process_envs:" + DICT_WALK, "--num-envs", "2", "--seconds", "0.2", "--warmup", "0", "--repeats", "1"]
        + ["--compare", "none", "--json", "-q"]
    )
    assert code == 0
    (row,) = json.loads(capsys.readouterr().out)["cases"][0]["rows"]
    assert row["engine"] == "envhive" and row["steps_per_s"] > 0 and row["processes"] == 3


def test_an_engine_with_its_own_interpreter_is_skipped_without_one(monkeypatch) -> None:
    monkeypatch.delenv("ENVHIVE_BENCH_PUFFER_PYTHON", raising=False)
    assert "ENVHIVE_BENCH_PUFFER_PYTHON" in (ENGINES["pufferlib"].available() or "")
    monkeypatch.setenv("ENVHIVE_BENCH_PUFFER_PYTHON", "/bin/sh")
    assert ENGINES["pufferlib"].available() is None
    argv = Measurement.of("pufferlib", "CartPole-v1", 4).argv(Settings())
    assert argv[0] == "/bin/sh" and argv[1] == "-c" and "envhive.bench.worker" in argv[2]
