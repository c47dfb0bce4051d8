// The XLA FFI handlers on the CUDA platform: the pools step on the host, so each call copies its
// inputs (handles, actions, env ids) device -> pinned host on XLA's stream, runs the same host core
// as on CPU (calls.cc), and copies the results and the next handles back host -> device on that
// stream: one copy each way per buffer, ordered with the program's own work.
//
// NOT RUN: no GPU was available where this was written; it compiles everywhere (the driver is
// loaded at run time) and its registration is tested on CPU-only machines (tests/test_xla.py).
//
// The CUDA driver API is loaded with dlopen("libcuda.so.1") at the first call, so the module needs
// no CUDA toolkit to build, links nothing CUDA, and imports on machines without a driver; the few
// declarations below are the driver's stable C ABI (cuda.h), and XLA's cudaStream_t is a
// CUstream. Linking cudart instead would risk a clash with the one jax[cuda] loads. The handlers
// must not carry ffi::Traits::kCmdBufferCompatible: they synchronise the stream and run host
// code, so XLA must not capture them into a CUDA graph (no trait is the default).
#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

#include "calls.h"
#include "ffi_targets.h"

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

ffi::Error cuda_error(const char* what, CUresult r) {
  return ffi::Error::Internal(std::string("envhive[RuntimeError]: ") + what + " failed (CUresult " +
                              std::to_string(r) + ")");
}

// Pinned host staging, one set per XLA host thread: a call synchronises its stream before it
// returns, so its buffers are free again for the next call on that thread.
class Staging {
 public:
  static Staging& for_this_thread() {
    thread_local Staging staging;
    return staging;
  }
  ~Staging() {
    if (const Driver* cu = Driver::get())
      for (auto& b : bufs_)
        if (b.data) cu->free_host(b.data);
  }
  // A pinned buffer of at least `bytes` for slot `i`, or nullptr.
  void* get(size_t i, size_t bytes, const Driver& cu) {
    if (bufs_.size() <= i) bufs_.resize(i + 1);
    Buf& b = bufs_[i];
    if (b.size < bytes || b.data == nullptr) {
      if (b.data) cu.free_host(b.data);
      b = {};
      if (cu.host_alloc(&b.data, bytes == 0 ? 1 : bytes, kHostAllocPortable) != 0) return nullptr;
      b.size = bytes;
    }
    return b.data;
  }

 private:
  struct Buf {
    void* data = nullptr;
    size_t size = 0;
  };
  std::vector<Buf> bufs_;
};

CUdeviceptr dev(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

size_t bytes_of(const ffi::AnyBuffer& b) { return b.size_bytes(); }

// One call: inputs (handle, then actions and env ids for send/step) device -> host, the host
// core, then the next handles and the outputs host -> device.
ffi::Error cuda_call(CUstream stream, ffi::AnyBuffer handle, const ffi::RemainingArgs* args,
                     ffi::Result<ffi::AnyBuffer>& handle_out, const ffi::RemainingRets* rets) {
  const Driver* cu = Driver::get();
  if (!cu) return ffi::Error::Internal("envhive[RuntimeError]: the CUDA driver (libcuda.so.1) cannot be loaded");
  Staging& st = Staging::for_this_thread();
  std::vector<ffi::AnyBuffer> in{handle};
  if (args) {
    if (args->size() != 2) return ffi::Error::InvalidArgument("envhive[ValueError]: send takes (handle, actions, env_id)");
    for (size_t k = 0; k < 2; ++k) {
      auto a = args->get<ffi::AnyBuffer>(k);
      if (a.has_error()) return a.error();
      in.push_back(*a);
    }
  }
  std::vector<ffi::AnyBuffer> out{*handle_out};
  if (rets)
    for (size_t k = 0; k < rets->size(); ++k) {
      auto r = rets->get<ffi::AnyBuffer>(k);
      if (r.has_error()) return r.error();
      out.push_back(**r);
    }
  // 1. Inputs device -> pinned host, then wait: the pools need the values now.
  std::vector<HostBuffer> host_in;
  for (size_t i = 0; i < in.size(); ++i) {
    void* h = st.get(i, bytes_of(in[i]), *cu);
    if (!h) return ffi::Error::Internal("envhive[RuntimeError]: cuMemHostAlloc failed");
    if (CUresult r = cu->memcpy_dtoh(h, dev(in[i].untyped_data()), bytes_of(in[i]), stream))
      return cuda_error("cuMemcpyDtoHAsync", r);
    host_in.push_back({h, envhive_dtype(in[i].element_type()), in[i].element_count()});
  }
  if (CUresult r = cu->sync(stream)) return cuda_error("cuStreamSynchronize", r);
  std::vector<HostBuffer> host_out;
  for (size_t i = 0; i < out.size(); ++i) {
    void* h = st.get(in.size() + i, bytes_of(out[i]), *cu);
    if (!h) return ffi::Error::Internal("envhive[RuntimeError]: cuMemHostAlloc failed");
    host_out.push_back({h, envhive_dtype(out[i].element_type()), out[i].element_count()});
  }
  // 2. The host core, exactly as on CPU.
  const CallBuffers call{host_in[0],
                         static_cast<uint8_t*>(host_out[0].data),
                         args ? &host_in[1] : nullptr,
                         args ? &host_in[2] : nullptr,
                         host_out.size() > 1 ? &host_out[1] : nullptr,
                         host_out.size() - 1};
  if (auto err = run_call(call); err.failure()) return err;
  // 3. Results host -> device, then wait, which frees the staging for the next call.
  for (size_t i = 0; i < out.size(); ++i)
    if (CUresult r = cu->memcpy_htod(dev(out[i].untyped_data()), host_out[i].data, bytes_of(out[i]), stream))
      return cuda_error("cuMemcpyHtoDAsync", r);
  if (CUresult r = cu->sync(stream)) return cuda_error("cuStreamSynchronize", r);
  return ffi::Error::Success();
}

ffi::Error send_cuda(CUstream stream, ffi::AnyBuffer handle, ffi::RemainingArgs args,
                     ffi::Result<ffi::AnyBuffer> handle_out) {
  return cuda_call(stream, handle, &args, handle_out, nullptr);
}

ffi::Error recv_cuda(CUstream stream, ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> handle_out,
                     ffi::RemainingRets rets) {
  return cuda_call(stream, handle, nullptr, handle_out, &rets);
}

ffi::Error step_cuda(CUstream stream, ffi::AnyBuffer handle, ffi::RemainingArgs args,
                     ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets rets) {
  return cuda_call(stream, handle, &args, handle_out, &rets);
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
