"""The multi-agent declaration (csrc/core/multi_agent.h) as Python sees it: the agents of a task's
spec, the pool-level spaces built from them, and the four per-agent info columns of the base."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

import envhive
from envhive import catalog
from envhive.registry import make_spec

TASK = "MultiAgentDummy-v0"


def test_agents_and_pool_spaces():
    spec = make_spec(TASK)
    assert [a.name for a in spec.agents] == ["agent_0", "agent_1", "agent_2"]
    assert [a.observation_space.shape for a in spec.agents] == [(3,), (4,), (5,)]
    assert [a.action_space for a in spec.agents] == [spaces.Discrete(2), spaces.Discrete(3), spaces.Discrete(4)]
    assert isinstance(spec.observation_space, spaces.Dict)
    assert list(spec.observation_space.keys()) == ["agent_0", "agent_1", "agent_2"]
    # every agent Discrete: one int64 per agent, bounded by each agent's range
    assert spec.action_space == spaces.Box(np.array([0, 0, 0]), np.array([1, 2, 3]), (3,), np.int64)
    names = list(spec.info_fields)
    assert names[:4] == ["agent_reward", "agent_terminated", "agent_truncated", "agent_live"]
    assert spec.info_fields["agent_reward"] == (np.dtype(np.float64), (3,))
    assert spec.info_fields["agent_live"] == (np.dtype(bool), (3,))
    assert names[4:] == ["team_step"]
    assert catalog.get(TASK).multi_agent and not catalog.get("Dummy-v0").multi_agent


def test_box_agents_concatenate_their_bounds():
    spec = make_spec(TASK, continuous=True, leave_after=[2, 2])
    assert spec.action_space == spaces.Box(-1.0, 1.0, (2 + 3,), np.float32)
    assert [a.action_space.shape for a in spec.agents] == [(2,), (3,)]


def test_bad_agent_counts_name_the_kwarg():
    with pytest.raises(ValueError, match="leave_after must hold 1 to 8"):
        make_spec(TASK, leave_after=[])


def test_live_mask_team_reward_and_leaving():
    env = envhive.make(TASK, num_envs=2, seed=3, leave_after=[2, 3, 4])
    obs, info = env.reset()
    assert info["agent_live"].all()
    live_after = []
    for _ in range(4):
        cues = [obs[f"agent_{i}"][:, : 2 + i].argmax(1) for i in range(3)]
        obs, reward, term, trunc, info = env.step(np.stack(cues, axis=1))
        live_after.append(info["agent_live"][0].tolist())
        # the team reward is the sum of the live agents' rewards; every live agent read its cue
        np.testing.assert_array_equal(reward, info["agent_reward"].sum(1))
        np.testing.assert_array_equal(info["agent_reward"], info["agent_live"].astype(float))
    # agent 0 leaves after 2 steps, agent 1 after 3, agent 2 (the last: truncated) after 4
    assert live_after == [[True] * 3, [True] * 3, [False, True, True], [False, False, True]]
    assert info["agent_truncated"][:, 2].all() and not info["agent_terminated"].any()
    assert trunc.all() and not term.any()
    env.close()


def test_cli_marks_multi_agent_tasks(capsys):
    import json

    from envhive import cli

    assert cli._agents_mark(catalog.get(TASK)) == "  [multi-agent: 3 agents]"
    assert cli._agents_mark(catalog.get("CartPole-v1")) == ""
    assert cli.main(["info", TASK, "--json"]) == 0
    agents = json.loads(capsys.readouterr().out)["agents"]
    assert list(agents) == ["agent_0", "agent_1", "agent_2"]
    assert agents["agent_2"]["action_space"] == "Discrete(4)"
