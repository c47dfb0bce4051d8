"""envhive.multiagent over the process backend: any PettingZoo env (mpe2's simple_spread_v3 and
simple_adversary_v3, and AEC envs: rps_v2, tictactoe_v3) in worker processes. The ParallelEnv passes
PettingZoo's parallel_api_test, and the batched pool's episodes equal the reference envs' own from the
same seeds (env i seeded seed + i), observations bit for bit, across episode ends and autoresets."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from mpe2 import simple_adversary_v3, simple_spread_v3
from pettingzoo.classic import rps_v2, tictactoe_v3
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

import envhive
from envhive import multiagent as ma


def api_test(env, cycles=200):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(env, num_cycles=cycles)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize(
    "task", ["mpe2.simple_spread_v3", simple_adversary_v3.parallel_env, rps_v2.env, tictactoe_v3.env]
)
def test_parallel_api(task):
    env = ma.parallel_env(task, start_method="fork")
    api_test(env)
    env.close()


def equal(a, b):
    if isinstance(b, dict):
        assert a.keys() == b.keys()
        for k in b:
            equal(a[k], b[k])
    else:
        np.testing.assert_array_equal(a, b)
        assert np.asarray(a).dtype == np.asarray(b).dtype


def random_actions(rng, env_or_spaces, agents, obs=None):
    out = {}
    for a in agents:
        o = None if obs is None else obs[a]
        if isinstance(o, dict) and "action_mask" in o:
            legal = np.flatnonzero(o["action_mask"])
            out[a] = int(rng.choice(legal)) if legal.size else 0
        else:
            out[a] = int(rng.integers(env_or_spaces.action_space(a).n))
    return out


@pytest.mark.parametrize(
    ("make_ref", "factory", "kwargs"),
    [
        (simple_spread_v3.parallel_env, "mpe2.simple_spread_v3", {"max_cycles": 12}),
        (simple_adversary_v3.parallel_env, simple_adversary_v3.parallel_env, {"max_cycles": 9}),
        (
            lambda: aec_to_parallel(rps_v2.env(num_actions=5, max_cycles=7)),
            rps_v2.env,
            {"num_actions": 5, "max_cycles": 7},
        ),
    ],
    ids=["simple_spread", "simple_adversary", "rps_aec"],
)
def test_batched_episodes_equal_the_reference(make_ref, factory, kwargs):
    """Three envs seeded 20, 21, 22, two episodes each (NEXT_STEP autoreset: a reset step between)."""
    n = 3
    venv = ma.make(factory, num_envs=n, seed=20, num_workers=2, start_method="fork", **kwargs)
    refs = [make_ref(**({} if callable(make_ref) and make_ref.__name__ == "<lambda>" else kwargs)) for _ in range(n)]
    obs, infos = venv.reset()
    ref_obs = [r.reset(seed=20 + i)[0] for i, r in enumerate(refs)]
    rng = np.random.default_rng(1)
    episodes = [0] * n
    steps = 0
    while min(episodes) < 2:
        actions = {a: np.zeros(n, np.int64) for a in venv.possible_agents}
        per_env = []
        for i, ref in enumerate(refs):
            acts = random_actions(rng, ref, ref.agents)
            per_env.append(acts)
            for a, v in acts.items():
                actions[a][i] = v
        for i, ref in enumerate(refs):
            for a in ref.agents:
                equal(obs[a][i], ref_obs[i][a])
        obs, rew, term, trunc, infos = venv.step(actions)
        steps += 1
        for i, ref in enumerate(refs):
            if not per_env[i]:  # the reference's game is over: the pool's step was a reset step
                ref_obs[i] = ref.reset()[0]
                continue
            o, r, te, tr, inf = ref.step(per_env[i])
            for a in venv.possible_agents:
                assert bool(infos[a]["live"][i]) == (a in r)
            for a in r:
                assert (rew[a][i], term[a][i], trunc[a][i]) == (r[a], te[a], tr[a]), (i, a, steps)
                assert inf[a] == {}
            ref_obs[i] = o
            if not ref.agents:
                episodes[i] += 1
    venv.close()


def test_same_step_autoreset_and_final_obs():
    venv = ma.make("mpe2.simple_spread_v3", num_envs=2, max_cycles=4, autoreset_mode="same_step", start_method="fork")
    ref = simple_spread_v3.parallel_env(max_cycles=4)
    obs, _ = venv.reset(seed=3)
    ref.reset(seed=3)
    zero = {a: np.zeros(2, np.int64) for a in venv.possible_agents}
    for _ in range(4):
        obs, rew, term, trunc, infos = venv.step(zero)
        o, r, *_ = ref.step({a: 0 for a in ref.agents})
    assert all(trunc[a].all() for a in venv.possible_agents)
    for a in venv.possible_agents:
        assert infos[a]["_final_obs"].all()
        equal(infos[a]["final_obs"][0], o[a])
    new, _ = ref.reset()
    for a in venv.possible_agents:
        equal(obs[a][0], new[a])
    assert venv.active.all()
    venv.close()


def test_flattened_view_over_processes():
    flat = ma.vector_env("mpe2.simple_spread_v3", num_envs=2, max_cycles=5, seed=0, start_method="fork")
    assert flat.num_envs == 6
    obs, info = flat.reset()
    ref = simple_spread_v3.parallel_env(max_cycles=5)
    ref_obs, _ = ref.reset(seed=1)
    for j, a in enumerate(ref.possible_agents):
        equal(obs[3 + j], ref_obs[a])  # env 1 (seed 1), agent j: row 1 * 3 + j
    for _ in range(5):
        obs, rew, term, trunc, info = flat.step(np.zeros(6, np.int64))
    assert trunc.all() and info["_final_obs"].all()
    flat.close()


def worker_crash(**kwargs):
    """A PettingZoo env whose process dies at its second step (env 1 of the pool only)."""
    env = simple_spread_v3.parallel_env(max_cycles=10)
    step = env.step
    count = [0]

    def crashing(actions):
        count[0] += 1
        if count[0] == 2 and kwargs.get("crash"):
            os._exit(3)
        return step(actions)

    env.step = crashing
    return env


def raising_env(**kwargs):
    env = simple_spread_v3.parallel_env(max_cycles=10)

    def failing(actions):
        raise RuntimeError("this env refuses to step")

    env.step = failing
    return env


def test_an_exception_in_an_env_reaches_python_with_its_env_id():
    venv = ma.make(raising_env, num_envs=2, num_workers=2, start_method="fork")
    venv.reset(seed=0)
    with pytest.raises(envhive.EnvError, match="refuses to step") as error:
        venv.step({a: np.zeros(2, np.int64) for a in venv.possible_agents})
    assert error.value.env_id in (0, 1)
    venv.close()


def test_a_worker_crash_reaches_python_with_its_env_id():
    venv = ma.make(worker_crash, num_envs=2, num_workers=2, start_method="fork", crash=True)
    venv.reset(seed=0)
    zero = {a: np.zeros(2, np.int64) for a in venv.possible_agents}
    venv.step(zero)
    with pytest.raises(envhive.EnvError) as error:
        venv.step(zero)
    assert error.value.env_id in (0, 1)
    venv.close()


def test_turn_based_aec_matches_its_reference():
    env = ma.parallel_env(tictactoe_v3.env, start_method="fork")
    ref = turn_based_aec_to_parallel(tictactoe_v3.env())
    obs, _ = env.reset(seed=5)
    ref_obs, _ = ref.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(2):
        while ref.agents:
            equal({a: obs[a] for a in ref.agents}, {a: ref_obs[a] for a in ref.agents})
            acts = random_actions(rng, ref, ref.agents, ref_obs)
            obs, rew, term, trunc, _ = env.step(acts)
            ref_obs, r, te, tr, _ = ref.step(acts)
            assert (rew, term, trunc) == (r, te, tr)
        assert not env.agents
        obs, _ = env.reset()
        ref_obs, _ = ref.reset()
    env.close()


def test_bad_tasks():
    with pytest.raises(ValueError, match="neither an envhive multi-agent task id nor an importable"):
        ma.make("no_such_module_xyz")
    with pytest.raises(TypeError, match="one env without autoreset"):
        ma.parallel_env("mpe2.simple_spread_v3", num_envs=2)
    with pytest.raises(envhive.EnvError, match="expected a PettingZoo ParallelEnv or AECEnv"):
        ma.make(lambda: 42, start_method="fork")


def test_spawned_workers_play_the_reference_episode():
    """~3 s: spawned workers import mpe2 afresh (the factory travels pickled: a module's function)."""
    venv = ma.make("mpe2.simple_spread_v3", num_envs=2, num_workers=2, max_cycles=3, start_method="spawn")
    obs, _ = venv.reset(seed=9)
    for i in range(2):
        ref_obs, _ = simple_spread_v3.parallel_env(max_cycles=3).reset(seed=9 + i)
        for a in venv.possible_agents:
            equal(obs[a][i], ref_obs[a])
    venv.close()


@pytest.mark.parametrize("make_env", [simple_spread_v3.parallel_env, simple_adversary_v3.parallel_env, rps_v2.env])
def test_the_unchecked_aec_cycle_plays_the_reference_episodes(make_env):
    """The envs a worker builds after its first step their AEC env without PettingZoo's check
    wrappers (AecCycle): the same episodes as the reference's own parallel env, two of them."""
    from envhive.multiagent.pettingzoo_env import AecCycle, ParallelAsGym, as_parallel

    fast = ParallelAsGym(make_env(), checks=False)
    assert isinstance(fast.par, AecCycle)
    ref = as_parallel(make_env())
    rng = np.random.default_rng(4)
    for episode in range(2):
        seed = 7 if episode == 0 else None
        (got_obs, got_info), (want_obs, want_info) = fast.par.reset(seed=seed), ref.reset(seed=seed)
        equal(got_obs, want_obs)
        assert got_info == want_info
        while ref.agents:
            acts = random_actions(rng, ref, ref.agents)
            got, want = fast.par.step(acts), ref.step(acts)
            equal(got[0], want[0])
            assert [dict(x) for x in got[1:]] == [dict(x) for x in want[1:]]
            assert fast.par.agents == ref.agents


def test_pettingzoo_checks_keep_the_wrappers():
    from envhive.multiagent.pettingzoo_env import AecCycle, ParallelAsGym, PettingZooFactory

    plain = PettingZooFactory(simple_spread_v3.parallel_env)
    assert not isinstance(plain().par, AecCycle)  # this process's first env keeps PettingZoo's checks
    assert isinstance(plain().par, AecCycle)
    checked = PettingZooFactory(simple_spread_v3.parallel_env, checks=True)
    assert not isinstance(checked().par, AecCycle) and not isinstance(checked().par, AecCycle)
    assert isinstance(ParallelAsGym(simple_spread_v3.parallel_env()).par, type(simple_spread_v3.parallel_env()))
    venv = ma.make("mpe2.simple_spread_v3", num_envs=2, pettingzoo_checks=True, start_method="fork", max_cycles=2)
    venv.reset(seed=0)
    venv.close()


MPE2 = [
    "simple_v3",
    "simple_adversary_v3",
    "simple_crypto_v3",
    "simple_push_v3",
    "simple_reference_v3",
    "simple_speaker_listener_v4",
    "simple_spread_v3",
    "simple_tag_v3",
    "simple_world_comm_v3",
]


def sample(rng, space):
    if hasattr(space, "n"):
        return int(rng.integers(space.n))
    return rng.uniform(space.low, space.high).astype(space.dtype)


@pytest.mark.deep
@pytest.mark.parametrize("continuous", [False, True], ids=["discrete", "continuous"])
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
@pytest.mark.parametrize("name", MPE2)
def test_deep_every_mpe2_scenario_equals_its_reference(name, mode, continuous):
    """Every mpe2 scenario, both action kinds, two autoreset modes: 4 envs (2 workers, seeds 100..103),
    three games each, every observation, reward and flag equal to the reference's own."""
    import importlib

    module = importlib.import_module(f"mpe2.{name}")
    n, kwargs = 4, {"max_cycles": 6, "continuous_actions": continuous}
    venv = ma.make(f"mpe2.{name}", num_envs=n, seed=100, num_workers=2, autoreset_mode=mode, **kwargs)
    refs = [module.parallel_env(**kwargs) for _ in range(n)]
    obs, _ = venv.reset()
    ref_obs = [r.reset(seed=100 + i)[0] for i, r in enumerate(refs)]
    rng = np.random.default_rng(2)
    games = [0] * n
    while min(games) < 3:
        for i, ref in enumerate(refs):
            for a in ref.agents:
                equal(obs[a][i], ref_obs[i][a])
        per_env = [{a: sample(rng, ref.action_space(a)) for a in ref.agents} for ref in refs]
        actions = {}
        for a in venv.possible_agents:
            space = venv.action_space(a)
            column = [per_env[i].get(a, sample(rng, space)) for i in range(n)]
            actions[a] = np.array(column, dtype=np.int64 if hasattr(space, "n") else space.dtype)
        obs, rew, term, trunc, infos = venv.step(actions)
        for i, ref in enumerate(refs):
            if not per_env[i]:  # NEXT_STEP: this was the pool's reset step
                ref_obs[i] = ref.reset()[0]
                continue
            o, r, te, tr, _ = ref.step(per_env[i])
            for a in r:
                assert (rew[a][i], term[a][i], trunc[a][i]) == (r[a], te[a], tr[a]), (name, i, a)
            ref_obs[i] = o
            if not ref.agents:
                games[i] += 1
                if mode == "same_step":
                    for a in o:
                        equal(infos[a]["final_obs"][i], o[a])
                    ref_obs[i] = ref.reset()[0]
    venv.close()


def test_render_is_the_reference_frame():
    env = ma.parallel_env("mpe2.simple_spread_v3", render_mode="rgb_array", max_cycles=3, start_method="fork")
    ref = simple_spread_v3.parallel_env(render_mode="rgb_array", max_cycles=3)
    env.reset(seed=0)
    ref.reset(seed=0)
    for _ in range(2):
        frame = env.render()
        assert frame.shape == (700, 700, 3)
        np.testing.assert_array_equal(frame, ref.render())
        env.step({a: 1 for a in env.agents})
        ref.step({a: 1 for a in ref.agents})
    assert env.metadata["render_fps"] == 10 and "rgb_array" in env.metadata["render_modes"]
    env.close()


def test_flattened_view_equals_supersuit_row_for_row():
    """SuperSuit's concat_vec_envs_v1(pettingzoo_env_to_vec_env_v1(env), 2) and vector_env(..., num_envs=2),
    both seeded 0: the same rows (env * n_agents + agent), rewards, flags and autoresets, step for step."""
    import supersuit as ss

    ref = ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(simple_spread_v3.parallel_env(max_cycles=5)), 2, num_cpus=0
    )
    flat = ma.vector_env("mpe2.simple_spread_v3", num_envs=2, max_cycles=5, seed=0, start_method="fork")
    obs, _ = flat.reset()
    ref_obs, _ = ref.reset(seed=0)
    equal(obs, ref_obs)
    rng = np.random.default_rng(5)
    for _ in range(12):  # two games and a bit
        actions = rng.integers(0, 5, 6)
        obs, rew, term, trunc, info = flat.step(actions)
        ref_obs, ref_rew, ref_term, ref_trunc, ref_info = ref.step(actions)
        equal(obs, ref_obs)
        np.testing.assert_array_equal(rew, ref_rew)
        np.testing.assert_array_equal(term, ref_term.astype(bool))
        np.testing.assert_array_equal(trunc, ref_trunc.astype(bool))
        for row, row_info in enumerate(ref_info):
            if "terminal_observation" in row_info:
                assert info["_final_obs"][row]
                equal(info["final_obs"][row], row_info["terminal_observation"])
    flat.close()
    ref.close()
