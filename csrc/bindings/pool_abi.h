/* The pool's C interface: how code outside a family module (envhive._xla, the XLA FFI handlers)
 * steps that module's pools without Python and without sharing any C++ type with it.
 *
 * Every family module (built-in or out of tree) is a complete engine with its own nanobind domain
 * and its own statically linked core, so no C++ object may cross between modules. What crosses is
 * this table of plain C functions: the module exposes one (a capsule named
 * ENVHIVE_POOL_ABI_CAPSULE, its attribute POOL_ABI), and a pool is named by the module's serial
 * number for it plus its address, both checked by the module before the address is used
 * (`acquire`). Outputs go into caller-provided buffers; errors come back as an EnvhiveStatus
 * (code, message, env ids), never as an exception.
 *
 * Versioning: `abi_version` changes whenever a function's meaning or signature changes; a caller
 * refuses a table of another version. `struct_size` lets later versions append functions: a caller
 * uses an appended one only when the table is long enough to hold it (ENVHIVE_POOL_ABI_HAS), so a
 * module built before it still works without it. Appended so far: set_assisted, assist and
 * write_obs_into.
 *
 * A call on a pool (the XLA handlers' order):
 *   acquire            reserve the pool for this call (one call at a time, Python's included)
 *   check_send, send   validate every lane first, then dispatch (so a bad action touches no pool)
 *   write_obs_into     (optional, sync pools) before send: the batch's observations go straight
 *                      into the caller's obs buffer, which recv then leaves alone
 *   wait, recv         wait for the next batch (the calling thread steps envs meanwhile), then
 *                      copy it into the caller's buffers
 *   set_assisted,      (optional, sync pools) before wait, say whether other threads may help
 *   assist             with the call; while the call's wait runs on one thread, others may step
 *                      envs of it with assist (a vmapped call's lanes help each other)
 *   release            end the call (always, after a successful acquire)
 * None of them needs the GIL, and none may be called with it held by a thread the pool waits on.
 */
#ifndef ENVHIVE_POOL_ABI_H_
#define ENVHIVE_POOL_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENVHIVE_POOL_ABI_VERSION 1
#define ENVHIVE_POOL_ABI_CAPSULE "envhive.pool_abi"
#define ENVHIVE_STATUS_MESSAGE_BYTES 1024
#define ENVHIVE_STATUS_MAX_ENV_IDS 64

/* Element types, numbered as envhive::DType (csrc/core/spec.h). */
enum EnvhiveDType {
  ENVHIVE_BOOL = 0,
  ENVHIVE_UINT8 = 1,
  ENVHIVE_INT32 = 2,
  ENVHIVE_INT64 = 3,
  ENVHIVE_FLOAT32 = 4,
  ENVHIVE_FLOAT64 = 5,
  ENVHIVE_INT8 = 6
};

/* What went wrong; the Python side maps each to envhive's exception type. */
enum EnvhiveStatusCode {
  ENVHIVE_OK = 0,
  ENVHIVE_INVALID_ARGUMENT = 1, /* ValueError: a bad action, env id, shape or dtype */
  ENVHIVE_CLOSED = 2,           /* PoolClosedError: closed, deleted, or closed while waiting */
  ENVHIVE_STALE = 3,            /* a handle that is not the one the previous call returned */
  ENVHIVE_BUSY = 4,             /* PoolBusyError: another call (Python's or XLA's) is inside */
  ENVHIVE_RESET_NEEDED = 5,     /* ResetNeeded: an env stepped before it was ever reset */
  ENVHIVE_ENV_ERROR = 6,        /* EnvError: an env raised; env_ids lists them */
  ENVHIVE_INTERNAL = 7          /* anything else (a bug) */
};

/* A caller's buffer: `elements` values of `dtype` (an EnvhiveDType) at `data`, C order. */
typedef struct EnvhiveBuffer {
  void* data;
  int32_t dtype;
  int64_t elements;
} EnvhiveBuffer;

typedef struct EnvhiveStatus {
  int32_t code; /* an EnvhiveStatusCode */
  int32_t num_env_ids;
  int32_t env_ids[ENVHIVE_STATUS_MAX_ENV_IDS]; /* ENVHIVE_ENV_ERROR: the envs that failed (the first ones) */
  char message[ENVHIVE_STATUS_MESSAGE_BYTES];  /* NUL-terminated */
} EnvhiveStatus;

/* One pool's shape as the caller sees it (filled by `describe`). */
typedef struct EnvhivePoolShape {
  int64_t num_envs;
  int64_t batch_size;
  int32_t sync;            /* batch_size == num_envs */
  int32_t num_outputs;     /* buffers `recv` fills, see below */
  int64_t action_elements; /* per env */
  int32_t action_dtype;    /* the pool's own (int64 for Discrete) */
} EnvhivePoolShape;

typedef struct EnvhivePoolAbi {
  uint32_t abi_version; /* ENVHIVE_POOL_ABI_VERSION */
  uint32_t struct_size; /* sizeof(EnvhivePoolAbi) of the module */
  const char* module;   /* the module's name, e.g. "_native" (for messages) */

  /* Reserves pool `serial` at `pool` for one call numbered `call` (the handle's). Fails with
   * ENVHIVE_CLOSED when no live pool of this module has that serial at that address (closed,
   * deleted, never made), ENVHIVE_BUSY when a call is inside, ENVHIVE_STALE when `call` is not the
   * number the pool expects next (after a failed call the pool accepts any number once). */
  int32_t (*acquire)(uint64_t serial, void* pool, uint64_t call, EnvhiveStatus* status);
  /* Ends the call acquire began. `reached_pool`: send or recv was attempted (the pool may have
   * changed); `ok`: the whole call succeeded, so the pool expects `call + 1` next. */
  void (*release)(void* pool, uint64_t call, int32_t reached_pool, int32_t ok);

  void (*describe)(void* pool, EnvhivePoolShape* shape);
  /* The number of the pool's next call (what a fresh handle carries). */
  uint64_t (*next_call)(void* pool);

  /* Validates a send of `n` rows: `actions` holds n rows of the action (integer dtypes for a
   * Discrete space, real ones for a Box; narrower or wider than the pool's are converted), ids are
   * the envs they go to. Changes nothing. */
  int32_t (*check_send)(void* pool, const EnvhiveBuffer* actions, const int32_t* env_ids, int64_t n,
                        EnvhiveStatus* status);
  /* Dispatches what check_send accepted (the same arguments). */
  int32_t (*send)(void* pool, const EnvhiveBuffer* actions, const int32_t* env_ids, int64_t n, EnvhiveStatus* status);

  /* Waits until the next batch is ready; the calling thread steps queued envs meanwhile. */
  int32_t (*wait)(void* pool, EnvhiveStatus* status);
  /* Takes the ready batch into `outputs` (shape.num_outputs buffers, batch_size rows each):
   * obs, reward, terminated, truncated, env_id, elapsed_step, then one per info field, then in
   * SAME_STEP mode final_mask, final_obs, final_elapsed_step and one per info field. A buffer may
   * be of the output's dtype or of its 32-bit form (float64 -> float32, int64 -> int32). */
  int32_t (*recv)(void* pool, const EnvhiveBuffer* outputs, int64_t num_outputs, EnvhiveStatus* status);

  /* --- appended after version 1's first tables (check ENVHIVE_POOL_ABI_HAS before use) --- */
  /* Inside a call, before wait: `on` lets other threads step envs of this call with `assist` (the
   * thread in `wait` then leaves some for them); off, it takes them all. Async pools ignore it. */
  void (*set_assisted)(void* pool, int32_t on);
  /* Inside a call (after acquire, before release), on any thread but the one in `wait`, any
   * number of threads at once: steps envs of the pool's batch in flight that nobody took yet,
   * until none is left. Returns 1 if it stepped any, else 0 at once (nothing left: the batch is
   * complete or was never sent; an async pool; set_assisted not on). Never fails. */
  int32_t (*assist)(void* pool);
  /* Inside a call, before send: the pool's threads write the batch's observations straight into
   * `obs` (batch_size rows of the observation in the pool's own dtype, the buffer recv would get
   * as its first output), and recv leaves that buffer as it is instead of copying into it.
   * Returns 1 if the pool took the buffer, else 0 (an async pool, another dtype or size, data not
   * 16-byte aligned): recv then copies as usual. Either way nothing else changes. The pool
   * forgets the buffer when recv takes the batch; otherwise (a wait a close ended, a send that
   * failed in another lane) release first sees to it that no pool thread still writes into it.
   * Never fails. */
  int32_t (*write_obs_into)(void* pool, const EnvhiveBuffer* obs);
} EnvhivePoolAbi;

/* Whether a module's table holds function `field` (appended ones may be missing). */
#define ENVHIVE_POOL_ABI_HAS(abi, field) \
  ((abi)->struct_size >= offsetof(EnvhivePoolAbi, field) + sizeof(((EnvhivePoolAbi*)0)->field))
/* The shortest table a caller accepts: version 1 as first published (up to recv). */
#define ENVHIVE_POOL_ABI_MIN_SIZE (offsetof(EnvhivePoolAbi, recv) + sizeof(((EnvhivePoolAbi*)0)->recv))

#ifdef __cplusplus
}
#endif

#endif /* ENVHIVE_POOL_ABI_H_ */
