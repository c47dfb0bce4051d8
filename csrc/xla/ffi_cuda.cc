// The XLA FFI handlers on the CUDA platform: the pools step on the host, so each call copies its
// inputs (handles, actions, env ids) device -> pinned host on XLA's stream, runs the same host core
// as on CPU (calls.cc), and copies the results and the next handles back host -> device on that
// stream: one copy each way per buffer, ordered with the program's own work. The per-call logic
// is staged_call.cc's, written once against a copy interface that this file implements with the
// CUDA driver and ffi_cuda_twin.cc on the host (tests/test_xla.py runs the twin on CPU-only
// machines; test_gpu_rollout_matches_the_cpu runs this file where JAX has a CUDA device).
//
// The CUDA driver API is loaded with dlopen("libcuda.so.1") at the first call, so the module needs
// no CUDA toolkit to build, links nothing CUDA, and imports on machines without a driver; the few
// declarations below are the driver's stable C ABI (cuda.h), and XLA's cudaStream_t is a
// CUstream. Linking cudart instead would risk a clash with the one jax[cuda] loads. The handlers
// must not carry ffi::Traits::kCmdBufferCompatible: they synchronise the stream and run host
// code, so XLA must not capture them into a CUDA graph (no trait is the default).
#include <dlfcn.h>

#include <string>

#include "ffi_targets.h"
#include "staged_call.h"

struct CUstream_st;

namespace envhive::xla {
namespace {

using CUstream = CUstream_st*;
using CUdeviceptr = unsigned long long;
using CUresult = int;                        // 0 == CUDA_SUCCESS
constexpr unsigned kHostAllocPortable = 1;  // CU_MEMHOSTALLOC_PORTABLE

struct Driver {
  CUresult (*memcpy_dtoh)(void*, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*memcpy_htod)(CUdeviceptr, const void*, size_t, CUstream) = nullptr;
  CUresult (*sync)(CUstream) = nullptr;
  CUresult (*host_alloc)(void**, size_t, unsigned) = nullptr;
  CUresult (*free_host)(void*) = nullptr;

  // The process's driver, or nullptr when libcuda.so.1 cannot be loaded.
  static const Driver* get() {
    static const Driver* driver = []() -> const Driver* {
      void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!lib) return nullptr;
      static Driver d;
      d.memcpy_dtoh = reinterpret_cast<decltype(d.memcpy_dtoh)>(dlsym(lib, "cuMemcpyDtoHAsync_v2"));
      d.memcpy_htod = reinterpret_cast<decltype(d.memcpy_htod)>(dlsym(lib, "cuMemcpyHtoDAsync_v2"));
      d.sync = reinterpret_cast<decltype(d.sync)>(dlsym(lib, "cuStreamSynchronize"));
      d.host_alloc = reinterpret_cast<decltype(d.host_alloc)>(dlsym(lib, "cuMemHostAlloc"));
      d.free_host = reinterpret_cast<decltype(d.free_host)>(dlsym(lib, "cuMemFreeHost"));
      if (!d.memcpy_dtoh || !d.memcpy_htod || !d.sync || !d.host_alloc || !d.free_host) return nullptr;
      return &d;
    }();
    return driver;
  }
};

CUdeviceptr dev(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

// The copy interface on the driver (only used once Driver::get() has succeeded).
const DeviceCopies kCuda{
    "CUDA",
    [](void* host, const void* device, size_t bytes, void* stream) {
      return Driver::get()->memcpy_dtoh(host, dev(device), bytes, static_cast<CUstream>(stream));
    },
    [](void* device, const void* host, size_t bytes, void* stream) {
      return Driver::get()->memcpy_htod(dev(device), host, bytes, static_cast<CUstream>(stream));
    },
    [](void* stream) { return Driver::get()->sync(static_cast<CUstream>(stream)); },
    [](void** host, size_t bytes) { return Driver::get()->host_alloc(host, bytes, kHostAllocPortable); },
    [](void* host) { (void)Driver::get()->free_host(host); },
    "cuMemcpyDtoHAsync",
    "cuMemcpyHtoDAsync",
    "cuStreamSynchronize",
    "cuMemHostAlloc",
};

ffi::Error cuda_call(CUstream stream, const ffi::AnyBuffer& handle, const ffi::RemainingArgs* args,
                     const ffi::AnyBuffer& handle_out, const ffi::RemainingRets* rets) {
  if (!Driver::get())
    return ffi::Error::Internal("envhive[RuntimeError]: the CUDA driver (libcuda.so.1) cannot be loaded");
  return staged_call(kCuda, stream, handle, args, handle_out, rets);
}

ffi::Error send_cuda(CUstream stream, ffi::AnyBuffer handle, ffi::RemainingArgs args,
                     ffi::Result<ffi::AnyBuffer> handle_out) {
  return cuda_call(stream, handle, &args, *handle_out, nullptr);
}

ffi::Error recv_cuda(CUstream stream, ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> handle_out,
                     ffi::RemainingRets rets) {
  return cuda_call(stream, handle, nullptr, *handle_out, &rets);
}

ffi::Error step_cuda(CUstream stream, ffi::AnyBuffer handle, ffi::RemainingArgs args,
                     ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets rets) {
  return cuda_call(stream, handle, &args, *handle_out, &rets);
}

}  // namespace

bool cuda_driver_available() { return Driver::get() != nullptr; }

}  // namespace envhive::xla

using envhive::xla::CUstream;
using envhive::xla::ffi::AnyBuffer;
using envhive::xla::ffi::Ffi;
using envhive::xla::ffi::PlatformStream;

XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvhiveSendCuda, envhive::xla::send_cuda,
                              Ffi::Bind().Ctx<PlatformStream<CUstream>>().Arg<AnyBuffer>().RemainingArgs().Ret<AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvhiveRecvCuda, envhive::xla::recv_cuda,
                              Ffi::Bind().Ctx<PlatformStream<CUstream>>().Arg<AnyBuffer>().Ret<AnyBuffer>().RemainingRets());
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvhiveStepCuda, envhive::xla::step_cuda,
                              Ffi::Bind()
                                  .Ctx<PlatformStream<CUstream>>()
                                  .Arg<AnyBuffer>()
                                  .RemainingArgs()
                                  .Ret<AnyBuffer>()
                                  .RemainingRets());
