#include "calls.h"

#include "lane_runner.h"

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

namespace envhive::xla {

namespace {

std::atomic<uint64_t> g_tag{0};

uint64_t fresh_tag() {
  std::random_device rd;
  uint64_t t = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return t == 0 ? 1 : t;  // a zero-filled buffer is never a valid handle
}

// Module interface tables registered in this process (modules are never unloaded, so a table
// stays valid). Readers scan without a lock.
constexpr size_t kMaxModules = 64;
std::array<std::atomic<const EnvhivePoolAbi*>, kMaxModules> g_abis{};
std::atomic<size_t> g_num_abis{0};
std::mutex g_abi_mu;

size_t dtype_bytes(int32_t d) {
  switch (d) {
    case ENVHIVE_BOOL:
    case ENVHIVE_UINT8:
    case ENVHIVE_INT8: return 1;
    case ENVHIVE_INT32:
    case ENVHIVE_FLOAT32: return 4;
    case ENVHIVE_INT64:
    case ENVHIVE_FLOAT64: return 8;
    default: return 0;
  }
}

// What Python maps to an exception type (envhive.xla): the kind in brackets, then where.
const char* kind_of(int32_t code) {
  switch (code) {
    case ENVHIVE_INVALID_ARGUMENT: return "ValueError";
    case ENVHIVE_CLOSED: return "PoolClosedError";
    case ENVHIVE_STALE: return "StaleHandleError";
    case ENVHIVE_BUSY: return "PoolBusyError";
    case ENVHIVE_RESET_NEEDED: return "ResetNeeded";
    case ENVHIVE_ENV_ERROR: return "EnvError";
    default: return "RuntimeError";
  }
}

ffi::ErrorCode ffi_code(int32_t code) {
  switch (code) {
    case ENVHIVE_INVALID_ARGUMENT: return ffi::ErrorCode::kInvalidArgument;
    case ENVHIVE_CLOSED:
    case ENVHIVE_STALE:
    case ENVHIVE_RESET_NEEDED: return ffi::ErrorCode::kFailedPrecondition;
    case ENVHIVE_BUSY: return ffi::ErrorCode::kUnavailable;
    case ENVHIVE_ENV_ERROR: return ffi::ErrorCode::kAborted;
    default: return ffi::ErrorCode::kInternal;
  }
}

struct Lane {
  HandleData h;
  const EnvhivePoolAbi* abi = nullptr;
  EnvhivePoolShape shape{};
  bool acquired = false, reached = false, sent = false;
  bool assistable = false;  // the module's table holds set_assisted and assist (appended to it)
  bool writes_obs = false;  // the module's table holds write_obs_into (appended to it)
};

class Call {
 public:
  explicit Call(const CallBuffers& b) : b_(b) { blank(status_); }
  ~Call() {
    for (Lane& l : lanes_)
      if (l.acquired) l.abi->release(reinterpret_cast<void*>(l.h.pool), l.h.call, l.reached, ok_);
  }

  ffi::Error run() {
    if (auto e = resolve(); e.failure()) return e;
    if (auto e = check_shapes(); e.failure()) return e;
    if (b_.actions) {
      const size_t act_per = per_lane(*b_.actions), ids_per = per_lane(*b_.env_ids);
      for (size_t i = 0; i < lanes_.size(); ++i) {  // all lanes first: a bad action touches no pool
        const HostBuffer a = slice(*b_.actions, i, act_per), ids = slice(*b_.env_ids, i, ids_per);
        const EnvhiveBuffer ab{a.data, a.dtype, static_cast<int64_t>(a.elements)};
        if (lanes_[i].abi->check_send(pool(i), &ab, static_cast<const int32_t*>(ids.data),
                                      static_cast<int64_t>(ids.elements), &status_) != ENVHIVE_OK)
          return error(i);
      }
    }
    // Hands every lane its actions (after all passed their checks). A dispatch that passed its
    // checks does not fail (but if it did: no lane waits, and the error names its lane). A step
    // that returns the batch first asks each pool to write its observations straight into the
    // lane's obs output (sync pools with the same dtype take it), which recv then leaves alone:
    // a copy of the largest output less per call.
    ffi::Error send_error = ffi::Error::Success();
    const std::function<bool()> send_all = [&] {
      const size_t act_per = per_lane(*b_.actions), ids_per = per_lane(*b_.env_ids);
      const size_t obs_per = b_.num_outputs > 0 ? per_lane(b_.outputs[0]) : 0;
      for (size_t i = 0; i < lanes_.size(); ++i) {
        const HostBuffer a = slice(*b_.actions, i, act_per), ids = slice(*b_.env_ids, i, ids_per);
        const EnvhiveBuffer ab{a.data, a.dtype, static_cast<int64_t>(a.elements)};
        lanes_[i].reached = true;
        if (b_.num_outputs > 0 && lanes_[i].writes_obs) {
          const HostBuffer o = slice(b_.outputs[0], i, obs_per);
          const EnvhiveBuffer ob{o.data, o.dtype, static_cast<int64_t>(o.elements)};
          lanes_[i].abi->write_obs_into(pool(i), &ob);
        }
        if (lanes_[i].abi->send(pool(i), &ab, static_cast<const int32_t*>(ids.data),
                                static_cast<int64_t>(ids.elements), &status_) != ENVHIVE_OK) {
          send_error = error(i);
          return false;
        }
        lanes_[i].sent = true;
      }
      return true;
    };
    if (b_.num_outputs == 0) return b_.actions && !send_all() ? send_error : finish();
    ffi::Error first = ffi::Error::Success();
    {
      // Every lane is received even after an error, so no pool keeps a batch nobody takes. The
      // lanes are waited for in parallel (LaneRunner): the thread waiting in a pool steps its envs.
      // Everything a lane needs is allocated here: the helpers allocate nothing (nothing throws there).
      const size_t n = lanes_.size();
      std::unique_ptr<EnvhiveStatus[]> statuses(new EnvhiveStatus[n]);  // (not value-initialised: 1 KB each)
      for (size_t i = 0; i < n; ++i) blank(statuses[i]);
      std::vector<int32_t> codes(n, ENVHIVE_OK);
      std::vector<EnvhiveBuffer> outs(n * b_.num_outputs);
      for (size_t k = 0; k < b_.num_outputs; ++k) {
        const size_t per = per_lane(b_.outputs[k]);
        for (size_t i = 0; i < n; ++i) {
          const HostBuffer o = slice(b_.outputs[k], i, per);
          outs[i * b_.num_outputs + k] = {o.data, o.dtype, static_cast<int64_t>(o.elements)};
        }
      }
      if (!b_.actions)  // (a step marks each lane as its actions reach it)
        for (size_t i = 0; i < n; ++i) lanes_[i].reached = true;
      // A thread with no lane left steps envs of the others' pools (pools whose module has
      // set_assisted / assist: every built-in one; an out-of-tree module built before them not).
      // ENVHIVE_XLA_LANE_ASSIST=0 (read once) turns that off: whole lanes only, as before it. A
      // single lane is never shared, and its pool's flag is already off (cleared after every
      // batched call), so a plain call pays nothing for it.
      static const bool kAssistLanes = [] {
        const char* text = std::getenv("ENVHIVE_XLA_LANE_ASSIST");
        return text == nullptr || std::strcmp(text, "0") != 0;
      }();
      const bool assisting = kAssistLanes && n > 1;
      const LaneRunner::Assist assist{
          [&](bool shared) {
            for (size_t i = 0; i < n; ++i)
              if (lanes_[i].assistable) lanes_[i].abi->set_assisted(pool(i), shared ? 1 : 0);
          },
          [&](size_t i) {
            if (lanes_[i].assistable) lanes_[i].abi->assist(pool(i));
          }};
      // A step's actions are handed out inside run(), once the pools know whether guests will
      // come: a pool told so leaves its own workers asleep instead of waking them to sit out.
      const bool ran = LaneRunner::instance().run(
          n,
          [&](size_t i) {
            codes[i] = lanes_[i].abi->wait(pool(i), &statuses[i]);
            if (codes[i] == ENVHIVE_OK)
              codes[i] = lanes_[i].abi->recv(pool(i), outs.data() + i * b_.num_outputs,
                                             static_cast<int64_t>(b_.num_outputs), &statuses[i]);
          },
          assisting ? &assist : nullptr, b_.actions ? &send_all : nullptr);
      if (assisting)  // the pools' next calls (from Python too) run with their own threads again
        assist.prepare(false);
      if (!ran) return send_error;
      for (size_t i = 0; i < n && first.success(); ++i)
        if (codes[i] != ENVHIVE_OK) first = error(i, statuses[i]);
    }
    if (first.failure()) return first;
    return finish();
  }

 private:
  void* pool(size_t i) const { return reinterpret_cast<void*>(lanes_[i].h.pool); }

  std::string where(size_t i) const {
    std::string s;
    if (lanes_.size() > 1) s += "lane " + std::to_string(i) + " ";
    const Lane& l = lanes_[i];
    s += "(pool #" + std::to_string(l.h.serial);
    if (l.abi) s += std::string(" of envhive.") + l.abi->module;
    return s + "): ";
  }

  ffi::Error fail(int32_t code, size_t lane, const std::string& message) const {
    return ffi::Error(ffi_code(code), std::string("envhive[") + kind_of(code) + "]: " + where(lane) + message);
  }

  ffi::Error error(size_t lane) const { return error(lane, status_); }

  ffi::Error error(size_t lane, const EnvhiveStatus& st) const {
    std::string kind = std::string("envhive[") + kind_of(st.code);
    if (st.code == ENVHIVE_ENV_ERROR && st.num_env_ids > 0) {
      kind += " env_ids=";
      for (int32_t k = 0; k < st.num_env_ids; ++k) kind += (k ? "," : "") + std::to_string(st.env_ids[k]);
    }
    return ffi::Error(ffi_code(st.code), kind + "]: " + where(lane) + st.message);
  }

  ffi::Error resolve() {
    const HostBuffer& hb = b_.handle;
    if (hb.dtype != ENVHIVE_UINT8 || hb.elements == 0 || hb.elements % kHandleBytes != 0)
      return ffi::Error::InvalidArgument("envhive[ValueError]: a pool handle is uint8[..., " +
                                         std::to_string(kHandleBytes) + "] (the handle of env.xla())");
    const size_t n = hb.elements / kHandleBytes;
    lanes_.resize(n);
    const uint64_t tag = process_tag();
    for (size_t i = 0; i < n; ++i) {
      Lane& l = lanes_[i];
      std::memcpy(&l.h, static_cast<const uint8_t*>(hb.data) + i * kHandleBytes, kHandleBytes);
      if (l.h.process_tag != tag)
        return fail(ENVHIVE_INVALID_ARGUMENT, i,
                    "not a pool handle of this process (uninitialised, corrupted, or made in another process)");
      l.abi = find_abi(l.h.abi);
      if (l.abi == nullptr) return fail(ENVHIVE_INVALID_ARGUMENT, i, "corrupted handle (unknown module)");
      l.assistable = ENVHIVE_POOL_ABI_HAS(l.abi, set_assisted) && ENVHIVE_POOL_ABI_HAS(l.abi, assist);
      l.writes_obs = ENVHIVE_POOL_ABI_HAS(l.abi, write_obs_into);
      for (size_t j = 0; j < i; ++j)
        if (lanes_[j].h.abi == l.h.abi && lanes_[j].h.serial == l.h.serial)
          return fail(ENVHIVE_INVALID_ARGUMENT, i,
                      "the same pool is also lane " + std::to_string(j) + "; a batch of handles needs distinct pools");
      if (l.abi->acquire(l.h.serial, pool(i), l.h.call, &status_) != ENVHIVE_OK) return error(i);
      l.acquired = true;
      l.abi->describe(pool(i), &l.shape);
    }
    return ffi::Error::Success();
  }

  ffi::Error finish() {
    write_next_handles();
    ok_ = true;
    return ffi::Error::Success();
  }

  // Each lane's slice of a [*lanes, ...] buffer: `per` (per_lane) elements from lane * per.
  size_t per_lane(const HostBuffer& b) const { return b.elements / lanes_.size(); }
  static HostBuffer slice(const HostBuffer& b, size_t lane, size_t per) {
    return {static_cast<uint8_t*>(b.data) + lane * per * dtype_bytes(b.dtype), b.dtype, per};
  }

  ffi::Error check_shapes() const {
    const size_t n = lanes_.size();
    auto check = [&](const HostBuffer& b, size_t i, size_t want, const char* what) -> ffi::Error {
      if (b.dtype < 0) return fail(ENVHIVE_INVALID_ARGUMENT, i, std::string(what) + " has an unsupported dtype");
      if (b.elements != n * want)
        return fail(ENVHIVE_INVALID_ARGUMENT, i,
                    std::string(what) + " has " + std::to_string(b.elements) + " elements; expected " +
                        std::to_string(n) + " lane(s) x " + std::to_string(want) + " for this pool (batch_size " +
                        std::to_string(lanes_[i].shape.batch_size) + ")");
      return ffi::Error::Success();
    };
    for (size_t i = 0; i < n; ++i) {
      const EnvhivePoolShape& s = lanes_[i].shape;
      const size_t rows = static_cast<size_t>(s.batch_size);
      if (b_.actions) {
        if (auto e = check(*b_.actions, i, rows * static_cast<size_t>(s.action_elements), "actions"); e.failure())
          return e;
        if (b_.env_ids->dtype != ENVHIVE_INT32) return fail(ENVHIVE_INVALID_ARGUMENT, i, "env_id must be int32");
        if (auto e = check(*b_.env_ids, i, rows, "env_id"); e.failure()) return e;
      }
      if (b_.num_outputs > 0) {
        if (b_.num_outputs != static_cast<size_t>(s.num_outputs))
          return fail(ENVHIVE_INVALID_ARGUMENT, i,
                      "the call has " + std::to_string(b_.num_outputs) + " outputs; this pool writes " +
                          std::to_string(s.num_outputs) + " (handles of pools of different tasks or modes?)");
        for (size_t k = 0; k < b_.num_outputs; ++k)
          if (b_.outputs[k].dtype < 0 || b_.outputs[k].elements % n != 0)
            return fail(ENVHIVE_INVALID_ARGUMENT, i, "output " + std::to_string(k) + " does not split into lanes");
      }
    }
    return ffi::Error::Success();
  }

  void write_next_handles() const {
    for (size_t i = 0; i < lanes_.size(); ++i) {
      HandleData h = lanes_[i].h;
      ++h.call;
      std::memcpy(b_.handle_out + i * kHandleBytes, &h, kHandleBytes);
    }
  }

  // A status nobody has written yet (what an error without a message would read). Whole statuses
  // are not zeroed: each is over 1 KB, and a call only reads one that a pool reported an error in.
  static void blank(EnvhiveStatus& st) {
    st.code = ENVHIVE_OK;
    st.num_env_ids = 0;
    st.message[0] = '\0';
  }

  const CallBuffers& b_;
  std::vector<Lane> lanes_;
  EnvhiveStatus status_;  // (blanked by the constructor)
  bool ok_ = false;
};

}  // namespace

uint64_t process_tag() {
  static const bool init = [] {
    g_tag.store(fresh_tag());
    pthread_atfork(nullptr, nullptr, [] { g_tag.store(fresh_tag()); });  // a child's handles are not its parent's
    return true;
  }();
  (void)init;
  return g_tag.load(std::memory_order_relaxed);
}

bool register_abi(const EnvhivePoolAbi* abi, const char** why) {
  if (abi->abi_version != ENVHIVE_POOL_ABI_VERSION || abi->struct_size < ENVHIVE_POOL_ABI_MIN_SIZE) {
    *why = "the module's pool interface is of another version (rebuild it against this envhive)";
    return false;
  }
  std::lock_guard<std::mutex> lock(g_abi_mu);
  const size_t n = g_num_abis.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i)
    if (g_abis[i].load(std::memory_order_relaxed) == abi) return true;
  if (n == kMaxModules) {
    *why = "too many family modules";
    return false;
  }
  g_abis[n].store(abi, std::memory_order_relaxed);
  g_num_abis.store(n + 1, std::memory_order_release);
  return true;
}

const EnvhivePoolAbi* find_abi(uint64_t address) {
  const size_t n = g_num_abis.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    const EnvhivePoolAbi* abi = g_abis[i].load(std::memory_order_relaxed);
    if (reinterpret_cast<uintptr_t>(abi) == address) return abi;
  }
  return nullptr;
}

int32_t envhive_dtype(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::PRED: return ENVHIVE_BOOL;
    case ffi::DataType::U8: return ENVHIVE_UINT8;
    case ffi::DataType::S8: return ENVHIVE_INT8;
    case ffi::DataType::S32: return ENVHIVE_INT32;
    case ffi::DataType::S64: return ENVHIVE_INT64;
    case ffi::DataType::F32: return ENVHIVE_FLOAT32;
    case ffi::DataType::F64: return ENVHIVE_FLOAT64;
    default: return -1;
  }
}

ffi::Error run_call(const CallBuffers& buffers) noexcept {
  try {
    Call call(buffers);
    return call.run();
  } catch (const std::exception& e) {
    return ffi::Error::Internal(std::string("envhive[RuntimeError]: ") + e.what());
  } catch (...) {
    return ffi::Error::Internal("envhive[RuntimeError]: unknown C++ exception");
  }
}

}  // namespace envhive::xla
