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
