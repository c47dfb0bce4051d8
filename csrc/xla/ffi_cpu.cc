// The XLA FFI handlers on the CPU platform: thin adapters that hand XLA's (host) buffers to the
// core (calls.cc). One target per operation serves every pool of every family module; the pool
// comes from the handle's data.
//
//   envhive_send(handle u8[*L,40], actions [*L,B,...], env_id s32[*L,B]) -> handle
//   envhive_recv(handle) -> handle, obs, reward, terminated, truncated, env_id, elapsed_step, infos...
//   envhive_step(handle, actions, env_id) -> as recv (send, then recv, in one call)
//
// The outputs are the pool's (EnvhivePoolAbi::recv), of any count and dtype; the handle is
// aliased (input 0 is output 0). Errors are ffi::Error values, which JAX raises from the jitted
// call as jax.errors.JaxRuntimeError; no C++ exception crosses XLA's C interface.
#include <vector>

#include "calls.h"
#include "ffi_targets.h"

namespace envhive::xla {
namespace {

HostBuffer host(const ffi::AnyBuffer& b) {
  return {b.untyped_data(), envhive_dtype(b.element_type()), b.element_count()};
}

template <class Rets>
ffi::Error collect_outputs(const Rets& rets, std::vector<HostBuffer>& out) {
  out.reserve(rets.size());
  for (size_t k = 0; k < rets.size(); ++k) {
    auto r = rets.template get<ffi::AnyBuffer>(k);
    if (r.has_error()) return r.error();
    out.push_back(host(**r));
  }
  return ffi::Error::Success();
}

ffi::Error send_impl(ffi::AnyBuffer handle, ffi::RemainingArgs args, ffi::Result<ffi::AnyBuffer> handle_out) {
  if (args.size() != 2) return ffi::Error::InvalidArgument("envhive[ValueError]: send takes (handle, actions, env_id)");
  auto actions = args.get<ffi::AnyBuffer>(0);
  auto ids = args.get<ffi::AnyBuffer>(1);
  if (actions.has_error()) return actions.error();
  if (ids.has_error()) return ids.error();
  const HostBuffer a = host(*actions), e = host(*ids);
  return run_call({host(handle), static_cast<uint8_t*>(handle_out->untyped_data()), &a, &e, nullptr, 0});
}

ffi::Error recv_impl(ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets rets) {
  std::vector<HostBuffer> outs;
  if (auto err = collect_outputs(rets, outs); err.failure()) return err;
  if (outs.empty()) return ffi::Error::InvalidArgument("envhive[ValueError]: recv has no outputs");
  return run_call({host(handle), static_cast<uint8_t*>(handle_out->untyped_data()), nullptr, nullptr, outs.data(),
                   outs.size()});
}

ffi::Error step_impl(ffi::AnyBuffer handle, ffi::RemainingArgs args, ffi::Result<ffi::AnyBuffer> handle_out,
                     ffi::RemainingRets rets) {
  if (args.size() != 2) return ffi::Error::InvalidArgument("envhive[ValueError]: step takes (handle, actions, env_id)");
  auto actions = args.get<ffi::AnyBuffer>(0);
  auto ids = args.get<ffi::AnyBuffer>(1);
  if (actions.has_error()) return actions.error();
  if (ids.has_error()) return ids.error();
  std::vector<HostBuffer> outs;
  if (auto err = collect_outputs(rets, outs); err.failure()) return err;
  if (outs.empty()) return ffi::Error::InvalidArgument("envhive[ValueError]: step has no outputs");
  const HostBuffer a = host(*actions), e = host(*ids);
  return run_call({host(handle), static_cast<uint8_t*>(handle_out->untyped_data()), &a, &e, outs.data(), outs.size()});
}

}  // namespace
}  // namespace envhive::xla

using envhive::xla::ffi::AnyBuffer;
using envhive::xla::ffi::Ffi;

XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvhiveSendCpu, envhive::xla::send_impl,
                              Ffi::Bind().Arg<AnyBuffer>().RemainingArgs().Ret<AnyBuffer>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvhiveRecvCpu, envhive::xla::recv_impl,
                              Ffi::Bind().Arg<AnyBuffer>().Ret<AnyBuffer>().RemainingRets());
XLA_FFI_DEFINE_HANDLER_SYMBOL(EnvhiveStepCpu, envhive::xla::step_impl,
                              Ffi::Bind().Arg<AnyBuffer>().RemainingArgs().Ret<AnyBuffer>().RemainingRets());
