// One XLA call whose buffers live on a device the pools cannot read: the inputs are staged device
// -> host, the host core runs (calls.cc), and the results are staged host -> device, through a
// small copy interface. The CUDA handlers (ffi_cuda.cc) implement it with the CUDA driver; the
// CUDA twin (ffi_cuda_twin.cc) implements it on the host, with copies that land only when the
// stream is synchronised and staging that is poisoned between calls, so the staging logic (the
// copies, their order, the sync points, the error paths) is tested on machines without a GPU
// (tests/test_xla.py) exactly as the GPU runs it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "calls.h"

namespace envhive::xla {

// The copies a staged call needs, on an opaque stream. Each returns 0 on success, else the
// engine's status code (a CUresult for CUDA), which the error message quotes.
struct DeviceCopies {
  const char* name;  // in error messages: "CUDA", "CUDA twin"
  // Enqueues a copy on `stream`; it may complete at any time until the next sync of `stream`.
  int (*dtoh)(void* host, const void* device, size_t bytes, void* stream);
  int (*htod)(void* device, const void* host, size_t bytes, void* stream);
  // Waits for every copy enqueued on `stream`.
  int (*sync)(void* stream);
  // Staging memory (pinned for CUDA), reused across the calls of one thread.
  int (*host_alloc)(void** host, size_t bytes);
  void (*free_host)(void* host);
  // The engine's names of the operations above, for error messages.
  const char* dtoh_name;
  const char* htod_name;
  const char* sync_name;
  const char* host_alloc_name;
};

// One send (args: actions, env_id; rets null), recv (args null; rets: the outputs) or step (both)
// on buffers of `copies`' device: inputs device -> host, wait, the host core, outputs (the next
// handles first) host -> device, wait. Every path out of it, the error paths included, leaves no
// copy in flight on `stream` (the staging is free for the next call on this thread).
ffi::Error staged_call(const DeviceCopies& copies, void* stream, const ffi::AnyBuffer& handle,
                       const ffi::RemainingArgs* args, const ffi::AnyBuffer& handle_out,
                       const ffi::RemainingRets* rets);

// Fills this thread's staging buffers of `copies` with `byte` (the twin poisons them between calls,
// so a value read from staging that no copy of this call wrote is garbage, never a stale value).
void fill_staging(const DeviceCopies& copies, uint8_t byte);

// ENVHIVE_XLA_TRACE=1 (read once): staged calls print one line each to stderr: the engine, the
// thread, the stream, the handle's device addresses in and out, and the call numbers read and
// written (lane 0), for diagnosing a device run.
bool staging_trace_enabled();

}  // namespace envhive::xla
