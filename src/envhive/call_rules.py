"""The rules of a call given a pool's state, and every message they raise, written once.

``TEMPLATES`` holds the text of each rule's message (``{name}`` marks a value the caller fills in):
what a call may do while envs were never reset, are in flight, ended their episode under DISABLED
autoreset, while a sync pool is reset in part, when ``recv()`` would wait forever or a reset cannot
fill a batch, and the messages of the checks of a call's env ids and actions. Python formats them
with :func:`message`; the native pool's C++ call front (``csrc/bindings/call_front.h``) keeps its
own logic for speed but formats the same templates, which ``envhive.catalog`` installs into every
family module when it loads it (``set_call_messages``). No text of a rule lives anywhere else
(``tests/test_call_rules.py`` checks the tree).

:class:`CallState` is where each env of a pool stands -- never reset, in flight (a step or a
reset), episode over -- and plans each ``reset`` / ``async_reset`` / ``send`` / ``recv`` / ``step``
of the backends that keep their state in Python (the process backend, and Ray's per global env):
a backend asks it before it queues anything and tells it what it queued and received.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from envhive.errors import ResetNeeded

TEMPLATES: dict[str, str] = {
    # --- stepping
    "never_reset": "env {env} has not been reset: call reset() (or async_reset() and recv()) before stepping it",
    "never_reset_held": (
        "env {env} has not been reset, and a partial step of a sync pool reports every env: reset every env first"
    ),
    "in_flight": "env {env} is not awaiting an action: it was sent and not yet returned by recv()",
    "in_flight_all": (
        "env {env} is not awaiting an action (it is in flight); pass env_id for the envs recv() returned"
    ),
    "ended": (
        "env {env} has ended its episode and autoreset_mode is 'disabled': reset it first with "
        "reset(options={'reset_mask': mask})"
    ),
    "sync_send_all": (
        "sync mode (batch_size == num_envs) steps all {num_envs} envs together; got env_id for {count}. "
        "Use batch_size < num_envs for async stepping"
    ),
    "recv_forever": (
        "recv() would wait forever: {in_flight} env(s) in flight, batch_size is {batch_size}; send() actions "
        "(or async_reset()) first"
    ),
    # --- resets
    "partial_reset_sync": (
        "env {env} has not been reset: a partial reset of a sync pool reports every env, so reset all envs first "
        "(reset() without a reset_mask)"
    ),
    "reset_in_flight": "cannot reset env {env}: it is in flight; recv() it first",
    "reset_drops_steps": (
        "reset(options={'reset_mask': ...}) of an async pool returns the next batch as (obs, info), so the {steps} "
        "step(s) in flight would lose their rewards and flags: recv() them first"
    ),
    "reset_cannot_fill": (
        "resetting {count} env(s) cannot fill a batch of {batch_size} with {others} others in flight; recv() would "
        "wait forever"
    ),
    "reset_mask_size": "reset mask must have {num_envs} entries",
    # --- render
    "render_in_flight": (
        "cannot render {envs}: in flight (sent, not yet returned by recv()); render(env_ids=...) the envs awaiting "
        "an action, or recv() them first"
    ),
    "render_never_reset": "env {env} has not been reset: call reset() before render()",
    # --- env ids
    "env_id_range": "{what} {env} is out of range [0, {num_envs})",
    "env_id_twice": "{what} {env} appears twice in one {call}",
    "env_id_form": "{what} must be an int or a 1-D array of ints",
    "env_id_integers": "{what} must hold integers{got}",
    # --- actions
    "actions_missing": "actions are missing (got None): pass one action per env",
    "action_shape": "actions{where} must have shape {expected}, got {got}",
    "action_integers": "actions for a {space} action space must be integers, got dtype {dtype}",
    "action_reals": "actions for a Box action space must be real numbers, got dtype {dtype}",
    "action_discrete": "action {action} for env {env} is outside Discrete({n}{start}): valid actions are {low}..{high}",
    "action_outside": "action {action} for env {env} is outside the action space {space}",
    "action_not_finite": "action for env {env} is not finite ({value}); envhive rejects NaN and infinite actions",
    "action_overflows": "action for env {env} is not finite as {dtype}: {value} overflows it",
    # --- failures
    "env_failed": (
        "env {env} raised: {error}{others}; this batch is lost. The failed env(s) start a new episode on their next "
        "step{disabled}"
    ),
    "env_failed_others": " (and {count} more env(s) failed in this batch)",
    "env_failed_disabled": " once reset with reset(options={'reset_mask': mask}) (autoreset_mode='disabled')",
    # --- Ray's shards (its whole-shard rules)
    "shards_uneven": (
        "async RayVectorEnv returns whole shards: num_envs ({num_envs}) must split evenly over num_shards "
        "({num_shards}) and batch_size ({batch_size}) must be a multiple of the shard size below num_envs"
    ),
    "shard_send_whole": (
        "send: shard {shard} holds envs {first}..{last}; each call gives actions to all of a shard's envs exactly "
        "once (send back the ids recv returned)"
    ),
    "shard_partial_mask": (
        "{call}: async RayVectorEnv resets whole shards; shard {shard} holds envs {first}..{last} and reset_mask "
        "selects only some of them"
    ),
    "shard_sync_async_reset": "a sync RayVectorEnv resets a subset with reset(options={'reset_mask': mask})",
    "shard_render_busy": "render: shard(s) {shards} are stepping or gone; render between steps",
    # --- a consumer that takes one autoreset mode only
    "autoreset_only": (
        "{who} consumes {wanted} autoreset ({why}), so this pool always runs autoreset_mode={name}; got "
        "autoreset_mode={given}: drop it"
    ),
    "autoreset_only_pool": "{who} consumes {wanted} autoreset; this pool runs {given}: {fix}",
}
"""Every message of the call rules by name: ``{name}`` fields, filled by :func:`message` (Python)
and by the C++ call front (which refuses a module whose templates lack a name it uses)."""

_FIELD = re.compile(r"\{([a-z_]+)\}")


def message(rule: str, /, **fields: Any) -> str:
    """The message of ``rule`` with its fields filled in (``str`` of each value). Only ``{field}``
    of lower-case letters and underscores is a field; other braces are text."""

    def fill(match: re.Match[str]) -> str:
        return str(fields[match.group(1)])

    return _FIELD.sub(fill, TEMPLATES[rule])


def failure_message(env_ids: list[int], error: str, disabled: bool) -> str:
    """What a batch raises (``EnvError``) when the envs ``env_ids`` failed in it, the first with
    ``error``."""
    others = message("env_failed_others", count=len(env_ids) - 1) if len(env_ids) > 1 else ""
    return message(
        "env_failed",
        env=env_ids[0],
        error=error,
        others=others,
        disabled=message("env_failed_disabled") if disabled else "",
    )


IDLE, STEP, RESET = 0, 1, 2
"""What an env has in flight (``CallState.flight``): nothing, a step, a reset."""


class CallState:
    """Where each of ``num_envs`` envs stands, and what a call may do given it (the module doc).

    ``flight[i]``: IDLE, STEP or RESET (sent or queued, not yet returned by ``recv``);
    ``never_reset[i]``: the env was never reset (stepping it raises ``ResetNeeded``);
    ``ended[i]``: DISABLED autoreset only -- its episode ended (or it failed) and it needs a reset.
    """

    def __init__(self, num_envs: int, batch_size: int, mode: AutoresetMode) -> None:
        self.num_envs = num_envs
        self.batch_size = batch_size
        self.sync = batch_size == num_envs
        self.disabled = mode == AutoresetMode.DISABLED
        self.flight = np.zeros(num_envs, dtype=np.int8)
        self.ended = np.zeros(num_envs, dtype=bool)
        self.never_reset = np.ones(num_envs, dtype=bool)
        self.all_reset = False

    # ------------------------------------------------------------------ steps
    def check_send(self, ids: np.ndarray | None, partial: bool = False) -> None:
        """A send (or step) of ``ids`` (None: every env; checked env ids otherwise) may go: none in
        flight, every env of a sync pool (unless ``partial``), each steppable."""
        flight = self.flight
        if ids is None:
            if flight.any():
                raise ValueError(message("in_flight_all", env=_first(flight != IDLE)))
        else:
            busy = flight[ids] != IDLE
            if busy.any():
                raise ValueError(message("in_flight", env=int(ids[_first(busy)])))
            if self.sync and not partial and len(ids) != self.num_envs:
                raise ValueError(message("sync_send_all", num_envs=self.num_envs, count=len(ids)))
        self.check_steppable(ids, held=partial and ids is not None and len(ids) != self.num_envs)

    def check_steppable(self, ids: np.ndarray | None, held: bool = False) -> None:
        """Every env of ``ids`` (None: all) was reset and (DISABLED) is not past its episode's end.
        ``held``: a partial sync step, whose other envs report their state too (so must have been
        reset)."""
        if not self.all_reset:
            if held and self.never_reset.any():
                raise ResetNeeded(message("never_reset_held", env=_first(self.never_reset)))
            never = self.never_reset if ids is None else self.never_reset[ids]
            if never.any():
                raise ResetNeeded(message("never_reset", env=_env(ids, _first(never))))
        if self.disabled:
            ended = self.ended if ids is None else self.ended[ids]
            if ended.any():
                raise ValueError(message("ended", env=_env(ids, _first(ended))))

    def sent(self, ids: np.ndarray | None) -> None:
        """The steps of ``ids`` (None: every env) were queued."""
        if ids is None:
            self.flight[:] = STEP
        else:
            self.flight[ids] = STEP

    def in_flight(self) -> int:
        return int(np.count_nonzero(self.flight))

    def check_recv(self, in_flight: int | None = None) -> None:
        """A batch can be received: at least ``batch_size`` envs are in flight (``in_flight``: the
        backend's own count, when it keeps one)."""
        count = self.in_flight() if in_flight is None else in_flight
        if count < self.batch_size:
            raise ValueError(message("recv_forever", in_flight=count, batch_size=self.batch_size))

    def received(self, ids: np.ndarray | None, terminated: np.ndarray, truncated: np.ndarray) -> None:
        """The rows of ``ids`` (None: every env) came back with these flags."""
        if ids is None:
            self.flight[:] = IDLE
            if self.disabled:
                np.logical_or(terminated, truncated, out=self.ended)
        else:
            self.flight[ids] = IDLE
            if self.disabled:
                self.ended[ids] = terminated | truncated

    def failed(self, ids: Any) -> None:
        """The envs ``ids`` raised (or were replaced): no longer in flight, and (DISABLED) need a reset."""
        self.flight[ids] = IDLE
        self.ended[ids] = True

    def settled(self, ids: Any) -> None:
        """Nothing of ``ids`` (None: every env) is in flight any more: returned without rows to
        report (a sync reset), drained, or lost with their worker."""
        if ids is None:
            self.flight[:] = IDLE
        else:
            self.flight[ids] = IDLE

    # ------------------------------------------------------------------ resets
    def plan_reset(self, mask: np.ndarray | None, receive: bool) -> np.ndarray:
        """The env ids a reset of ``mask`` (None: every env) resets, in order; ``receive``: the call
        returns the next batch (``reset``, not ``async_reset``). A full reset, and any reset of a
        sync pool, first drains whatever is in flight (the backend does; then :meth:`settled`)."""
        if mask is None:
            return np.arange(self.num_envs)
        ids = np.flatnonzero(mask)
        if self.sync:
            if not self.all_reset:
                left = self.never_reset & ~mask
                if left.any():
                    raise ResetNeeded(message("partial_reset_sync", env=_first(left)))
            return ids
        busy = self.flight[ids] != IDLE
        if busy.any():
            raise ValueError(message("reset_in_flight", env=int(ids[_first(busy)])))
        if receive:
            steps = int(np.count_nonzero(self.flight == STEP))
            if steps:
                raise ValueError(message("reset_drops_steps", steps=steps))
            others = self.in_flight()
            if others + len(ids) < self.batch_size:
                raise ValueError(
                    message("reset_cannot_fill", count=len(ids), batch_size=self.batch_size, others=others)
                )
        return ids

    def reset_queued(self, ids: np.ndarray) -> None:
        """The resets of ``ids`` were queued: they are in flight and start new episodes."""
        self.flight[ids] = RESET
        self.ended[ids] = False
        if not self.all_reset:
            self.never_reset[ids] = False
            self.all_reset = not self.never_reset.any()


def _first(flags: np.ndarray) -> int:
    return int(np.flatnonzero(flags)[0])


def _env(ids: np.ndarray | None, k: int) -> int:
    return k if ids is None else int(ids[k])
