"""envhive.multiagent over a native multi-agent task (MultiAgentDummy-v0: agents that leave at
different steps, per-agent spaces): the batched facade in the three autoreset modes and async mode,
the PettingZoo ParallelEnv (parallel_api_test), the agent-flattened VectorEnv, and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import parallel_api_test

import envhive
from envhive import multiagent as ma

TASK = "MultiAgentDummy-v0"
AGENTS = ["agent_0", "agent_1", "agent_2"]


def cue_actions(obs):
    """Every agent's best action: the index of its cue (the one-hot part of its observation)."""
    return {a: o[:, :-1].argmax(1).astype(np.int64) for a, o in obs.items()}


def no_warnings_api_test(env, cycles=200):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(env, num_cycles=cycles)
    assert [str(w.message) for w in caught] == []


def test_parallel_env_passes_the_api_test_and_agents_shrink():
    env = ma.parallel_env(TASK)
    no_warnings_api_test(env)
    obs, infos = env.reset(seed=7)
    assert env.possible_agents == AGENTS and env.agents == AGENTS
    assert [obs[a].shape for a in AGENTS] == [(3,), (4,), (5,)]
    assert env.observation_space("agent_1") is env.observation_space("agent_1")
    seen = []
    while env.agents:
        actions = {a: int(obs[a][:-1].argmax()) for a in env.agents}
        obs, rew, term, trunc, infos = env.step(actions)
        assert all(r == 1.0 for r in rew.values())  # every agent read its cue
        seen.append((sorted(rew), list(env.agents), {a: (term[a], trunc[a]) for a in term}))
    # agent_0 leaves after 3 steps (terminated), agent_1 after 5, agent_2 after 8 (truncated: its clock)
    assert [len(s[0]) for s in seen] == [3, 3, 3, 2, 2, 1, 1, 1]
    assert seen[2][2]["agent_0"] == (True, False) and seen[2][1] == ["agent_1", "agent_2"]
    assert seen[4][2]["agent_1"] == (True, False) and seen[7][2] == {"agent_2": (False, True)}
    assert infos["agent_2"] == {"team_step": 8}
    with pytest.raises(envhive.ResetNeeded, match="every agent is done"):
        env.step({})
    env.close()


def test_parallel_env_names_bad_actions():
    env = ma.parallel_env(TASK, leave_after=[1, 3])
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"unknown agent\(s\) \['nobody'\]"):
        env.step({"agent_0": 0, "agent_1": 0, "nobody": 0})
    with pytest.raises(ValueError, match=r"lack agent\(s\) \['agent_1'\]"):
        env.step({"agent_0": 0})
    with pytest.raises(ValueError, match="agent 'agent_1' must be an integer"):
        env.step({"agent_0": 0, "agent_1": 0.5})
    with pytest.raises(ValueError, match="agent 'agent_0'"):
        env.step({"agent_0": [0, 1], "agent_1": 0})
    with pytest.raises(TypeError, match="must be a dict"):
        env.step([0, 0])
    env.step({"agent_0": 0, "agent_1": 0})
    with pytest.raises(ValueError, match=r"agent\(s\) \[.agent_0.\] that are done"):
        env.step({"agent_0": 0, "agent_1": 0})
    env.close()


def test_batched_same_as_single_envs_and_seeds():
    """Env i of a batched pool seeded s is the ParallelEnv seeded s + i, step for step."""
    venv = ma.make(TASK, num_envs=3, seed=11, autoreset_mode="disabled")
    obs, _ = venv.reset()
    singles = [ma.parallel_env(TASK) for _ in range(3)]
    firsts = [e.reset(seed=11 + i)[0] for i, e in enumerate(singles)]
    rng = np.random.default_rng(0)
    for _ in range(8):
        for i in range(3):
            for a in singles[i].agents:
                np.testing.assert_array_equal(obs[a][i], firsts[i][a])
        actions = {a: rng.integers(0, 2 + j, size=3) for j, a in enumerate(AGENTS)}
        obs, rew, term, trunc, infos = venv.step(actions)
        for i, env in enumerate(singles):
            acts = {a: int(actions[a][i]) for a in env.agents}
            o, r, te, tr, _ = env.step(acts)
            for a in r:
                assert infos[a]["live"][i]
                assert (rew[a][i], term[a][i], trunc[a][i]) == (r[a], te[a], tr[a])
            firsts[i] = o
    assert not venv.active.any()
    with pytest.raises(envhive.ResetNeeded, match=r"env\(s\) \[0, 1, 2\]: every agent is done"):
        venv.step({})
    venv.close()
    for env in singles:
        env.close()


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_autoreset_modes(mode):
    venv = ma.make(TASK, num_envs=2, seed=3, leave_after=[2, 3], truncate_last=False, autoreset_mode=mode)
    obs, infos = venv.reset()
    ends = []
    for t in range(8):
        obs, rew, term, trunc, infos = venv.step(cue_actions(obs))
        live = np.stack([infos[a]["live"] for a in ["agent_0", "agent_1"]], 1)[0].tolist()
        ends.append((t, live, bool(term["agent_1"][0]), venv.active[0].tolist()))
        if mode == "same_step" and term["agent_1"][0]:
            assert infos["agent_1"]["_final_obs"][0]
            assert infos["agent_1"]["final_obs"][0].shape == (4,)
            assert infos["agent_0"]["final_obs"][0].shape == (3,)
    if mode == "next_step":  # 3 steps, a reset step, 3 steps, a reset step
        assert [e[2] for e in ends] == [False, False, True, False, False, False, True, False]
        assert ends[3][1] == [True, True] and ends[3][3] == [True, True]
        assert ends[2][3] == [False, False]
    else:  # the step that ends the game returns the new episode's observations
        assert [e[2] for e in ends] == [False, False, True, False, False, True, False, False]
        assert ends[2][3] == [True, True]
    assert ends[1][1] == [True, True] and ends[2][1] == [False, True]
    venv.close()


def test_pool_time_limit_truncates_agents_in_play():
    venv = ma.make(TASK, num_envs=1, leave_after=[1, 0], max_episode_steps=3, autoreset_mode="disabled")
    obs, _ = venv.reset(seed=0)
    flags = []
    for _ in range(3):
        obs, rew, term, trunc, infos = venv.step(cue_actions(obs) | {"agent_1": np.zeros(1, np.int64)})
        flags.append({a: (bool(term[a][0]), bool(trunc[a][0]), bool(infos[a]["live"][0])) for a in term})
    assert flags[0]["agent_0"] == (True, False, True)
    assert flags[2] == {"agent_0": (False, False, False), "agent_1": (False, True, True)}
    venv.close()


def test_async_send_recv():
    venv = ma.make(TASK, num_envs=4, batch_size=2, seed=0)
    obs, infos = venv.reset()
    ids = infos["agent_0"]["env_id"]
    assert len(ids) == 2
    seen = set()
    for _ in range(6):
        venv.send(cue_actions(obs), ids)
        obs, rew, term, trunc, infos = venv.recv()
        ids = infos["agent_0"]["env_id"]
        seen |= set(ids.tolist())
        assert all(r.shape == (2,) for r in rew.values())
    assert seen == {0, 1, 2, 3}
    venv.close()


def test_batched_bad_actions():
    venv = ma.make(TASK, num_envs=2)
    with pytest.raises(envhive.ResetNeeded):
        venv.step({})
    venv.reset(seed=0)
    with pytest.raises(ValueError, match=r"lack agent 'agent_2', which is in play in env row\(s\) \[0, 1\]"):
        venv.step({"agent_0": np.zeros(2, np.int64), "agent_1": np.zeros(2, np.int64)})
    with pytest.raises(ValueError, match=r"agent 'agent_1' must have shape \(2,\)"):
        venv.step({a: np.zeros(2 if a != "agent_1" else 3, np.int64) for a in AGENTS})
    with pytest.raises(ValueError, match=r"action 3 of agent 'agent_1' \(env row 1\) is not in Discrete\(3\)"):
        venv.step({"agent_0": np.array([0, 1]), "agent_1": np.array([0, 3]), "agent_2": np.array([0, 3])})
    with pytest.raises(ValueError, match="unknown agent"):
        venv.step({"x": 1})
    venv.close()
    with pytest.raises(ValueError, match="single-agent task"):
        ma.make("Dummy-v0")


def test_env_error_names_the_env():
    venv = ma.make(TASK, num_envs=3, fail_env=1, fail_step=2)
    obs, _ = venv.reset(seed=0)
    venv.step(cue_actions(obs))
    with pytest.raises(envhive.EnvError, match="env 1") as error:
        venv.step(cue_actions(obs))
    assert error.value.env_id == 1
    venv.close()


def test_flattened_rows_in_supersuit_order_and_padding():
    with pytest.raises(ValueError, match="different observation or action spaces.*pad=True"):
        ma.vector_env(TASK, num_envs=2)
    flat = ma.vector_env(TASK, num_envs=2, pad=True, seed=5)
    assert flat.num_envs == 6
    assert flat.single_observation_space == spaces.Box(0.0, 1e9, (5,), np.float32)
    assert flat.single_action_space == spaces.Discrete(4)
    obs, info = flat.reset()
    assert obs.shape == (6, 5)
    # row env * 3 + agent: agent 0's observation is padded with zeros after its 3 values
    batched = ma.make(TASK, num_envs=2, seed=5)
    ref, _ = batched.reset()
    for e in range(2):
        for j, a in enumerate(AGENTS):
            row = obs[e * 3 + j]
            np.testing.assert_array_equal(row[: ref[a].shape[1]], ref[a][e])
            assert not row[ref[a].shape[1] :].any()
    # the best action of every row (padded actions an agent lacks mean 0)
    for t in range(8):
        actions = obs[:, :-1].argmax(1)
        obs, rew, term, trunc, info = flat.step(actions)
        assert rew.dtype == np.float32 and rew.shape == (6,)
        if t == 2:  # agent 0 leaves: its rows terminate, then hold zeros and reward 0
            assert term.tolist() == [True, False, False] * 2
        if t == 3:
            assert not obs[[0, 3]].any() and rew[[0, 3]].tolist() == [0.0, 0.0]
    # SAME_STEP: the game ended at step 8 in every env: every row is done, with its last observation
    assert (term | trunc).all() and info["_final_obs"].all()
    flat.close()
    batched.close()


def test_flattened_same_spaces_no_padding():
    flat = ma.vector_env(TASK, num_envs=3, same_spaces=True, continuous=True, seed=1)
    assert flat.single_action_space == spaces.Box(-1.0, 1.0, (3,), np.float32)
    obs, _ = flat.reset()
    assert obs.shape == (9, 4)
    obs, rew, term, trunc, info = flat.step(np.eye(3, dtype=np.float32)[obs[:, :3].argmax(1)])
    assert (rew == 1.0).all()
    flat.close()


@pytest.mark.deep
@pytest.mark.parametrize("continuous", [False, True], ids=["discrete", "box"])
def test_deep_async_pool_routes_every_env_like_its_own_parallel_env(continuous):
    """6 envs, batches of 3, 2 threads, NEXT_STEP autoreset, 60 recvs: each env's rows equal a
    ParallelEnv of its own seed stepped with the same actions (games restarted where the pool did)."""
    kwargs = {"leave_after": [2, 4, 5], "continuous": continuous}
    venv = ma.make(TASK, num_envs=6, batch_size=3, num_threads=2, seed=40, **kwargs)
    singles = [ma.parallel_env(TASK, **kwargs) for _ in range(6)]
    expect = [env.reset(seed=40 + i)[0] for i, env in enumerate(singles)]
    obs, infos = venv.reset()
    rng = np.random.default_rng(3)
    outcome: dict[int, dict] = {}
    rew = term = trunc = None
    for _ in range(60):
        ids = infos["agent_0"]["env_id"]
        for row, i in enumerate(ids.tolist()):
            for a in singles[i].agents:
                np.testing.assert_array_equal(obs[a][row], expect[i][a])
            for a, (r, te, tr) in outcome.pop(i, {}).items():
                assert infos[a]["live"][row] and (rew[a][row], term[a][row], trunc[a][row]) == (r, te, tr)
        actions = {}
        for a in AGENTS:
            space = venv.action_space(a)
            if continuous:
                actions[a] = rng.uniform(-1, 1, (3, *space.shape)).astype(np.float32)
            else:
                actions[a] = rng.integers(0, space.n, 3)
        venv.send(actions, ids)
        for row, i in enumerate(ids.tolist()):
            env = singles[i]
            if not env.agents:  # the pool's reset step
                expect[i] = env.reset()[0]
                continue
            expect[i], r, te, tr, _ = env.step(
                {a: actions[a][row] if continuous else int(actions[a][row]) for a in env.agents}
            )
            outcome[i] = {a: (r[a], te[a], tr[a]) for a in r}
        obs, rew, term, trunc, infos = venv.recv()
    venv.close()


def test_box_actions_are_checked_per_agent():
    env = ma.parallel_env(TASK, continuous=True, leave_after=[2, 2])
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"agent 'agent_1' must have shape \(3,\)"):
        env.step({"agent_0": np.zeros(2, np.float32), "agent_1": np.zeros(2, np.float32)})
    obs, rew, *_ = env.step({"agent_0": np.array([1, -1], np.float32), "agent_1": np.ones(3, np.float32)})
    assert rew["agent_1"] == 1.0 and rew["agent_0"] in (1.0, -1.0)
    env.close()
    venv = ma.make(TASK, num_envs=2, continuous=True, leave_after=[2, 2])
    venv.reset(seed=0)
    with pytest.raises(ValueError, match=r"agent 'agent_0' must have shape \(2, 2\)"):
        venv.step({"agent_0": np.zeros((2, 3), np.float32), "agent_1": np.zeros((2, 3), np.float32)})
    venv.close()
