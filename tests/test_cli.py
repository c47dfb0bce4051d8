"""The CLI: list, info and a tiny bench run end to end."""

import json

from envhive.cli import main


def test_list_names_every_classic_task(capsys) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for task in ("CartPole-v1", "Pendulum-v1", "Acrobot-v1"):
        assert task in out


def test_info_shows_spaces_and_kwargs(capsys) -> None:
    assert main(["info", "Pendulum-v1"]) == 0
    out = capsys.readouterr().out
    assert "max_episode_steps" in out
    assert "g" in out
    assert "Box" in out


def test_bench_json_reports_ratio(capsys) -> None:
    code = main(
        [
            "bench",
            "CartPole-v1",
            "--num-envs",
            "2",
            "--seconds",
            "0.1",
            "--warmup",
            "0",
            "--repeats",
            "1",
            "--compare",
            "gymnasium-single",
            "--json",
            "-q",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    text = json.dumps(data)
    assert "envhive" in text and "gymnasium-single" in text
    assert "ratio" in text


def test_bench_runs_a_dmc_task_against_dm_control_with_task_kwargs(capsys) -> None:
    """`envhive bench` on a DeepMind Control task: dm_control's own loop beside envhive, the
    task's kwargs (--kwargs) passed to both; an engine that takes no kwargs (cpp-loop) is skipped."""
    args = ["bench", "CartpoleBalance-v1", "--num-envs", "2", "--seconds", "0.1", "--warmup", "0", "--repeats", "1"]
    kwargs = json.dumps({"time_limit": 0.5})
    assert main([*args, "--compare", "dm-control,cpp-loop", "--kwargs", kwargs, "--json", "-q"]) == 0
    case = json.loads(capsys.readouterr().out)["cases"][0]
    assert json.loads(case["kwargs"]) == {"time_limit": 0.5}
    rows = {r["engine"]: r for r in case["rows"]}
    assert rows["envhive"]["steps_per_s"] > 0 and rows["dm-control"]["steps_per_s"] > 0
    assert rows["dm-control"]["mode"] == "1 env, dm_env loop" and rows["dm-control"]["ratio"] > 0
    assert "takes no task kwargs" in rows["cpp-loop"]["skipped"]
