// The platform-independent core of the XLA FFI handlers: everything on host memory. The CPU
// handlers (ffi_cpu.cc) pass XLA's buffers as they are; the CUDA handlers (ffi_cuda.cc) pass
// pinned host copies. Shapes come from buffer metadata, which XLA keeps on the host for device
// buffers too.
//
// A call covers a batch of `lanes` pools (jax.vmap over a stack of handles): the handle operand
// is [*lanes, kHandleBytes], and every other operand and result has the same leading dims followed
// by one pool's rows. The call validates every lane, sends to every lane, then waits for and
// receives from every lane, so the pools step concurrently. The thread waiting in a pool steps its
// envs (envhive pools count their caller as one of their threads), so the lanes are waited for in
// parallel by the calling thread and LaneRunner's helpers (lane_runner.h): 1-thread pools too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "handle.h"
#include "xla/ffi/api/ffi.h"

namespace envhive::xla {

namespace ffi = ::xla::ffi;

// A host view of one buffer: `elements` values of `dtype` (an EnvhiveDType, or -1 for a type the
// pools never use).
struct HostBuffer {
  void* data = nullptr;
  int32_t dtype = -1;
  size_t elements = 0;
};

// The EnvhiveDType of an XLA element type, or -1.
int32_t envhive_dtype(ffi::DataType t);

struct CallBuffers {
  HostBuffer handle;          // uint8 [*lanes, kHandleBytes]
  uint8_t* handle_out;        // the same size: the handles numbered for the next call
  const HostBuffer* actions;  // send and step: [*lanes, rows, *action]; recv: null
  const HostBuffer* env_ids;  // send and step: int32 [*lanes, rows]; recv: null
  const HostBuffer* outputs;  // recv and step: the pool's outputs, [*lanes, rows, ...] each
  size_t num_outputs;         // 0 for send
};

// Runs one send, recv or step call over every lane. Never throws.
ffi::Error run_call(const CallBuffers& call) noexcept;

}  // namespace envhive::xla
