"""What parent and workers agree on: the arena's regions, command codes and pipe messages.

Per worker (each counter on a cache line of its own):
  ``cmd_ring[w]``  env commands queued by the parent, ``cmd_head[w * LINE]`` how many so far;
  ``done_ring[w]`` env ids in the order the worker finished them, ``done_head[w * LINE]``;
  ``worker_sleeping[w * LINE]`` set while the worker blocks (``parent_waiting`` likewise);
  ``want_total[0]``: while the parent blocks, the sum of all ``done_head`` words at which it wants
  to be woken -- each worker checks the sum after each env it publishes, so a call costs one
  wake-up, from whichever worker completes the batch, not one per env or per worker.
Per env: action leaves (parent writes), a pending seed, observation leaves, reward, flags,
elapsed steps, status, info kind and an info record (worker writes); SAME_STEP adds the final
observation leaves, a has-final flag, the final info kind and record.
A command is ``env_id << 3 | op``; ``CONTROL`` (-1) tells the worker to read its next pipe message,
``CLOSE`` (-2) to close its envs and exit (no pipe message: close() never blocks on a full pipe),
``STEP_BLOCK`` (-3) to step every env of its block (a sync step: one entry, one completion count of
the block's size, rows written with one copy per array, no completion ring entries).
"""

from __future__ import annotations

from collections.abc import Sequence

from envhive.process.arena import LINE_WORDS, Layout, Leaf

OP_STEP = 0
OP_RESET = 1
OP_SEEDED = 2  # with OP_RESET: use seeds[env_id]
OP_OPTIONS = 4  # with OP_RESET: options come through the pipe
OP_BITS = 3
CONTROL = -1
CLOSE = -2
STEP_BLOCK = -3

# Bits a worker ORs into its batch_flags word for what it wrote since the parent cleared it (when
# nothing was in flight): a sync batch checks errors, infos and final observations only if set.
FLAG_ERROR = 1
FLAG_INFO = 2
FLAG_FINAL = 4
FLAG_ALL = FLAG_ERROR | FLAG_INFO | FLAG_FINAL

STATUS_OK = 0
STATUS_ERROR = 1

# Pipe messages (tuples, first item the kind).
# worker -> parent: ("spaces", obs_space, act_space, metadata, render_mode) once envs are built;
#   ("layout", code, fields); ("info", env_id, area, info); ("error", env_id, text);
#   ("object", env_id, region, value) for an object leaf too big for its slot;
#   ("reply", value); ("failed", text) for a control call that raised; ("fatal", env_id, text).
# parent -> worker: ("arena", layout, settings) followed by three file descriptors;
#   ("options", {env_id: options}); ("render",).


def ring_capacity(block: int) -> int:
    """Commands a worker can have queued: each of its envs once, plus control messages."""
    return block + 4


def build_layout(
    num_envs: int,
    num_workers: int,
    capacity: int,
    obs: Sequence[Leaf],
    act: Sequence[Leaf],
    info_bytes: int,
    same_step: bool,
    object_bytes: int = 256,
) -> Layout:
    def add_obs(prefix: str) -> None:
        for i, leaf in enumerate(obs):
            if leaf.is_object:
                layout.add(f"{prefix}{i}", (num_envs, object_bytes), "u1")
                layout.add(f"{prefix}{i}_len", (num_envs,), "i4")
            else:
                layout.add(f"{prefix}{i}", (num_envs, *leaf.shape), leaf.dtype)

    layout = Layout()
    words = num_workers * LINE_WORDS
    layout.add("cmd_head", (words,), "i8")
    layout.add("done_head", (words,), "i8")
    layout.add("parent_waiting", (LINE_WORDS,), "i8")
    layout.add("want_total", (LINE_WORDS,), "i8")
    layout.add("batch_flags", (words,), "i8")
    layout.add("worker_sleeping", (words,), "i8")
    layout.add("cmd_ring", (num_workers, capacity), "i8")
    layout.add("done_ring", (num_workers, capacity), "i8")
    for i, leaf in enumerate(act):
        layout.add(f"act{i}", (num_envs, *leaf.shape), leaf.dtype)
    layout.add("seeds", (num_envs,), "u8")
    add_obs("obs")
    layout.add("reward", (num_envs,), "f8")
    layout.add("terminated", (num_envs,), "u1")
    layout.add("truncated", (num_envs,), "u1")
    layout.add("elapsed", (num_envs,), "i4")
    layout.add("status", (num_envs,), "i1")
    layout.add("info_kind", (num_envs,), "i4")
    layout.add("info", (num_envs, info_bytes), "u1")
    if same_step:
        add_obs("final_obs")
        layout.add("has_final", (num_envs,), "u1")
        layout.add("final_elapsed", (num_envs,), "i4")
        layout.add("final_info_kind", (num_envs,), "i4")
        layout.add("final_info", (num_envs, info_bytes), "u1")
    return layout
