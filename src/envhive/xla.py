"""envhive pools inside compiled JAX programs: ``jit``, ``lax.scan``, ``lax.while_loop``, ``vmap``.

``handle, recv, send, step = env.xla()`` follows EnvPool's ``env.xla()``:

* ``handle`` is a ``uint8[HANDLE_BYTES]`` array. Every call takes it as input 0 and returns it
  (aliased, so ``jit(..., donate_argnums=...)`` reuses the buffer); threading the returned handle
  into the next call orders the calls inside the program.
* ``send(handle, actions, env_id=None) -> handle``
* ``recv(handle) -> (handle, (obs, reward, terminated, truncated, info))``
* ``step(handle, actions, env_id=None)`` is ``recv(send(...))`` in one call.

Sync pools (``batch_size == num_envs``) may omit ``env_id``; async pools pass the ``info["env_id"]``
of the batch they answer. Outputs are JAX arrays of static shapes. ``info`` holds ``env_id``,
``elapsed_step`` and the task's info fields; in SAME_STEP mode also ``final_obs`` (dense: the
terminal observation where an episode ended, zeros elsewhere), ``_final_obs`` (the mask),
``final_info`` (dense, with Gymnasium's ``_name`` masks) and ``_final_info``. 64-bit outputs (the
float64 reward, MuJoCo's float64 observations) follow ``jax_enable_x64``: float32 / int32 unless
it is on. Reset the pool through the numpy API (``env.reset()``, or ``env.async_reset()`` for an
async pool) before the program runs; the XLA path has no reset, as EnvPool's has none.

**How it differs from EnvPool.** The pool is named by the handle's *data* (a process tag, the family
module's pool interface, the pool's serial number and address, and a call number), not by an
attribute compiled into the program. So one FFI target serves every pool of every family module
(native, MuJoCo, Atari, Python-written and out-of-tree tasks), a program compiled for one pool
runs for another of the same shapes, and:

* **vmap over a stack of handles** (one pool per lane, e.g. one per seed) lowers to ONE custom call
  that sends to every pool and then waits for each, so the pools step concurrently. The handle
  must be batched (an argument that is not, e.g. constant actions, goes to every pool); vmapping
  over anything else (actions or keys for one pool's handle) raises :class:`XlaBatchingError` at
  trace time, before anything runs.
* **A handle is single-use.** Each call returns the handle with its call number + 1, and the pool
  accepts only the number it expects next: reusing an old handle (EnvPool code that keeps passing
  the *initial* handle across separate jitted calls) raises :class:`StaleHandleError`. Always use
  the handle the previous call returned. After a failed call the pool accepts the next handle
  whatever its number (the caller still holds the one from before the failed program).
* **The cond / while hazard under vmap.** ``vmap`` of ``lax.cond`` or ``lax.while_loop`` with a
  *per-lane* predicate runs the body for every lane and then selects; JAX refuses that only for
  its own IO effects, so a lane that "did not take" the branch (or had finished its loop) is
  stepped anyway and its result discarded. The call number turns that into a
  :class:`StaleHandleError` at that lane's next call (detection, not prevention: the lane was
  stepped once more than the program says). Keep the predicates of conds and loops that step pools
  unbatched (a ``lax.scan`` of fixed length, a scalar condition), or mask actions instead.
* **Multiple devices.** A handle holds host addresses and is meaningful only in the process that
  made it. ``jax.pmap(step)`` over handles (one pool per device) and ``jax.shard_map`` of a
  vmapped step over handles sharded along the pool axis work: each device steps its own pools,
  each exactly once. A plain ``jit`` of a vmapped step over handles sharded across devices does
  not compile (XLA refuses to partition or replicate a side-effecting call), so a pool is never
  stepped twice; use ``shard_map`` or ``pmap``.

**Errors** inside a call (a bad action, an env that raised, a closed pool, a stale handle) make the
jitted call raise ``jax.errors.JaxRuntimeError`` (never an abort); the process and the pool stay
usable. JAX dispatches asynchronously, so the error may surface at a later value read or
``block_until_ready()``. :func:`translate_errors` (a context manager) and :func:`checked` (a
wrapper that also waits for the result) re-raise it as envhive's own type: ``EnvError`` with
``env_id``/``env_ids``, ``ResetNeeded``, ``PoolClosedError``, ``PoolBusyError``,
:class:`StaleHandleError` or ``ValueError``, with ``lane`` and ``pool_serial`` attributes.

**Threads.** A call blocks the XLA thread that runs it while the pool steps (that thread steps envs
too, as envhive's calling thread always does); Ctrl-C is seen once the program returns. A pool
serves one call at a time: a Python call (``env.step``) while a jitted program is inside the pool
raises ``PoolBusyError`` (so does the program, the other way round); ``block_until_ready()`` before
mixing the two. ``env.close()`` from another thread makes a call waiting inside raise
``PoolClosedError``.

**GPU.** The targets are registered for CUDA too (the pools step on the host; inputs and results
are copied once each way on XLA's stream, then the stream is synchronised). The CUDA handlers'
staging (csrc/xla/staged_call.cc) also runs on the CPU device as the *CUDA twin*, whose copies
land only at a sync and whose staging is poisoned between calls; the tests lower to it with the
private switch ``ENVHIVE_XLA_CUDA_TWIN=1`` (read when a program is traced; CPU device only).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np

from envhive._version import __version__
from envhive.backend import XlaPool
from envhive.call_rules import message
from envhive.errors import EnvError, PoolBusyError, PoolClosedError, ResetNeeded
from envhive.leaves import Leaf, leaves

if TYPE_CHECKING:
    from envhive.vector import HiveVectorEnv

try:
    _xla: Any = importlib.import_module("envhive._xla")
except ImportError as e:  # built without jaxlib's headers (cmake/xla.cmake)
    raise ImportError(
        f"envhive._xla is not built ({e}): jaxlib's XLA FFI headers were missing when envhive was built; "
        'reinstall envhive with its build requirements (pip install --force-reinstall "envhive[jax]")'
    ) from e

HANDLE_BYTES: int = _xla.HANDLE_BYTES
_TARGETS = ("envhive_send", "envhive_recv", "envhive_step")

Info = dict[str, Any]
StepResult = tuple[jax.Array, tuple[jax.Array, jax.Array, jax.Array, jax.Array, Info]]


class XlaBatchingError(ValueError):
    """``jax.vmap`` was applied to a pool function in a way that cannot be a batch of pools."""


class StaleHandleError(RuntimeError):
    """A handle that is not the one the pool's previous XLA call returned."""


class XlaFunctions(NamedTuple):
    """What ``env.xla()`` returns (EnvPool's names and order)."""

    handle: jax.Array
    recv: Callable[[jax.Array], StepResult]
    send: Callable[..., jax.Array]
    step: Callable[..., StepResult]


# ---------------------------------------------------------------------------------------------------
# Registration: once per process, for every platform; each family module's interface once.

_lock = threading.Lock()
_registered = False
_modules: set[str] = set()


def register_targets() -> None:
    """Registers envhive's FFI targets with JAX (idempotent; they serve every pool).

    The CUDA registration is harmless without a GPU: jaxlib keeps it pending until a CUDA backend
    loads, and the handlers load the driver only when they run."""
    global _registered
    with _lock:
        if _registered:
            return
        if __version__ != _xla.ENVHIVE_VERSION:
            raise ImportError(
                f"envhive._xla was built for envhive {_xla.ENVHIVE_VERSION}, but {__version__} is installed; "
                "reinstall envhive"
            )
        for name, capsule in _xla.cpu_targets().items():
            jax.ffi.register_ffi_target(name, capsule, platform="cpu", api_version=1)
        for name, capsule in _xla.cuda_targets().items():
            jax.ffi.register_ffi_target(name, capsule, platform="CUDA", api_version=1)
        # The CUDA handlers' staging run on the host (inert unless a program lowers to them).
        for name, capsule in _xla.cuda_twin_targets().items():
            jax.ffi.register_ffi_target(name, capsule, platform="cpu", api_version=1)
        _registered = True


def _register_module(module: Any) -> None:
    with _lock:
        if module.__name__ not in _modules:
            _xla.register_module(module.POOL_ABI)
            _modules.add(module.__name__)


def cuda_available() -> bool:
    """True when JAX has a CUDA device here (the CUDA targets then run; elsewhere they are inert)."""
    try:
        return len(jax.devices("cuda")) > 0
    except RuntimeError:
        return False


def cuda_driver_available() -> bool:
    """True when the CUDA driver (libcuda.so.1), which the CUDA targets load when they run, loads here."""
    return bool(_xla.cuda_driver_available())


# ---------------------------------------------------------------------------------------------------
# Shapes: what a pool reads and writes, as JAX sees it.


@dataclass(frozen=True)
class _Layout:
    """One pool's rows, as the traced program sees them (hashable: it keys the cached calls)."""

    rows: int
    sync: bool
    discrete: bool
    action_shape: tuple[int, ...]
    action_dtype: str
    obs: tuple[tuple[tuple[str | int, ...], tuple[int, ...], str], ...]
    """The observation's leaves: (path, shape, dtype); a Text leaf is its bytes (uint8)."""
    infos: tuple[tuple[str, str, tuple[int, ...]], ...]
    same_step: bool

    @classmethod
    def of(cls, env: HiveVectorEnv) -> _Layout:
        spec = env.task_spec
        act = spec.action_space
        discrete = isinstance(act, gymnasium.spaces.Discrete)
        return cls(
            rows=env.batch_size,
            sync=env.batch_size == env.num_envs,
            discrete=discrete,
            action_shape=() if discrete else tuple(act.shape or ()),
            action_dtype="int32" if discrete else str(np.dtype(act.dtype)),
            obs=tuple(_obs_leaf(leaf) for leaf in leaves(spec.observation_space, "observation", objects=True)),
            infos=tuple((name, str(np.dtype(dt)), tuple(shape)) for name, (dt, shape) in spec.info_fields.items()),
            same_step=env.autoreset_mode == gymnasium.vector.AutoresetMode.SAME_STEP,
        )

    def outputs(self, lanes: tuple[int, ...]) -> list[jax.ShapeDtypeStruct]:
        """The pool's outputs (EnvhivePoolAbi::recv's order) for `lanes` pools; 64-bit types follow
        jax_enable_x64."""
        per_row = (*lanes, self.rows)

        def out(shape: tuple[int, ...], dtype: str) -> jax.ShapeDtypeStruct:
            return jax.ShapeDtypeStruct((*per_row, *shape), jax.dtypes.canonicalize_dtype(np.dtype(dtype)))

        obs = [out(shape, dtype) for _, shape, dtype in self.obs]
        specs = [*obs, out((), "float64"), out((), "bool"), out((), "bool")]
        specs += [out((), "int32"), out((), "int32")]
        specs += [out(shape, dt) for _, dt, shape in self.infos]
        if self.same_step:
            specs += [out((), "bool"), *obs, out((), "int32")]
            specs += [out(shape, dt) for _, dt, shape in self.infos]
        return specs

    def pack(self, out: Any) -> StepResult:
        """The flat outputs of a call as ``(handle, (obs, reward, terminated, truncated, info))``."""
        k = len(self.obs)
        handle, obs_leaves, rest = out[0], out[1 : 1 + k], out[1 + k :]
        reward, terminated, truncated, env_id, elapsed, *rest = rest
        n = len(self.infos)
        info: Info = {"env_id": env_id, "elapsed_step": elapsed}
        info.update({name: rest[i] for i, (name, _, _) in enumerate(self.infos)})
        if self.same_step:
            mask, *tail = rest[n:]
            final_obs, (final_elapsed, *final_infos) = tail[:k], tail[k:]
            final: Info = {"env_id": env_id, "_env_id": mask, "elapsed_step": final_elapsed, "_elapsed_step": mask}
            for i, (name, _, _) in enumerate(self.infos):
                final[name] = final_infos[i]
                final["_" + name] = mask
            info.update(
                {"final_obs": self._nest(final_obs), "_final_obs": mask, "final_info": final, "_final_info": mask}
            )
        return handle, (self._nest(obs_leaves), reward, terminated, truncated, info)

    def _nest(self, values: Sequence[jax.Array]) -> Any:
        """The observation's structure (dicts and tuples, as the numpy API returns it) from its leaves."""
        if len(self.obs) == 1 and not self.obs[0][0]:
            return values[0]
        root: dict[str | int, Any] = {}
        for (path, _, _), value in zip(self.obs, values, strict=True):
            node = root
            for key in path[:-1]:
                node = node.setdefault(key, {})
            node[path[-1]] = value
        return _as_tuples(root)


def _obs_leaf(leaf: Leaf) -> tuple[tuple[str | int, ...], tuple[int, ...], str]:
    if isinstance(leaf.space, gymnasium.spaces.Text):  # the pool's zero-padded UTF-8 bytes
        return leaf.path, (int(leaf.space.max_length),), "uint8"
    if leaf.is_object:
        raise ValueError(f"envhive xla: the observation leaf {leaf.where} ({leaf.space}) has no array form")
    return leaf.path, leaf.shape, str(leaf.dtype)


def _as_tuples(node: Any) -> Any:
    """Nested dicts with int keys (Tuple spaces) as tuples, in key order."""
    if not isinstance(node, dict):
        return node
    if node and all(isinstance(key, int) for key in node):
        return tuple(_as_tuples(node[i]) for i in range(len(node)))
    return {key: _as_tuples(value) for key, value in node.items()}


# ---------------------------------------------------------------------------------------------------
# The custom calls, and how they batch.


_CUDA_TWIN = "ENVHIVE_XLA_CUDA_TWIN"


def _lowers_to_cuda_twin() -> bool:
    """Whether calls traced now go to the CUDA handlers' host twin (``ENVHIVE_XLA_CUDA_TWIN=1``, a
    switch for tests: the twin targets exist on the CPU platform only). Read at trace time, so a
    program keeps the targets it was traced with."""
    return os.environ.get(_CUDA_TWIN) == "1"


@functools.cache
def _ffi_call(op: str, layout: _Layout, lanes: tuple[int, ...], twin: bool = False) -> Callable[..., Any]:
    handle = jax.ShapeDtypeStruct((*lanes, HANDLE_BYTES), jnp.uint8)
    results: Any = handle if op == "send" else (handle, *layout.outputs(lanes))
    return jax.ffi.ffi_call(
        f"envhive_{op}_cuda_twin" if twin else f"envhive_{op}",
        results,
        # The call acts on a pool: XLA must neither drop it when its outputs are unused nor merge it.
        has_side_effect=True,
        # The handle flows through: input 0 is output 0 (no copy; donation reuses the caller's buffer).
        input_output_aliases={0: 0},
        # Batching goes through custom_vmap below (a batch of handles is a batch of pools); the
        # built-in methods would step one pool several times or serialise the pools.
        vmap_method=None,
    )


def _batching_error(op: str, names: tuple[str, ...], batched: list[bool]) -> XlaBatchingError:
    flags = ", ".join(f"{n}={b}" for n, b in zip(names, batched, strict=True))
    return XlaBatchingError(
        f"envhive xla: jax.vmap over {op}() batches pools, so it must batch the handle (batched: {flags}). "
        "To step several pools in one call, vmap over a stack of their handles (one pool per lane, e.g. "
        "jnp.stack([h0, h1]), one env.xla() each); one pool's handle cannot be vmapped: its envs are already "
        "its batch (make one pool per lane instead)."
    )


def _check_handle(handle: jax.Array) -> tuple[int, ...]:
    if handle.dtype != jnp.uint8 or handle.ndim < 1 or handle.shape[-1] != HANDLE_BYTES:
        raise ValueError(
            f"envhive xla: a handle is uint8[..., {HANDLE_BYTES}] (from env.xla()), "
            f"got {handle.dtype}{list(handle.shape)}"
        )
    return tuple(handle.shape[:-1])


def _check_shape(name: str, x: jax.Array, want: tuple[int, ...]) -> None:
    if tuple(x.shape) != want:
        raise ValueError(
            f"envhive xla: {name} must have shape {want} (the handle's lanes, batch_size rows, the space), "
            f"got {tuple(x.shape)}"
        )


@functools.cache
def _op(op: str, layout: _Layout, all_envs: bool) -> Any:
    """`op` as a custom_vmap function of (handle, *arrays), for any number of lane dims.

    all_envs: a sync pool's send/step without env_id: the ids are made inside, from the handle's
    lanes, so they are batched exactly like the handle and never an unbatched operand."""
    names = ("handle",) if op == "recv" else ("handle", "actions") if all_envs else ("handle", "actions", "env_id")

    @jax.custom_batching.custom_vmap
    def call(handle: jax.Array, *arrays: jax.Array) -> Any:
        lanes = _check_handle(handle)
        if op != "recv":
            _check_shape("actions", arrays[0], (*lanes, layout.rows, *layout.action_shape))
            if all_envs:
                ids = jnp.broadcast_to(jnp.arange(layout.rows, dtype=jnp.int32), (*lanes, layout.rows))
                arrays = (arrays[0], ids)
            else:
                _check_shape("env_id", arrays[1], (*lanes, layout.rows))
        return _ffi_call(op, layout, lanes, _lowers_to_cuda_twin())(handle, *arrays)

    @call.def_vmap
    def rule(axis_size: int, in_batched: list[bool], handle: jax.Array, *arrays: jax.Array) -> Any:
        if not in_batched[0]:
            raise _batching_error(op, names, in_batched)
        # A batch of pools: an argument that is the same for every lane (constant actions) goes to each.
        arrays = tuple(
            x if b else jnp.broadcast_to(x, (axis_size, *x.shape)) for x, b in zip(arrays, in_batched[1:], strict=True)
        )
        # Binds `call` again: an outer vmap adds another lane dimension (a grid of pools is one call).
        out = call(handle, *arrays)
        return out, jax.tree.map(lambda _: True, out)

    return call


def _actions(layout: _Layout, actions: Any) -> jax.Array:
    a = jnp.asarray(actions)
    if layout.discrete:
        if not jnp.issubdtype(a.dtype, jnp.integer):
            raise TypeError("envhive xla: " + message("action_integers", space="Discrete", dtype=a.dtype))
        return a.astype(jnp.int32)
    if not (jnp.issubdtype(a.dtype, jnp.floating) or jnp.issubdtype(a.dtype, jnp.integer)):
        raise TypeError("envhive xla: " + message("action_reals", dtype=a.dtype))
    return a.astype(jax.dtypes.canonicalize_dtype(np.dtype(layout.action_dtype)))


def _env_ids(env_id: Any) -> jax.Array:
    e = jnp.asarray(env_id)
    if not jnp.issubdtype(e.dtype, jnp.integer):
        raise TypeError("envhive xla: " + message("env_id_integers", what="env_id", got=f", got dtype {e.dtype}"))
    return e.astype(jnp.int32)


def make_xla(env: HiveVectorEnv, convert: Callable[..., Any] | None = None) -> XlaFunctions:
    """EnvPool-style ``(handle, recv, send, step)`` for ``env`` (what ``env.xla()`` returns).
    ``convert(obs, reward, terminated, truncated, info)``: what ``recv`` / ``step`` return as the
    state instead of that tuple (an API's conventions: ``envhive.envpool``'s)."""
    if env.closed:
        raise PoolClosedError("this envhive pool is closed")
    register_targets()
    pool = cast(XlaPool, env.backend)  # a backend with the xla capability (HiveVectorEnv.xla checks)
    module = pool.module
    _register_module(module)
    layout = _Layout.of(env)

    def need_ids() -> None:
        if not layout.sync:
            raise ValueError(
                "envhive xla: an async pool (batch_size < num_envs) steps the envs of the batch it answers: "
                "pass env_id=info['env_id']"
            )

    def send(handle: jax.Array, actions: Any, env_id: Any = None) -> jax.Array:
        a = _actions(layout, actions)
        if env_id is None:
            need_ids()
            return _op("send", layout, True)(handle, a)
        return _op("send", layout, False)(handle, a, _env_ids(env_id))

    def pack(out: Any) -> StepResult:
        handle, state = layout.pack(out)
        return (handle, convert(*state)) if convert is not None else (handle, state)

    def recv(handle: jax.Array) -> StepResult:
        return pack(_op("recv", layout, False)(handle))

    def step(handle: jax.Array, actions: Any, env_id: Any = None) -> StepResult:
        a = _actions(layout, actions)
        if env_id is None:
            need_ids()
            return pack(_op("step", layout, True)(handle, a))
        return pack(_op("step", layout, False)(handle, a, _env_ids(env_id)))

    # The functions keep the env alive (as EnvPool's do); close() still invalidates every handle.
    for f in (send, recv, step):
        f.__dict__["env"] = env
    serial, address, call = pool.abi_ref()
    raw = _xla.handle(module.POOL_ABI, serial, address, call)
    handle = jnp.asarray(np.frombuffer(raw, dtype=np.uint8))
    return XlaFunctions(handle, recv, send, step)


# ---------------------------------------------------------------------------------------------------
# Errors: a JaxRuntimeError from a pool back to envhive's own types.

_ERROR = re.compile(
    r"envhive\[(?P<kind>\w+)(?: env_ids=(?P<ids>[\d,]+))?\]: (?:lane (?P<lane>\d+) )?"
    r"(?:\(pool #(?P<pool>\d+)[^)]*\): )?(?P<message>.*)",
    re.DOTALL,
)
_KINDS: dict[str, type[Exception]] = {
    "ValueError": ValueError,
    "PoolClosedError": PoolClosedError,
    "StaleHandleError": StaleHandleError,
    "PoolBusyError": PoolBusyError,
    "ResetNeeded": ResetNeeded,
    "EnvError": EnvError,
    "RuntimeError": RuntimeError,
}


def translate(error: BaseException) -> BaseException:
    """The envhive exception a pool's ``JaxRuntimeError`` stands for (the error itself if it is not
    a pool's). It carries ``lane`` (None outside vmap) and ``pool_serial``; an ``EnvError`` its
    ``env_id`` and ``env_ids``."""
    if not isinstance(error, jax.errors.JaxRuntimeError):
        return error
    m = _ERROR.search(str(error))
    if m is None:
        return error
    message = m["message"].strip()
    if m["lane"] is not None:
        message = f"lane {m['lane']}: {message}"
    kind = _KINDS.get(m["kind"], RuntimeError)
    new: Exception
    if kind is EnvError:
        ids = [int(i) for i in m["ids"].split(",")] if m["ids"] else [-1]
        new = EnvError(message, ids[0], ids)
    else:
        new = kind(message)
    new.lane = None if m["lane"] is None else int(m["lane"])  # type: ignore[attr-defined]
    new.pool_serial = None if m["pool"] is None else int(m["pool"])  # type: ignore[attr-defined]
    return new


def _forget_failed_program() -> None:
    """JAX keeps, per device, the runtime token of the last program with side effects there and
    re-raises its error at every later effects barrier, at interpreter exit too, until another such
    program on that device replaces it. Once the error has been delivered, replace it on every
    device a pool's program may have run on (the default backend's and the CPU's: a program placed
    on a GPU while the CPU is the default, or the other way round): a program whose only effect is
    an empty debug callback, waited for (public API only)."""
    devices = list(jax.local_devices())
    with contextlib.suppress(RuntimeError):  # (no CPU backend)
        devices += [d for d in jax.local_devices(backend="cpu") if d not in devices]
    for device in devices:
        with jax.default_device(device):
            _effect_barrier_program()()
    jax.effects_barrier()


@functools.cache
def _effect_barrier_program() -> Callable[[], None]:
    @jax.jit
    def program() -> None:
        jax.debug.callback(_nothing)

    return program


def _nothing() -> None:
    pass


@contextlib.contextmanager
def translate_errors() -> Iterator[None]:
    """Re-raises a pool's ``jax.errors.JaxRuntimeError`` inside the block as envhive's own type
    (see :func:`translate`). Errors may surface at a later read (JAX dispatches asynchronously):
    keep the read, or ``jax.block_until_ready``, inside the block."""
    try:
        yield
    except jax.errors.JaxRuntimeError as e:
        new = translate(e)
        if new is e:
            raise
        _forget_failed_program()
        raise new from e


F = TypeVar("F", bound=Callable[..., Any])


def checked(fn: F) -> F:
    """``fn`` (e.g. a jitted rollout) that waits for its result and raises envhive's error types."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with translate_errors():
            return jax.block_until_ready(fn(*args, **kwargs))

    return run  # type: ignore[return-value]
