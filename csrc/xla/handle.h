// The pool handle that travels through XLA programs, and the per-process tables that make it safe.
//
// A handle is a uint8 array of kHandleBytes that JAX treats as data. It is input 0 and (aliased)
// output 0 of every call on a pool, so threading it through a program orders the calls. The pool
// is named by the handle's data, not by an attribute compiled into the program, so one FFI target
// serves every pool of every family module, one compiled program serves any pool of the same
// shapes, and a batch of handles ([..., kHandleBytes]) is stepped by one call.
//
// Nothing in a handle is trusted: the process tag must be this process's (a handle from another
// process, or one that outlived a fork, fails), the interface table must be one a family module
// registered here (register_abi), and the module itself checks that the serial is a live pool at
// that address before it uses the address (EnvhivePoolAbi::acquire). The call number makes a
// handle single-use: every call returns it with call + 1 and the pool accepts only the number it
// expects next, which catches a reused handle and a call that jax.vmap ran for a lane whose result
// it then discarded (vmap of lax.cond / lax.while_loop with a per-lane predicate).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../bindings/pool_abi.h"

namespace envhive::xla {

struct HandleData {
  uint64_t process_tag;  // this process's (process_tag()); never 0
  uint64_t abi;          // the module's EnvhivePoolAbi table
  uint64_t serial;       // the module's number for the pool (never reused)
  uint64_t pool;         // the pool's address, checked by the module against the serial
  uint64_t call;         // the number of the call this handle is for
};
inline constexpr size_t kHandleBytes = sizeof(HandleData);
static_assert(kHandleBytes == 40);

// Random per process, and new in a forked child.
uint64_t process_tag();

// Records a module's interface table; false (with *why set) for a table of another version.
bool register_abi(const EnvhivePoolAbi* abi, const char** why);
// The registered table at this address, or nullptr.
const EnvhivePoolAbi* find_abi(uint64_t address);

}  // namespace envhive::xla
