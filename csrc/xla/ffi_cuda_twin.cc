// The CUDA handlers' host twin: the same staged call (staged_call.cc) as ffi_cuda.cc, on the CPU
// platform, with a copy engine that behaves like an asynchronous CUDA stream at its least
// forgiving, so the staging logic is tested where no GPU is (tests/test_xla.py; envhive.xla lowers
// to these targets on the CPU device under its private ENVHIVE_XLA_CUDA_TWIN=1 switch):
//
// * a copy only lands when the stream is synchronised (device -> host as host -> device), and it
//   reads its source then, as an async copy from pinned memory does: a host read before the sync,
//   or a staging buffer refilled before its copy was waited for, gives the wrong bytes;
// * staging buffers hold a garbage pattern when allocated and after every call: a value that no
//   copy of this call wrote (a skipped input copy, a handle read from the previous call) is garbage,
//   which the core rejects ("not a pool handle of this process"), never a plausible stale value;
// * a call that returns with a copy not waited for is an error.
//
//   envhive_send_cuda_twin, envhive_recv_cuda_twin, envhive_step_cuda_twin: envhive_send / recv /
//   step's operands and results (ffi_cpu.cc).
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "ffi_targets.h"
#include "staged_call.h"

namespace envhive::xla {
namespace {

constexpr uint8_t kPoison = 0xA5;

// An in-order queue of copies, run at sync.
struct TwinStream {
  struct Copy {
    void* dst;
    const void* src;
    size_t bytes;
  };
  std::vector<Copy> pending;

  static TwinStream& for_this_thread() {
    thread_local TwinStream stream;
    return stream;
  }
};

int enqueue(void* dst, const void* src, size_t bytes, void* stream) {
  static_cast<TwinStream*>(stream)->pending.push_back({dst, src, bytes});
  return 0;
}

const DeviceCopies kTwin{
    "CUDA twin",
    [](void* host, const void* device, size_t bytes, void* stream) { return enqueue(host, device, bytes, stream); },
    [](void* device, const void* host, size_t bytes, void* stream) { return enqueue(device, host, bytes, stream); },
    [](void* stream) {
      auto& s = *static_cast<TwinStream*>(stream);
      for (const TwinStream::Copy& c : s.pending) std::memcpy(c.dst, c.src, c.bytes);
      s.pending.clear();
      return 0;
    },
    [](void** host, size_t bytes) {
      *host = ::operator new(bytes, std::nothrow);
      if (*host == nullptr) return 2;  // (CUDA_ERROR_OUT_OF_MEMORY)
      std::memset(*host, kPoison, bytes);
      return 0;
    },
    [](void* host) { ::operator delete(host); },
    "dtoh",
    "htod",
    "sync",
    "host_alloc",
};

ffi::Error twin_call(const ffi::AnyBuffer& handle, const ffi::RemainingArgs* args, const ffi::AnyBuffer& handle_out,
                     const ffi::RemainingRets* rets) {
  TwinStream& stream = TwinStream::for_this_thread();
  ffi::Error result = staged_call(kTwin, &stream, handle, args, handle_out, rets);
  fill_staging(kTwin, kPoison);
  if (!stream.pending.empty()) {
    const size_t n = stream.pending.size();
    stream.pending.clear();
    return ffi::Error::Internal("envhive[RuntimeError]: CUDA twin: the call returned with " + std::to_string(n) +
                                " copies not waited for" + (result.failure() ? " (after an error)" : ""));
  }
  return result;
}

ffi::Error send_twin(ffi::AnyBuffer handle, ffi::RemainingArgs args, ffi::Result<ffi::AnyBuffer> handle_out) {
  return twin_call(handle, &args, *handle_out, nullptr);
}

ffi::Error recv_twin(ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets rets) {
  return twin_call(handle, nullptr, *handle_out, &rets);
}

ffi::Error step_twin(ffi::AnyBuffer handle, ffi::RemainingArgs args, ffi::Result<ffi::AnyBuffer> handle_out,
                     ffi::RemainingRets rets) {
  return twin_call(handle, &args, *handle_out, &rets);
}

}  // namespace
}  // namespace envhive::xla

using envhive::xla::ffi::AnyBuffer;
using envhive::xla::ffi::Ffi;

XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvhiveSendCudaTwin, envhive::xla::send_twin,
                              Ffi::Bind().Arg<AnyBuffer>().RemainingArgs().Ret<AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvhiveRecvCudaTwin, envhive::xla::recv_twin,
                              Ffi::Bind().Arg<AnyBuffer>().Ret<AnyBuffer>().RemainingRets());
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvhiveStepCudaTwin, envhive::xla::step_twin,
                              Ffi::Bind().Arg<AnyBuffer>().RemainingArgs().Ret<AnyBuffer>().RemainingRets());
