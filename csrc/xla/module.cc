// envhive._xla: the XLA FFI targets that step envhive pools inside compiled JAX programs, for
// every family module. Built only where jaxlib's FFI headers are found at build time; it links
// nothing of jaxlib (the headers are the versioned XLA FFI C ABI).
//
// A family module hands in its pool interface (its POOL_ABI capsule, pool_abi.h) once; a pool's
// handle is made here from the module's (serial, address, next call) for it (envhive/xla.py).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstring>

#include "calls.h"
#include "ffi_targets.h"
#include "handle.h"

namespace nb = nanobind;
using namespace envhive::xla;

namespace {

nb::capsule handler(XLA_FFI_Error* (*fn)(XLA_FFI_CallFrame*)) {
  // jax.ffi.register_ffi_target takes an unnamed capsule holding the XLA_FFI_Handler*.
  return nb::capsule(reinterpret_cast<void*>(fn));
}

const EnvhivePoolAbi* abi_of(nb::handle capsule) {
  const void* p = PyCapsule_GetPointer(capsule.ptr(), ENVHIVE_POOL_ABI_CAPSULE);
  if (!p) throw nb::python_error();
  return static_cast<const EnvhivePoolAbi*>(p);
}

}  // namespace

NB_MODULE(_xla, m) {
  m.doc() = "envhive's XLA FFI targets (see envhive.xla).";
  m.attr("ENVHIVE_VERSION") = ENVHIVE_VERSION_STRING;
  m.attr("POOL_ABI_VERSION") = ENVHIVE_POOL_ABI_VERSION;
  m.attr("HANDLE_BYTES") = kHandleBytes;
  m.attr("FFI_API_VERSION") = nb::make_tuple(XLA_FFI_API_MAJOR, XLA_FFI_API_MINOR);

  m.def(
      "register_module",
      [](nb::handle capsule) {
        const char* why = nullptr;
        const EnvhivePoolAbi* abi = abi_of(capsule);
        if (!register_abi(abi, &why))
          throw nb::value_error((std::string("envhive.") + (abi->abi_version == ENVHIVE_POOL_ABI_VERSION ? abi->module : "?") +
                                 ": " + why)
                                    .c_str());
      },
      nb::arg("pool_abi"), "Accept a family module's pool interface (its POOL_ABI capsule); idempotent.");

  m.def(
      "handle",
      [](nb::handle capsule, uint64_t serial, uint64_t address, uint64_t call) {
        const EnvhivePoolAbi* abi = abi_of(capsule);
        if (find_abi(reinterpret_cast<uintptr_t>(abi)) == nullptr)
          throw nb::value_error("register_module() this module's POOL_ABI first");
        const HandleData h{process_tag(), reinterpret_cast<uintptr_t>(abi), serial, address, call};
        return nb::bytes(reinterpret_cast<const char*>(&h), kHandleBytes);
      },
      nb::arg("pool_abi"), nb::arg("serial"), nb::arg("address"), nb::arg("call"),
      "The handle bytes of a pool (NativePool.abi_ref() gives serial, address and call).");

  m.def("cpu_targets", [] {
    nb::dict d;
    d["envhive_send"] = handler(EnvhiveSendCpu);
    d["envhive_recv"] = handler(EnvhiveRecvCpu);
    d["envhive_step"] = handler(EnvhiveStepCpu);
    return d;
  });
  m.def("cuda_targets", [] {
    nb::dict d;
    d["envhive_send"] = handler(EnvhiveSendCuda);
    d["envhive_recv"] = handler(EnvhiveRecvCuda);
    d["envhive_step"] = handler(EnvhiveStepCuda);
    return d;
  });
  m.def("cuda_twin_targets", [] {  // CPU targets running the CUDA handlers' staging on the host
    nb::dict d;
    d["envhive_send_cuda_twin"] = handler(EnvhiveSendCudaTwin);
    d["envhive_recv_cuda_twin"] = handler(EnvhiveRecvCudaTwin);
    d["envhive_step_cuda_twin"] = handler(EnvhiveStepCudaTwin);
    return d;
  });
  m.def("cuda_driver_available", &cuda_driver_available,
        "Whether libcuda.so.1 loads here (the CUDA targets need it; they are registered regardless).");
}
