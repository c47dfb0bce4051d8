// The handler symbols of envhive._xla (ffi_cpu.cc, ffi_cuda.cc, ffi_cuda_twin.cc); module.cc hands them to
// jax.ffi.register_ffi_target as capsules.
#pragma once

#include "xla/ffi/api/c_api.h"

extern "C" {
XLA_FFI_Error* EnvhiveSendCpu(XLA_FFI_CallFrame* call_frame);
XLA_FFI_Error* EnvhiveRecvCpu(XLA_FFI_CallFrame* call_frame);
XLA_FFI_Error* EnvhiveStepCpu(XLA_FFI_CallFrame* call_frame);
XLA_FFI_Error* EnvhiveSendCuda(XLA_FFI_CallFrame* call_frame);
XLA_FFI_Error* EnvhiveRecvCuda(XLA_FFI_CallFrame* call_frame);
XLA_FFI_Error* EnvhiveStepCuda(XLA_FFI_CallFrame* call_frame);
// The CUDA handlers' host twin (CPU platform; for tests).
XLA_FFI_Error* EnvhiveSendCudaTwin(XLA_FFI_CallFrame* call_frame);
XLA_FFI_Error* EnvhiveRecvCudaTwin(XLA_FFI_CallFrame* call_frame);
XLA_FFI_Error* EnvhiveStepCudaTwin(XLA_FFI_CallFrame* call_frame);
}

namespace envhive::xla {
// Whether libcuda.so.1 (the CUDA driver) loads in this process; the CUDA handlers need it.
bool cuda_driver_available();
}  // namespace envhive::xla
