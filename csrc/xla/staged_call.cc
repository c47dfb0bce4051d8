#include "staged_call.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace envhive::xla {

namespace {

// Staging buffers of one engine, one set per XLA host thread: a call leaves no copy in flight when
// it returns, so its buffers are free again for the next call on that thread.
class Staging {
 public:
  explicit Staging(const DeviceCopies& copies) : copies_(copies) {}
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  ~Staging() {
    for (Buf& b : bufs_)
      if (b.data) copies_.free_host(b.data);
  }

  static Staging& for_this_thread(const DeviceCopies& copies) {
    thread_local std::vector<std::pair<const DeviceCopies*, std::unique_ptr<Staging>>> all;
    for (auto& [engine, staging] : all)
      if (engine == &copies) return *staging;
    all.emplace_back(&copies, std::make_unique<Staging>(copies));
    return *all.back().second;
  }

  // A buffer of at least `bytes` for slot `i`, or nullptr.
  void* get(size_t i, size_t bytes) {
    if (bufs_.size() <= i) bufs_.resize(i + 1);
    Buf& b = bufs_[i];
    if (b.data == nullptr || b.size < bytes) {
      if (b.data) copies_.free_host(b.data);
      b = {};
      const size_t size = bytes == 0 ? 1 : bytes;
      if (copies_.host_alloc(&b.data, size) != 0) {
        b.data = nullptr;
        return nullptr;
      }
      b.size = size;
    }
    return b.data;
  }

  void fill(uint8_t byte) {
    for (Buf& b : bufs_)
      if (b.data) std::memset(b.data, byte, b.size);
  }

 private:
  struct Buf {
    void* data = nullptr;
    size_t size = 0;
  };
  const DeviceCopies& copies_;
  std::vector<Buf> bufs_;
};

ffi::Error engine_error(const DeviceCopies& c, const char* what, int code) {
  return ffi::Error::Internal(std::string("envhive[RuntimeError]: ") + c.name + ": " + what + " failed (status " +
                              std::to_string(code) + ")");
}

uint64_t call_number(const void* handle_bytes) {
  HandleData h;
  std::memcpy(&h, handle_bytes, sizeof h);
  return h.call;
}

// Waits for the stream on the way out of an error path once copies were enqueued: nothing may
// read or write this thread's staging after the call returns.
class InFlight {
 public:
  InFlight(const DeviceCopies& c, void* stream) : c_(c), stream_(stream) {}
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
  ~InFlight() {
    if (pending_) (void)c_.sync(stream_);  // (the error being returned is the one to report)
  }
  void enqueued() { pending_ = true; }
  int sync() {
    pending_ = false;
    return c_.sync(stream_);
  }

 private:
  const DeviceCopies& c_;
  void* stream_;
  bool pending_ = false;
};

}  // namespace

bool staging_trace_enabled() {
  static const bool on = [] {
    const char* text = std::getenv("ENVHIVE_XLA_TRACE");
    return text != nullptr && std::strcmp(text, "1") == 0;
  }();
  return on;
}

void fill_staging(const DeviceCopies& copies, uint8_t byte) { Staging::for_this_thread(copies).fill(byte); }

ffi::Error staged_call(const DeviceCopies& c, void* stream, const ffi::AnyBuffer& handle,
                       const ffi::RemainingArgs* args, const ffi::AnyBuffer& handle_out,
                       const ffi::RemainingRets* rets) {
  std::vector<ffi::AnyBuffer> in{handle};
  if (args) {
    if (args->size() != 2)
      return ffi::Error::InvalidArgument("envhive[ValueError]: send and step take (handle, actions, env_id)");
    for (size_t k = 0; k < 2; ++k) {
      auto a = args->get<ffi::AnyBuffer>(k);
      if (a.has_error()) return a.error();
      in.push_back(*a);
    }
  }
  std::vector<ffi::AnyBuffer> out{handle_out};
  if (rets) {
    if (rets->size() == 0) return ffi::Error::InvalidArgument("envhive[ValueError]: recv and step have outputs");
    for (size_t k = 0; k < rets->size(); ++k) {
      auto r = rets->get<ffi::AnyBuffer>(k);
      if (r.has_error()) return r.error();
      out.push_back(**r);
    }
  }
  if (handle.size_bytes() != handle_out.size_bytes())
    return ffi::Error::InvalidArgument("envhive[ValueError]: the handle output is not the size of the handle input");
  Staging& staging = Staging::for_this_thread(c);
  InFlight in_flight(c, stream);

  // 1. Inputs device -> host; then wait: the pools need the values now.
  std::vector<HostBuffer> host_in;
  for (size_t i = 0; i < in.size(); ++i) {
    const size_t bytes = in[i].size_bytes();
    void* h = staging.get(i, bytes);
    if (!h) return engine_error(c, c.host_alloc_name, -1);
    if (bytes > 0) {
      if (int r = c.dtoh(h, in[i].untyped_data(), bytes, stream)) return engine_error(c, c.dtoh_name, r);
      in_flight.enqueued();
    }
    host_in.push_back({h, envhive_dtype(in[i].element_type()), in[i].element_count()});
  }
  if (int r = in_flight.sync()) return engine_error(c, c.sync_name, r);
  std::vector<HostBuffer> host_out;
  for (size_t i = 0; i < out.size(); ++i) {
    void* h = staging.get(in.size() + i, out[i].size_bytes());
    if (!h) return engine_error(c, c.host_alloc_name, -1);
    host_out.push_back({h, envhive_dtype(out[i].element_type()), out[i].element_count()});
  }

  // 2. The host core, exactly as on CPU. On failure nothing is copied back: the device keeps the
  // handles the caller holds, which the pool accepts next (it resynchronises after a failed call).
  const CallBuffers call{host_in[0],
                         static_cast<uint8_t*>(host_out[0].data),
                         args ? &host_in[1] : nullptr,
                         args ? &host_in[2] : nullptr,
                         out.size() > 1 ? &host_out[1] : nullptr,
                         out.size() - 1};
  if (auto err = run_call(call); err.failure()) return err;
  if (staging_trace_enabled() && handle.size_bytes() >= kHandleBytes)
    std::fprintf(stderr,
                 "envhive xla trace: %s thread %zu stream %p handle in %p out %p: call #%" PRIu64 " -> #%" PRIu64
                 "\n",
                 c.name, std::hash<std::thread::id>{}(std::this_thread::get_id()), stream, handle.untyped_data(),
                 handle_out.untyped_data(), call_number(host_in[0].data), call_number(host_out[0].data));

  // 3. Results host -> device (the next handles first), then wait, which frees the staging.
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t bytes = out[i].size_bytes();
    if (bytes == 0) continue;
    if (int r = c.htod(out[i].untyped_data(), host_out[i].data, bytes, stream)) return engine_error(c, c.htod_name, r);
    in_flight.enqueued();
  }
  if (int r = in_flight.sync()) return engine_error(c, c.sync_name, r);
  return ffi::Error::Success();
}

}  // namespace envhive::xla
