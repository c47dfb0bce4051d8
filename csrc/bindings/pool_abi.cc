// The C interface of this module's pools (pool_abi.h): the calls XLA programs make, without Python
// and without the GIL, checked by the same call front as Python's calls (call_front.h). Errors come
// back as an EnvhiveStatus, never as an exception.
#include <cstring>
#include <string>

#include "pool_object.h"

namespace envhive::bindings {

namespace {

struct PoolClosedDuringCall : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct StaleHandle : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string stale_message(uint64_t expected, uint64_t call) {
  return "stale handle: this is call #" + std::to_string(expected) + " on the pool but the handle is for call #" +
         std::to_string(call) +
         "; pass the handle returned by the previous call (a reused handle, or a result discarded by jax.vmap of "
         "lax.cond / lax.while_loop with a per-lane predicate, which still ran the call)";
}

int32_t set_status(EnvhiveStatus* status, int32_t code, const std::string& message) {
  status->code = code;
  status->num_env_ids = 0;
  const size_t n = std::min(message.size(), sizeof(status->message) - 1);
  std::memcpy(status->message, message.data(), n);
  status->message[n] = '\0';
  return code;
}

// Runs f, turning any exception into a status (nothing may unwind through the C interface).
template <class F>
int32_t guarded(EnvhiveStatus* st, F&& f) noexcept {
  try {
    f();
    return ENVHIVE_OK;
  } catch (const ResetNeededError& e) {
    return set_status(st, ENVHIVE_RESET_NEEDED, e.what());
  } catch (const PoolClosedDuringCall& e) {
    return set_status(st, ENVHIVE_CLOSED, e.what());
  } catch (const StaleHandle& e) {
    return set_status(st, ENVHIVE_STALE, e.what());
  } catch (const std::invalid_argument& e) {
    return set_status(st, ENVHIVE_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return set_status(st, ENVHIVE_INTERNAL, e.what());
  } catch (...) {
    return set_status(st, ENVHIVE_INTERNAL, "unknown C++ exception");
  }
}

// One column of the batch (`values` values of `type`) into a caller's buffer of the same dtype or
// its 32-bit form.
void copy_column(const std::byte* src, DType type, size_t values, const EnvhiveBuffer& out, const std::string& what) {
  if (out.elements != static_cast<int64_t>(values))
    throw std::invalid_argument(what + " buffer holds " + std::to_string(out.elements) + " values; the batch has " +
                                std::to_string(values));
  if (out.dtype == static_cast<int32_t>(type)) {
    std::memcpy(out.data, src, values * dtype_size(type));
  } else if (type == DType::kFloat64 && out.dtype == ENVHIVE_FLOAT32) {
    const double* in = reinterpret_cast<const double*>(src);
    float* o = static_cast<float*>(out.data);
    for (size_t i = 0; i < values; ++i) o[i] = static_cast<float>(in[i]);
  } else if (type == DType::kInt64 && out.dtype == ENVHIVE_INT32) {
    const int64_t* in = reinterpret_cast<const int64_t*>(src);
    int32_t* o = static_cast<int32_t*>(out.data);
    for (size_t i = 0; i < values; ++i) o[i] = static_cast<int32_t>(in[i]);
  } else {
    throw std::invalid_argument(what + " buffer is " + dtype_name(static_cast<DType>(out.dtype)) +
                                "; the batch's is " + dtype_name(type));
  }
}

template <class T>
const std::byte* bytes_of(const T* p) {
  return reinterpret_cast<const std::byte*>(p);
}

}  // namespace

// Called with the registry locked (PoolRegistry::with), so the pool cannot leave meanwhile.
int32_t NativePool::abi_acquire(uint64_t call, EnvhiveStatus* st) {
  if (closed()) return set_status(st, ENVHIVE_CLOSED, "the pool is closed");
  if (!try_enter())
    return set_status(st, ENVHIVE_BUSY,
                      "the pool is in use by another call (a Python call on another thread, or another XLA call "
                      "given the same handle); a pool serves one call at a time");
  if (closed()) {
    leave();
    return set_status(st, ENVHIVE_CLOSED, "the pool is closed");
  }
  const uint64_t expected = xla_.next_call.load(std::memory_order_relaxed);
  // The other half of EnvPool's overlap idiom (pool_object.h, XlaState): the lone call's number, once.
  const bool pair = xla_.open_call == call && call + 1 == expected;
  xla_.pair_of = pair ? xla_.open_op : XlaState::Op::kNone;
  xla_.open_call = XlaState::kNoCall;
  if (!xla_.resync && call != expected && !pair) {
    leave();
    return set_status(st, ENVHIVE_STALE, stale_message(expected, call));
  }
  xla_.checked = false;
  xla_.sent = false;
  xla_.received = false;
  xla_.current = call;
  return ENVHIVE_OK;
}

void NativePool::abi_release(uint64_t call, bool reached_pool, bool ok) {
  // A call that set an obs target and did not receive its batch (a wait a close ended, a failed
  // send in another lane): no pool thread may write into the caller's buffer once it returns.
  if (pool_->obs_target() != nullptr) pool_->settle();
  if (reached_pool) {
    if (ok && xla_.pair_of == XlaState::Op::kNone) xla_.next_call.store(call + 1, std::memory_order_relaxed);
    if (ok && xla_.pair_of == XlaState::Op::kNone && xla_.sent && !xla_.received) {
      xla_.open_call = call;  // a lone send: a recv may still come with its handle (XLA ran the send first)
      xla_.open_op = XlaState::Op::kSend;
    }
    xla_.resync = !ok;  // the caller still holds the handle from before the failed program
  }
  xla_.pair_of = XlaState::Op::kNone;
  leave();
}

size_t NativePool::num_outputs() const {
  const size_t leaves = pool_->layout().obs.size(), infos = pool_->spaces().infos.size();
  return leaves + 5 + infos + (pool_->layout().with_final ? 2 + leaves + infos : 0);
}

void NativePool::abi_describe(EnvhivePoolShape* shape) const {
  const auto& o = pool_->options();
  const SpaceSpec& act = pool_->spaces().action;
  shape->num_envs = o.num_envs;
  shape->batch_size = o.batch_size;
  shape->sync = pool_->sync();
  shape->num_outputs = static_cast<int32_t>(num_outputs());
  shape->action_elements = static_cast<int64_t>(act.kind == SpaceSpec::Kind::kDiscrete ? 1 : act.count());
  shape->action_dtype = static_cast<int32_t>(act.dtype);
}

int32_t NativePool::abi_check_send(const EnvhiveBuffer& actions, const int32_t* env_ids, int64_t n,
                                   EnvhiveStatus* st) {
  return guarded(st, [&] {
    xla_.checked = false;
    if (xla_.pair_of == XlaState::Op::kSend)  // two sends given one handle
      throw StaleHandle(stale_message(xla_.next_call.load(std::memory_order_relaxed), xla_.current));
    if (n < 0) throw std::invalid_argument("a negative number of rows");
    const auto& ids = front_->check_ids(env_ids, static_cast<size_t>(n));
    front_->check_sync_send(ids.size(), false);  // no partial steps here
    front_->convert_raw_actions(actions, ids.size(), xla_.rows);
    front_->check_action_values(xla_.rows.data(), ids);
    front_->check_steppable(ids);
    xla_.checked = true;
  });
}

int32_t NativePool::abi_send(const EnvhiveBuffer& actions, const int32_t* env_ids, int64_t n, EnvhiveStatus* st) {
  if (!xla_.checked)
    if (const int32_t code = abi_check_send(actions, env_ids, n, st); code != ENVHIVE_OK) return code;
  xla_.checked = false;
  return guarded(st, [&] {
    const Command step = Command::kStep;
    const auto& ids = front_->checked_ids();
    pool_->dispatch(ids.data(), ids.size(), &step, 1, xla_.rows.data());
    xla_.sent = true;
  });
}

int32_t NativePool::abi_wait(EnvhiveStatus* st) {
  return guarded(st, [&] {
    if (xla_.pair_of == XlaState::Op::kRecv || (xla_.pair_of == XlaState::Op::kSend && xla_.sent))
      throw StaleHandle(stale_message(xla_.next_call.load(std::memory_order_relaxed), xla_.current));
    front_->check_can_receive();
    const WaitResult r = pool_->wait_batch(std::nullopt, [] { return false; });  // no Ctrl-C without the GIL
    if (r == WaitResult::kClosed)
      throw PoolClosedDuringCall("the pool was closed by another thread while an XLA call waited in it");
  });
}

// pool_abi.h's write_obs_into: the next batch's obs rows go into the caller's buffer (a one-leaf
// observation of the buffer's dtype and size only).
int32_t NativePool::abi_write_obs_into(const EnvhiveBuffer& obs) {
  const SpaceSpec& o = pool_->spaces().observation;
  const bool fits = pool_->sync() && o.is_leaf() && obs.data != nullptr &&
                    obs.dtype == static_cast<int32_t>(o.dtype) &&
                    obs.elements ==
                        static_cast<int64_t>(pool_->options().batch_size) * static_cast<int64_t>(o.count()) &&
                    reinterpret_cast<uintptr_t>(obs.data) % 16 == 0;
  pool_->set_obs_target(fits ? static_cast<std::byte*>(obs.data) : nullptr);
  return fits ? 1 : 0;
}

int32_t NativePool::abi_recv(const EnvhiveBuffer* outputs, int64_t count, EnvhiveStatus* st) {
  std::string layout_error;
  if (count != static_cast<int64_t>(num_outputs()))
    layout_error =
        "recv got " + std::to_string(count) + " output buffers; the pool writes " + std::to_string(num_outputs());
  std::vector<EnvFailure> failures;
  std::byte* blk = nullptr;
  // The obs rows are in place when write_obs_into took this very buffer (finish_recv forgets it).
  const std::byte* target = pool_->obs_target();
  const bool obs_in_place = target != nullptr && count > 0 && outputs[0].data == target;
  const int32_t code = guarded(st, [&] { blk = pool_->finish_recv(failures); });
  if (code != ENVHIVE_OK) return code;
  const int32_t result = guarded(st, [&] {
    if (!layout_error.empty()) throw std::invalid_argument(layout_error);
    if (!failures.empty()) return;
    copy_batch(blk, outputs, obs_in_place);
  });
  pool_->recycler()->release(blk);
  xla_.received = result == ENVHIVE_OK;
  if (result == ENVHIVE_OK && failures.empty() && !xla_.sent && xla_.pair_of == XlaState::Op::kNone) {
    xla_.open_call = xla_.current;  // a lone recv: a send may still come with its handle
    xla_.open_op = XlaState::Op::kRecv;
  }
  if (result != ENVHIVE_OK || failures.empty()) return result;
  set_status(st, ENVHIVE_ENV_ERROR, front_->failure_message(failures));
  for (const auto& f : failures) {
    if (st->num_env_ids == ENVHIVE_STATUS_MAX_ENV_IDS) break;
    st->env_ids[st->num_env_ids++] = f.env_id;
  }
  return ENVHIVE_ENV_ERROR;
}

// The outputs in order: each observation leaf, reward, terminated, truncated, env_id,
// elapsed_step, each info; SAME_STEP adds final_mask, each final observation leaf (zeros where no
// episode ended), final elapsed_step and each final info.
void NativePool::copy_batch(const std::byte* blk, const EnvhiveBuffer* out, bool obs_in_place) const {
  const BatchLayout& L = pool_->layout();
  const auto& sp = pool_->spaces();
  const std::vector<SpaceLeaf> leaves = space_leaves(sp.observation);
  const size_t rows = static_cast<size_t>(pool_->options().batch_size);
  size_t k = 0;
  for (size_t j = 0; j < leaves.size(); ++j, ++k)
    if (!(j == 0 && obs_in_place))
      copy_column(L.obs[j].in(blk), leaves[j].spec->dtype, rows * leaves[j].spec->count(), out[k],
                  leaves.size() == 1 ? "obs" : "obs " + leaves[j].path);
  copy_column(bytes_of(L.reward.in(blk)), DType::kFloat64, rows, out[k++], "reward");
  copy_column(bytes_of(L.terminated.in(blk)), DType::kBool, rows, out[k++], "terminated");
  copy_column(bytes_of(L.truncated.in(blk)), DType::kBool, rows, out[k++], "truncated");
  copy_column(bytes_of(L.env_id.in(blk)), DType::kInt32, rows, out[k++], "env_id");
  copy_column(bytes_of(L.elapsed_step.in(blk)), DType::kInt32, rows, out[k++], "elapsed_step");
  auto info_values = [&](size_t f) { return rows * sp.infos[f].bytes() / dtype_size(sp.infos[f].dtype); };
  for (size_t f = 0; f < sp.infos.size(); ++f)
    copy_column(L.infos[f].in(blk), sp.infos[f].dtype, info_values(f), out[k++], sp.infos[f].name);
  if (!L.with_final) return;
  const bool* mask = L.final_mask.in(blk);
  copy_column(bytes_of(mask), DType::kBool, rows, out[k++], "final_mask");
  for (size_t j = 0; j < leaves.size(); ++j, ++k) {
    copy_column(L.final_obs[j].in(blk), leaves[j].spec->dtype, rows * leaves[j].spec->count(), out[k],
                leaves.size() == 1 ? "final_obs" : "final_obs " + leaves[j].path);
    // dense: zeros where no episode ended (the block holds whatever was there; numpy shows None)
    const size_t row_bytes = leaves[j].spec->count() * dtype_size(static_cast<DType>(out[k].dtype));
    for (size_t r = 0; r < rows; ++r)
      if (!mask[r]) std::memset(static_cast<std::byte*>(out[k].data) + r * row_bytes, 0, row_bytes);
  }
  copy_column(bytes_of(L.final_elapsed_step.in(blk)), DType::kInt32, rows, out[k++], "final elapsed_step");
  for (size_t f = 0; f < sp.infos.size(); ++f)
    copy_column(L.final_infos[f].in(blk), sp.infos[f].dtype, info_values(f), out[k++], sp.infos[f].name);
}

namespace {

// The C interface's functions: the pool argument is used only after acquire found it live.
NativePool* as_pool(void* p) { return static_cast<NativePool*>(p); }

const EnvhivePoolAbi kPoolAbi = {
    ENVHIVE_POOL_ABI_VERSION,
    sizeof(EnvhivePoolAbi),
#define ENVHIVE_STR2(x) #x
#define ENVHIVE_STR(x) ENVHIVE_STR2(x)
    ENVHIVE_STR(ENVHIVE_MODULE_NAME),
#undef ENVHIVE_STR
#undef ENVHIVE_STR2
    [](uint64_t serial, void* pool, uint64_t call, EnvhiveStatus* st) -> int32_t {
      return PoolRegistry::get().with(serial, [&](NativePool* live) {
        if (live == nullptr || live != pool)
          return set_status(st, ENVHIVE_CLOSED, "pool #" + std::to_string(serial) + " is closed or deleted");
        return live->abi_acquire(call, st);
      });
    },
    [](void* pool, uint64_t call, int32_t reached, int32_t ok) { as_pool(pool)->abi_release(call, reached, ok); },
    [](void* pool, EnvhivePoolShape* shape) { as_pool(pool)->abi_describe(shape); },
    [](void* pool) { return as_pool(pool)->next_xla_call(); },
    [](void* pool, const EnvhiveBuffer* actions, const int32_t* ids, int64_t n, EnvhiveStatus* st) {
      return as_pool(pool)->abi_check_send(*actions, ids, n, st);
    },
    [](void* pool, const EnvhiveBuffer* actions, const int32_t* ids, int64_t n, EnvhiveStatus* st) {
      return as_pool(pool)->abi_send(*actions, ids, n, st);
    },
    [](void* pool, EnvhiveStatus* st) { return as_pool(pool)->abi_wait(st); },
    [](void* pool, const EnvhiveBuffer* outputs, int64_t n, EnvhiveStatus* st) {
      return as_pool(pool)->abi_recv(outputs, n, st);
    },
    [](void* pool, int32_t on) { as_pool(pool)->abi_set_assisted(on != 0); },
    [](void* pool) -> int32_t { return as_pool(pool)->abi_assist() ? 1 : 0; },
    [](void* pool, const EnvhiveBuffer* obs) -> int32_t { return as_pool(pool)->abi_write_obs_into(*obs); },
};

}  // namespace

void bind_pool_abi(nb::module_& m) {
  m.attr("POOL_ABI") = nb::capsule(static_cast<const void*>(&kPoolAbi), ENVHIVE_POOL_ABI_CAPSULE);
}

}  // namespace envhive::bindings
