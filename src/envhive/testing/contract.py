"""The call contract every envhive pool keeps, as a pytest class to subclass.

A backend (native, process, Ray, yours) or a plug-in family runs the contract on its pools by
subclassing :class:`PoolContract` in a test module and saying how a pool of its task is made::

    from envhive.testing import PoolContract

    class TestMyPools(PoolContract):
        task = "mypkg/CartPole-v1"          # made with envhive.make(task, **kwargs, **pool kwargs)
        kwargs = {}

        # or, for pools made another way:
        def make_pool(self, **pool_kwargs):  # num_envs, batch_size, autoreset_mode, seed, max_episode_steps
            return MyVectorEnv(self.task, **pool_kwargs)

pytest then runs every rule below against those pools: the state rules of each call (never reset,
in flight, ended under DISABLED autoreset, a partial reset of a sync pool, ``recv()`` that would
wait forever, a reset that cannot fill a batch), the three autoreset modes and SAME_STEP's final
observations, seeding (an int, per-env seeds, reset with new seeds), errors (``EnvError`` with the
env ids -- give :meth:`PoolContract.make_failure` --, bad actions, env ids and reset masks). The
messages checked are the rules' own (``envhive.call_rules``), so every pool says the same.

What the contract assumes of the task: ``max_episode_steps`` (a pool kwarg) ends its episodes,
none ends within 2 steps, its spaces are Gymnasium's, and (``deterministic = True``) the same seed
and actions give the same observations.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from envhive.call_rules import TEMPLATES, message
from envhive.errors import EnvError, ResetNeeded
from envhive.pools import make_pool
from envhive.vector import HiveVectorEnv

MODES = ("next_step", "same_step", "disabled")
EPISODE = 3  # max_episode_steps of the pools whose episodes the tests end


@dataclass
class Failure:
    """How a subclass makes envs raise: ``trigger(pool)`` (after a reset) makes the envs
    ``env_ids`` of ``pool`` raise inside their workers; ``says``: a pattern their error matches."""

    pool: HiveVectorEnv
    trigger: Callable[[HiveVectorEnv], Any]
    env_ids: list[int]
    says: str = ""


def exactly(name: str, **fields: Any) -> str:
    """A ``match`` pattern of the rule's whole message."""
    return "^" + re.escape(message(name, **fields)) + "$"


def starts(name: str, **fields: Any) -> str:
    """A ``match`` pattern of the rule's message up to its first field not given (values the
    backends write each their own way: numbers, arrays)."""
    template = TEMPLATES[name]
    cut = next((m.start() for m in re.finditer(r"\{([a-z_]+)\}", template) if m.group(1) not in fields), None)
    head = template if cut is None else template[:cut]
    return "^" + re.escape(re.sub(r"\{([a-z_]+)\}", lambda m: str(fields[m.group(1)]), head))


def no_hang(call: Callable[[], Any], seconds: float = 60.0) -> BaseException | None:
    """Run ``call`` in a daemon thread; what it raised (None: nothing). Fails if it does not return."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            call()
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            outcome.append(error)
        else:
            outcome.append(None)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"the call did not return within {seconds} s (it hangs)")
    return outcome[0]


def assert_same(a: Any, b: Any, what: str = "obs") -> None:
    """Equal (nested) observations."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), what
        for key in a:
            assert_same(a[key], b[key], f"{what}[{key!r}]")
    elif isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), what
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{what}[{k}]")
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=what)


def row(obs: Any, i: int) -> Any:
    """Env row ``i`` of a batched (nested) observation."""
    if isinstance(obs, dict):
        return {key: row(value, i) for key, value in obs.items()}
    if isinstance(obs, tuple):
        return tuple(row(value, i) for value in obs)
    return obs[i]


def by_env(obs: Any, info: dict[str, Any]) -> dict[int, Any]:
    """A batch's rows by env id (an async batch comes in the order its envs were ready)."""
    return {int(env): row(obs, k) for k, env in enumerate(info["env_id"])}


class ContractBase:
    """How the tests make pools and actions; a subclass gives ``task`` / ``kwargs`` or
    :meth:`make_pool`, and may give :meth:`make_failure`."""

    task: Any = None
    kwargs: dict[str, Any] = {}  # noqa: RUF012 - a subclass replaces it
    deterministic = True
    _pools: list[HiveVectorEnv]

    def make_pool(self, **pool_kwargs: Any) -> HiveVectorEnv:
        """A pool of the task with these pool kwargs (``num_envs``, ``batch_size``,
        ``autoreset_mode``, ``seed``, ``max_episode_steps``); default ``envhive.make``."""
        return make_pool(self.task, **self.kwargs, **pool_kwargs)

    def make_failure(self, autoreset_mode: str) -> Failure | None:
        """A pool (NEXT_STEP or DISABLED autoreset) whose envs can be made to raise, or None (the
        error tests are skipped for a subclass that gives none)."""
        return None

    @pytest.fixture(autouse=True)
    def _close_pools(self) -> Iterator[None]:
        self._pools = []
        yield
        for pool in self._pools:
            pool.close()

    def pool(self, num_envs: int = 4, batch_size: int | None = None, **kwargs: Any) -> HiveVectorEnv:
        kwargs.setdefault("seed", 0)
        if batch_size is not None:
            kwargs["batch_size"] = batch_size
        pool = self.make_pool(num_envs=num_envs, **kwargs)
        self._pools.append(pool)
        return pool

    @staticmethod
    def actions(pool: HiveVectorEnv, rows: int, seed: int) -> Any:
        """Valid actions for ``rows`` envs, the same for the same seed."""
        space = batch_space(pool.single_action_space, rows)
        space.seed(seed)
        return space.sample()


class StateRules(ContractBase):
    """What a call may do given the pool's state (``envhive.call_rules``), with the rules' messages."""

    def test_stepping_an_env_never_reset_is_refused(self) -> None:
        sync = self.pool()
        with pytest.raises(ResetNeeded, match=exactly("never_reset", env=0)) as caught:
            sync.step(self.actions(sync, 4, 0))
        assert isinstance(caught.value, gymnasium.error.ResetNeeded)  # as Gymnasium's envs refuse it
        sync.reset()
        assert sync.step(self.actions(sync, 4, 0))[1].shape == (4,)  # refused calls changed nothing
        pool = self.pool(batch_size=2)
        with pytest.raises(ResetNeeded, match=exactly("never_reset", env=2)):
            pool.send(self.actions(pool, 2, 0), np.array([2, 3]))
        pool.async_reset()
        assert len(pool.recv()[4]["env_id"]) == 2

    def test_a_partial_reset_of_a_sync_pool_needs_every_env_reset(self) -> None:
        pool = self.pool()
        with pytest.raises(ResetNeeded, match=exactly("partial_reset_sync", env=2)):
            pool.reset(options={"reset_mask": np.array([True, True, False, False])})
        pool.reset()
        pool.step(self.actions(pool, 4, 0))
        _, info = pool.reset(options={"reset_mask": np.array([False, True, False, True])})
        np.testing.assert_array_equal(info["env_id"], np.arange(4))
        np.testing.assert_array_equal(info["elapsed_step"], [1, 0, 1, 0])

    def test_sending_to_an_env_in_flight_is_refused(self) -> None:
        pool = self.pool(batch_size=2)
        _, info = pool.reset()
        ids = info["env_id"].copy()
        pool.send(self.actions(pool, 2, 0), ids)
        with pytest.raises(ValueError, match=exactly("in_flight", env=ids[0])):
            pool.send(self.actions(pool, 2, 1), ids)
        with pytest.raises(ValueError, match=exactly("in_flight_all", env=0)):  # every env is in flight
            pool.send(self.actions(pool, 4, 1))
        got = np.concatenate([pool.recv()[4]["env_id"], pool.recv()[4]["env_id"]])
        assert sorted(got.tolist()) == [0, 1, 2, 3]

    def test_a_sync_step_takes_every_env(self) -> None:
        pool = self.pool()
        pool.reset()
        with pytest.raises(ValueError, match=exactly("sync_send_all", num_envs=4, count=2)):
            pool.step(self.actions(pool, 2, 0), np.array([0, 1]))
        *_, info = pool.step(self.actions(pool, 4, 0), np.array([3, 2, 1, 0]))  # every env, in any order
        np.testing.assert_array_equal(info["env_id"], np.arange(4))
        np.testing.assert_array_equal(info["elapsed_step"], 1)

    def test_recv_that_would_wait_forever_raises_instead(self) -> None:
        pool = self.pool(batch_size=2)
        error = no_hang(pool.recv)
        assert isinstance(error, ValueError) and str(error) == message("recv_forever", in_flight=0, batch_size=2)
        pool.async_reset()
        pool.recv()
        pool.recv()
        error = no_hang(pool.recv)
        assert isinstance(error, ValueError) and str(error) == message("recv_forever", in_flight=0, batch_size=2)
        sync = self.pool()
        sync.reset()
        error = no_hang(sync.recv)
        assert isinstance(error, ValueError) and str(error) == message("recv_forever", in_flight=0, batch_size=4)

    def test_resetting_an_env_in_flight_is_refused(self) -> None:
        pool = self.pool(batch_size=2)
        _, info = pool.reset()  # the other two envs' resets are still in flight
        waiting = sorted(set(range(4)) - set(info["env_id"].tolist()))
        mask = np.zeros(4, dtype=bool)
        mask[waiting] = True
        with pytest.raises(ValueError, match=exactly("reset_in_flight", env=waiting[0])):
            pool.reset(options={"reset_mask": mask})
        with pytest.raises(ValueError, match=exactly("reset_in_flight", env=waiting[0])):
            pool.async_reset(reset_mask=mask)

    def test_a_reset_that_would_drop_steps_is_refused(self) -> None:
        pool = self.pool(batch_size=2)
        _, info = pool.reset()
        first = info["env_id"].copy()
        second = pool.recv()[4]["env_id"].copy()
        pool.send(self.actions(pool, 2, 0), first)
        mask = np.zeros(4, dtype=bool)
        mask[second] = True
        with pytest.raises(ValueError, match=exactly("reset_drops_steps", steps=2)):
            pool.reset(options={"reset_mask": mask})
        pool.async_reset(reset_mask=mask)  # leaves the steps in flight alone
        rows: dict[int, int] = {}
        for _ in range(2):
            _, _, _, _, info = pool.recv()
            rows.update(zip(info["env_id"].tolist(), info["elapsed_step"].tolist(), strict=True))
        assert rows == {**dict.fromkeys(first.tolist(), 1), **dict.fromkeys(second.tolist(), 0)}

    def test_a_reset_that_cannot_fill_a_batch_is_refused(self) -> None:
        pool, twin = self.pool(batch_size=2), self.pool(batch_size=2)
        for p in (pool, twin):
            p.async_reset()
            p.recv()
            p.recv()
        mask = np.array([False, False, False, True])
        error = no_hang(lambda: pool.reset(seed=123, options={"reset_mask": mask}))
        assert isinstance(error, ValueError)
        assert str(error) == message("reset_cannot_fill", count=1, batch_size=2, others=0)
        if not self.deterministic:
            return
        # The refused reset stored nothing: env 3's next (unseeded) reset is the twin's, which was
        # never asked for seed 123.
        both = np.array([False, False, True, True])
        got, expected = (by_env(*p.reset(options={"reset_mask": both})) for p in (pool, twin))
        assert_same(got[3], expected[3], "env 3 reset after a refused reset(seed=123)")

    def test_a_closed_pool_refuses_every_call(self) -> None:
        pool = self.pool(batch_size=2)
        pool.reset()
        pool.close()
        assert pool.closed
        calls: dict[str, Callable[[], Any]] = {
            "reset": pool.reset,
            "async_reset": pool.async_reset,
            "send": lambda: pool.send(self.actions(pool, 2, 0), np.array([0, 1])),
            "recv": pool.recv,
        }
        for name, call in calls.items():
            error = no_hang(call)
            assert isinstance(error, ValueError) and "closed" in str(error), name
        pool.close()  # twice is harmless


class AutoresetRules(ContractBase):
    """The three autoreset modes, SAME_STEP's final observations, and the time limit."""

    def test_an_episode_end_in_each_mode(self) -> None:
        """The same seeds and actions in each mode: NEXT_STEP reports an end, then a reset step
        (reward 0, no flags, elapsed_step 0); SAME_STEP resets in the step, its final_obs /
        final_info being NEXT_STEP's row of the end and its row NEXT_STEP's reset; DISABLED
        refuses to step an ended env until a masked reset."""
        n = 3
        nxt, same, disabled = (self.pool(n, autoreset_mode=m, max_episode_steps=EPISODE, seed=5) for m in MODES)
        assert_same(nxt.reset()[0], same.reset()[0], "reset")
        disabled.reset()
        running = np.ones(n, dtype=bool)  # no episode ended yet: both pools' rows agree
        for t in range(EPISODE):
            actions = self.actions(nxt, n, t)
            a, b = nxt.step(actions), same.step(actions)
            assert a[4]["elapsed_step"].max() <= EPISODE  # the pool's time limit holds
            done = a[2] | a[3]
            for x, y in ((a[1], b[1]), (a[2], b[2]), (a[3], b[3])):  # rewards and flags
                np.testing.assert_array_equal(x[running], y[running], err_msg=f"step {t}")
            ended = done & running
            final_mask = b[4].get("_final_obs", np.zeros(n, dtype=bool))
            np.testing.assert_array_equal(final_mask[running], ended[running], err_msg=f"step {t}: _final_obs")
            for i in range(n):
                if not running[i]:
                    continue
                if not ended[i]:
                    if "final_obs" in b[4]:
                        assert b[4]["final_obs"][i] is None
                    if self.deterministic:
                        assert_same(row(b[0], i), row(a[0], i), f"step {t} env {i}")
                    continue
                final = b[4]["final_obs"][i]
                assert same.single_observation_space.contains(final), f"final_obs[{i}] is an observation"
                assert b[4]["_final_info"][i]
                assert b[4]["final_info"]["elapsed_step"][i] == a[4]["elapsed_step"][i]
                assert b[4]["elapsed_step"][i] == 0  # the next episode's first row
                if self.deterministic:
                    assert_same(final, row(a[0], i), f"step {t}: final_obs[{i}]")
            if ended.any():  # NEXT_STEP's reset step for them (the others' rows no longer compare)
                reset = nxt.step(self.actions(nxt, n, 100 + t))
                np.testing.assert_array_equal(reset[1][ended], 0)
                assert not (reset[2] | reset[3])[ended].any()
                np.testing.assert_array_equal(reset[4]["elapsed_step"][ended], 0)
                if self.deterministic:
                    for i in np.flatnonzero(ended).tolist():
                        assert_same(row(reset[0], i), row(b[0], i), f"env {i}'s reset")
                running &= ~ended
            if not running.any():
                break
        assert not running.any(), f"an episode of max_episode_steps={EPISODE} did not end"
        self._disabled(disabled)

    def _disabled(self, pool: HiveVectorEnv) -> None:
        n = pool.num_envs
        done = np.zeros(n, dtype=bool)
        for t in range(EPISODE):
            _, _, terminated, truncated, _ = pool.step(self.actions(pool, n, t))
            done = terminated | truncated
            if done.any():
                break
        assert done.any()
        with pytest.raises(ValueError, match=exactly("ended", env=int(np.flatnonzero(done)[0]))):
            pool.step(self.actions(pool, n, 50))
        _, info = pool.reset(options={"reset_mask": done})
        np.testing.assert_array_equal(info["elapsed_step"][done], 0)
        *_, info = pool.step(self.actions(pool, n, 51))
        np.testing.assert_array_equal(info["elapsed_step"][done], 1)

    def test_async_pools_return_envs_first_ready_with_their_own_steps(self) -> None:
        """Each batch holds batch_size distinct envs, each as far as the actions sent to it."""
        pool = self.pool(batch_size=2)
        pool.async_reset()
        sent = np.zeros(4, dtype=int)
        seen = np.zeros(4, dtype=int)
        for k in range(8):
            _, reward, _, _, info = pool.recv()
            ids = info["env_id"]
            assert reward.shape == (2,) and len(set(ids.tolist())) == 2
            np.testing.assert_array_equal(info["elapsed_step"], sent[ids])
            seen[ids] += 1
            pool.send(self.actions(pool, 2, k), ids)
            sent[ids] += 1
        assert seen.min() > 0, f"an env was never returned: {seen}"


class SeedingRules(ContractBase):
    """An int seed seeds env i with seed + i; per-env seeds; reset(seed=) reseeds."""

    def test_seeds(self) -> None:
        if not self.deterministic:
            pytest.skip("the subclass says its task is not deterministic")
        made = self.pool(3, seed=5)
        other = self.pool(3, seed=0)
        expected, _ = made.reset()
        assert_same(other.reset(seed=5)[0], expected, "reset(seed=5)")
        assert_same(other.reset(seed=[5, 6, 7])[0], expected, "reset(seed=[5, 6, 7])")
        for t in range(2):  # the same seeds, the same trajectories
            actions = self.actions(made, 3, t)
            assert_same(other.step(actions)[0], made.step(actions)[0], f"step {t}")
        nine = other.reset(seed=[9, 9, 9])[0]
        assert_same(row(nine, 0), row(nine, 2), "two envs seeded 9")
        obs, _ = other.reset(seed=[None, 9, None])  # only env 1 is reseeded
        assert_same(row(obs, 1), row(nine, 1), "env 1 reseeded with 9")
        some = self.pool(3, seed=[None, 9, None]).reset()[0]  # a pool seeded in part: the others draw entropy
        assert_same(row(some, 1), row(nine, 1), "env 1 of a pool made with seed=[None, 9, None]")

    def test_bad_seeds_are_refused(self) -> None:
        pool = self.pool(3)
        with pytest.raises(ValueError, match="seed sequence must have num_envs=3 entries"):
            pool.reset(seed=[1, 2])
        with pytest.raises(ValueError, match=re.escape("seeds must be in [0, 2**64)")):
            pool.reset(seed=-1)
        with pytest.raises(TypeError, match="seed"):
            pool.reset(seed="x")  # type: ignore[arg-type]


class ErrorRules(ContractBase):
    """Envs that raise (``EnvError`` with their ids) and bad arguments, with the pool usable after."""

    @pytest.mark.parametrize("mode", ["next_step", "disabled"])
    def test_an_env_that_raises_is_an_env_error_with_its_ids(self, mode: str) -> None:
        failure = self.make_failure(mode)
        if failure is None:
            pytest.skip("the subclass gives no failing pool (make_failure)")
        pool = failure.pool
        self._pools.append(pool)
        n = pool.num_envs
        pool.reset()
        with pytest.raises(EnvError) as caught:
            failure.trigger(pool)
        error = caught.value
        assert isinstance(error, RuntimeError)
        assert error.env_ids == failure.env_ids and error.env_id == failure.env_ids[0]
        assert str(error).startswith(f"env {error.env_id} raised: ")
        assert re.search(failure.says, error.error), f"{error.error!r} does not say {failure.says!r}"
        failed = np.zeros(n, dtype=bool)
        failed[failure.env_ids] = True
        if mode == "disabled":  # the failed envs need a reset before they step again
            with pytest.raises(ValueError, match=exactly("ended", env=failure.env_ids[0])):
                pool.step(self.actions(pool, n, 0))
            _, info = pool.reset(options={"reset_mask": failed})
            np.testing.assert_array_equal(info["elapsed_step"][failed], 0)
            *_, info = pool.step(self.actions(pool, n, 1))
            np.testing.assert_array_equal(info["elapsed_step"][failed], 1)
        else:  # the failed envs start a new episode on their next step
            _, reward, terminated, truncated, info = pool.step(self.actions(pool, n, 1))
            np.testing.assert_array_equal(info["elapsed_step"][failed], 0)
            np.testing.assert_array_equal(reward[failed], 0)
            assert not (terminated | truncated)[failed].any()
        _, info = pool.reset()  # reset() always works
        np.testing.assert_array_equal(info["elapsed_step"], 0)

    def test_bad_actions_are_refused(self) -> None:
        pool = self.pool()
        pool.reset()
        space = pool.single_action_space
        with pytest.raises(TypeError, match=exactly("actions_missing")):
            pool.step(None)
        if isinstance(space, spaces.Discrete | spaces.Box):
            with pytest.raises(ValueError, match=starts("action_shape", where="")):
                pool.step(self.actions(pool, 3, 0))
        if isinstance(space, spaces.Discrete):
            with pytest.raises(TypeError, match=starts("action_integers", space="Discrete")):
                pool.step(np.zeros(4, dtype=np.float32))
            low, n = int(space.start), int(space.n)
            start = f", start={low}" if low else ""
            for value in (low + n, low - 1):
                bad = np.full(4, low, dtype=np.int64)
                bad[1] = value
                pattern = exactly("action_discrete", action=value, env=1, n=n, start=start, low=low, high=low + n - 1)
                with pytest.raises(ValueError, match=pattern):
                    pool.step(bad)
        if isinstance(space, spaces.Box) and np.issubdtype(space.dtype, np.floating):
            bad = np.zeros((4, *space.shape), dtype=space.dtype)
            bad[2] = np.nan
            with pytest.raises(ValueError, match=starts("action_not_finite", env=2)):
                pool.step(bad)
        *_, info = pool.step(self.actions(pool, 4, 0))  # nothing was queued by the refused calls
        np.testing.assert_array_equal(info["elapsed_step"], 1)

    def test_bad_env_ids_are_refused(self) -> None:
        pool = self.pool(batch_size=2)
        _, info = pool.reset()
        ids = info["env_id"].copy()
        actions = self.actions(pool, 2, 0)
        for bad in (4, -1):
            with pytest.raises(ValueError, match=exactly("env_id_range", what="env_id", env=bad, num_envs=4)):
                pool.send(actions, np.array([ids[0], bad]))
        with pytest.raises(ValueError, match=exactly("env_id_twice", what="env_id", env=ids[0], call="send()")):
            pool.send(actions, np.array([ids[0], ids[0]]))
        with pytest.raises(TypeError, match=starts("env_id_integers", what="env_id")):
            pool.send(actions, ids.astype(np.float64))
        pool.send(actions, ids)  # nothing was queued by the refused calls
        rows: dict[int, int] = {}
        for _ in range(2):
            info = pool.recv()[4]
            rows.update(zip(info["env_id"].tolist(), info["elapsed_step"].tolist(), strict=True))
        assert rows == {i: int(i in ids) for i in range(4)}

    def test_bad_reset_masks_are_refused(self) -> None:
        pool = self.pool()
        pool.reset()
        for mask, error, pattern in [
            (np.array([True, False]), ValueError, re.escape("options['reset_mask'] must have shape (4,)")),
            (np.array([1, 0, 1, 0]), TypeError, "must have dtype bool"),
            ([True, False, True, False], TypeError, "must be a numpy array"),
            (np.zeros(4, dtype=bool), ValueError, "must contain at least one True"),
        ]:
            with pytest.raises(error, match=pattern):
                pool.reset(options={"reset_mask": mask})
        assert pool.step(self.actions(pool, 4, 0))[1].shape == (4,)


class PoolContract(StateRules, AutoresetRules, SeedingRules, ErrorRules):
    """Every rule of the call contract (the module doc); subclass it as ``Test...``."""


__all__ = ["Failure", "PoolContract", "assert_same", "exactly", "no_hang", "row"]
