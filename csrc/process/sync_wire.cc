// envhive._procwire: the parent's side of the process backend's sync step, without Python in the
// loop (src/envhive/process/vector.py uses it when it can; see docs/process-backend.md).
//
// A sync step of a 16-env Python CartPole pool takes the parent about 18 us of Python beside the
// workers' stepping -- checking and writing the actions, queueing a STEP_BLOCK command per worker,
// waking the blocked ones, spinning on the completion counters -- and every microsecond of it is
// on the step's critical path: the workers sit idle meanwhile. SyncWire does the same in C++ over
// the same arena words, with exactly the protocol of pool.py and worker.py (the Python code stays
// the reference and the fallback for everything this does not take: other dtypes or shapes,
// out-of-range actions -- which Python then reports --, dead or restarting workers, blocking).
//
// Memory ordering: the counters are int64 words in a shared mapping, written by one side each.
// Stores of a counter are release stores, loads acquire; between "store my counter" and "load the
// other side's sleeping flag" sits a full fence (both sides), as in waiting.py's Dekker argument.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>
#include <numpy/arrayobject.h>

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace nb = nanobind;

namespace {

using Words = nb::ndarray<int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Bounds = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Array = nb::ndarray<nb::c_contig, nb::device::cpu>;
using InputArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

int64_t load(const int64_t* word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }
void store(int64_t* word, int64_t value) { __atomic_store_n(word, value, __ATOMIC_RELEASE); }

double now_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Every value of `values` within [low[j], high[j]) for element j of a row (rows of `per_row`).
template <typename T>
bool in_bounds(const T* values, size_t count, const int64_t* low, const int64_t* high, size_t per_row) {
  for (size_t i = 0; i < count; ++i) {
    const size_t j = i % per_row;
    const auto v = static_cast<int64_t>(values[i]);
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == sizeof(int64_t)) {
      if (values[i] > static_cast<uint64_t>(INT64_MAX)) return false;
    }
    if (v < low[j] || v >= high[j]) return false;
  }
  return true;
}

template <typename T>
bool all_finite(const T* values, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!std::isfinite(values[i])) return false;
  }
  return true;
}

class SyncWire {
 public:
  // `handles`: the pool's WorkerHandle objects (their queued / expected / taken counts are kept
  // up to date here, so the Python paths see the same state); `action`: the arena's action array
  // (one leaf, rows = envs); `low` / `high`: per-element bounds of an integer leaf (one row's
  // worth), empty for a real-valued one.
  SyncWire(Words cmd_head, Words cmd_ring, Words done_head, Words batch_flags, Words worker_sleeping, Array action,
           Bounds low, Bounds high, nb::list handles, std::vector<int> command_fds, int64_t capacity, int64_t line_words,
           int64_t step_block, bool skip_wakeups)
      : cmd_head_(cmd_head), cmd_ring_(cmd_ring), done_head_(done_head), batch_flags_(batch_flags),
        worker_sleeping_(worker_sleeping), action_(action), low_(low), high_(high), handles_(handles),
        command_fds_(std::move(command_fds)), capacity_(capacity), line_(line_words), step_block_(step_block),
        skip_wakeups_(skip_wakeups) {
    const size_t workers = command_fds_.size();
    if (workers == 0 || nb::len(handles_) != workers) throw std::invalid_argument("SyncWire: one command fd per worker");
    if (capacity_ <= 0 || line_ <= 0) throw std::invalid_argument("SyncWire: capacity and line words must be positive");
    const auto words = static_cast<size_t>(line_) * workers;
    for (const Words* w : {&cmd_head_, &done_head_, &batch_flags_, &worker_sleeping_}) {
      if (w->shape(0) < words) throw std::invalid_argument("SyncWire: a counter region is smaller than its workers");
    }
    if (cmd_ring_.shape(0) < static_cast<size_t>(capacity_) * workers) {
      throw std::invalid_argument("SyncWire: the command ring is smaller than its workers");
    }
    if (action_.ndim() < 1) throw std::invalid_argument("SyncWire: the action array needs a row per env");
    const nb::dlpack::dtype dt = action_.dtype();
    integer_ = dt.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Int) ||
               dt.code == static_cast<uint8_t>(nb::dlpack::dtype_code::UInt);
    if (!integer_ && dt.code != static_cast<uint8_t>(nb::dlpack::dtype_code::Float)) {
      throw std::invalid_argument("SyncWire: actions must be integers or floats");
    }
    per_row_ = 1;
    for (size_t d = 1; d < action_.ndim(); ++d) per_row_ *= action_.shape(d);
    if (integer_ && (low_.shape(0) != per_row_ || high_.shape(0) != per_row_)) {
      throw std::invalid_argument("SyncWire: integer actions need one low and high bound per element of a row");
    }
    for (size_t w = 0; w < workers; ++w) {
      nb::handle h = handles_[w];
      const auto lo = nb::cast<int64_t>(h.attr("lo"));
      const auto hi = nb::cast<int64_t>(h.attr("hi"));
      block_sizes_.push_back(hi - lo);
    }
  }

  // Check `actions` (a numpy array of the arena's dtype and shape), write them and queue one
  // STEP_BLOCK per worker; false (nothing written) when this path does not take them -- a command
  // in flight, another dtype or shape, a value outside the space: the Python path then casts or
  // reports it.
  bool send(nb::handle actions) {
    for (size_t w = 0; w < command_fds_.size(); ++w) {  // a command still in flight: Python's path says so
      nb::handle h = handles_[w];
      if (!h.attr("expected").equal(h.attr("taken"))) return false;
    }
    InputArray in;
    if (!nb::try_cast(actions, in, /*convert=*/false)) return false;
    if (in.dtype() != action_.dtype() || in.ndim() != action_.ndim()) return false;
    for (size_t d = 0; d < in.ndim(); ++d) {
      if (in.shape(d) != action_.shape(d)) return false;
    }
    const size_t count = in.size();
    if (!check(in.data(), count)) return false;
    std::memcpy(action_.data(), in.data(), in.nbytes());

    const size_t workers = command_fds_.size();
    target_ = 0;
    for (size_t w = 0; w < workers; ++w) {
      nb::handle h = handles_[w];
      const auto queued = nb::cast<int64_t>(h.attr("queued"));
      const auto expected = nb::cast<int64_t>(h.attr("expected")) + block_sizes_[w];
      const size_t at = w * static_cast<size_t>(line_);
      store(batch_flags_.data() + at, 0);
      store(cmd_ring_.data() + w * static_cast<size_t>(capacity_) + static_cast<size_t>(queued % capacity_), step_block_);
      store(cmd_head_.data() + at, queued + 1);
      h.attr("queued") = nb::int_(queued + 1);
      h.attr("expected") = nb::int_(expected);
      target_ += expected;
    }
    if (skip_wakeups_) std::atomic_thread_fence(std::memory_order_seq_cst);  // heads before flags
    for (size_t w = 0; w < workers; ++w) {
      if (!skip_wakeups_ || load(worker_sleeping_.data() + w * static_cast<size_t>(line_)) != 0) notify(w);
    }
    return true;
  }

  // send(), then wait(spin_s): one call, so that nothing runs between queueing the work and
  // giving up the core to a worker that shares it. -2 when send() did not take the actions.
  int64_t step(nb::handle actions, double spin_s) {
    if (!send(actions)) return -2;
    return wait(spin_s);
  }

  // Spin until every worker completed its block, for at most `spin_s` seconds, without the GIL,
  // yielding the core first and then on every round: a worker that shares this core (there are
  // more processes than cores) runs at once. The OR of the workers' batch flags once done (the
  // taken counts then caught up), -1 if not done in time (the caller blocks: Python's wait).
  int64_t wait(double spin_s) {
    const size_t workers = command_fds_.size();
    bool done = false;
    {
      nb::gil_scoped_release release;
      const double start = now_s();
      const double deadline = start + spin_s;
      for (;;) {
        if (spin_s > 0) sched_yield();
        if (total_done() >= target_) {
          done = true;
          break;
        }
        if (now_s() >= deadline) break;
      }
      waited_s_ = now_s() - start;
    }
    if (!done) return -1;
    int64_t flags = 0;
    for (size_t w = 0; w < workers; ++w) {
      nb::handle h = handles_[w];
      h.attr("taken") = h.attr("expected");
      flags |= load(batch_flags_.data() + w * static_cast<size_t>(line_));
    }
    return flags;
  }

  double waited_s() const { return waited_s_; }

 private:
  bool check(const void* data, size_t count) const {
    const nb::dlpack::dtype dt = action_.dtype();
    const int64_t* low = low_.data();
    const int64_t* high = high_.data();
    if (integer_) {
      const bool is_signed = dt.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Int);
      switch (dt.bits) {
        case 8:
          return is_signed ? in_bounds(static_cast<const int8_t*>(data), count, low, high, per_row_)
                           : in_bounds(static_cast<const uint8_t*>(data), count, low, high, per_row_);
        case 16:
          return is_signed ? in_bounds(static_cast<const int16_t*>(data), count, low, high, per_row_)
                           : in_bounds(static_cast<const uint16_t*>(data), count, low, high, per_row_);
        case 32:
          return is_signed ? in_bounds(static_cast<const int32_t*>(data), count, low, high, per_row_)
                           : in_bounds(static_cast<const uint32_t*>(data), count, low, high, per_row_);
        case 64:
          return is_signed ? in_bounds(static_cast<const int64_t*>(data), count, low, high, per_row_)
                           : in_bounds(static_cast<const uint64_t*>(data), count, low, high, per_row_);
        default:
          return false;
      }
    }
    switch (dt.bits) {
      case 32:
        return all_finite(static_cast<const float*>(data), count);
      case 64:
        return all_finite(static_cast<const double*>(data), count);
      default:
        return false;  // float16: the Python path
    }
  }

  int64_t total_done() const {
    int64_t total = 0;
    for (size_t w = 0; w < command_fds_.size(); ++w) total += load(done_head_.data() + w * static_cast<size_t>(line_));
    return total;
  }

  void notify(size_t w) const {
    const uint64_t one = 1;
    // EAGAIN: the counter is saturated, so the worker is awake anyway; a closed fd: the pool is
    // closing, and Python's wait reports it.
    while (write(command_fds_[w], &one, sizeof one) < 0 && errno == EINTR) {
    }
  }

  Words cmd_head_, cmd_ring_, done_head_, batch_flags_, worker_sleeping_;
  Array action_;
  Bounds low_, high_;
  nb::list handles_;
  std::vector<int> command_fds_;
  std::vector<int64_t> block_sizes_;
  int64_t capacity_, line_, step_block_;
  bool skip_wakeups_;
  bool integer_ = false;
  size_t per_row_ = 1;
  int64_t target_ = 0;
  double waited_s_ = 0.0;
};

// A worker's wait for its next command: spin on its command head (yielding the core every round)
// until it moves past `tail`, for at most `spin_s` seconds. True once it moved.
class CommandSpin {
 public:
  CommandSpin(Words cmd_head, int64_t at) : cmd_head_(cmd_head), at_(static_cast<size_t>(at)) {
    if (at < 0 || at_ >= cmd_head_.shape(0)) throw std::invalid_argument("CommandSpin: word index out of range");
  }

  bool spin(int64_t tail, double spin_s) {
    const int64_t* word = cmd_head_.data() + at_;
    if (load(word) != tail) return true;
    nb::gil_scoped_release release;  // an env's own threads may run meanwhile
    const double deadline = now_s() + spin_s;
    do {
      sched_yield();
      if (load(word) != tail) return true;
    } while (now_s() < deadline);
    return false;
  }

 private:
  Words cmd_head_;
  size_t at_;
};

// Each observation of `observations` (a list, one per env) into its row of `out` (the block's
// rows of a flat observation region): only exact numpy arrays of `out`'s dtype and row shape,
// C-contiguous; false (nothing written) otherwise, and the worker batches them with numpy.
bool write_rows(nb::list observations, nb::handle out) {
  if (!PyArray_CheckExact(out.ptr())) return false;
  auto* dst = reinterpret_cast<PyArrayObject*>(out.ptr());
  const auto rows = static_cast<size_t>(nb::len(observations));
  if (PyArray_NDIM(dst) < 1 || static_cast<size_t>(PyArray_DIM(dst, 0)) != rows || !PyArray_IS_C_CONTIGUOUS(dst) ||
      !PyArray_ISWRITEABLE(dst)) {
    return false;
  }
  const int ndim = PyArray_NDIM(dst) - 1;
  const size_t row_bytes = rows == 0 ? 0 : static_cast<size_t>(PyArray_NBYTES(dst)) / rows;
  PyArray_Descr* dtype = PyArray_DESCR(dst);
  for (size_t i = 0; i < rows; ++i) {
    PyObject* obs = PyList_GET_ITEM(observations.ptr(), static_cast<Py_ssize_t>(i));
    if (!PyArray_CheckExact(obs)) return false;
    auto* a = reinterpret_cast<PyArrayObject*>(obs);
    if (PyArray_NDIM(a) != ndim || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_EquivTypes(PyArray_DESCR(a), dtype)) {
      return false;
    }
    for (int d = 0; d < ndim; ++d) {
      if (PyArray_DIM(a, d) != PyArray_DIM(dst, d + 1)) return false;
    }
  }
  auto* base = static_cast<char*>(PyArray_DATA(dst));
  for (size_t i = 0; i < rows; ++i) {
    auto* a = reinterpret_cast<PyArrayObject*>(PyList_GET_ITEM(observations.ptr(), static_cast<Py_ssize_t>(i)));
    std::memcpy(base + i * row_bytes, PyArray_DATA(a), row_bytes);
  }
  return true;
}

// A worker's sync-step outputs besides the observations: the rewards, flags and elapsed steps its
// loop kept in Python lists, written into the block's rows in one call. Only plain values are
// taken -- float (or a subclass, such as numpy.float64) or int rewards, the bools True / False,
// int elapsed counts --; anything else returns false having written nothing, and the worker
// writes the lists with numpy as before (which also finds the env whose reward is not a number).
class BlockWriter {
 public:
  BlockWriter(nb::ndarray<double, nb::ndim<1>, nb::c_contig, nb::device::cpu> reward,
              nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> terminated,
              nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> truncated,
              nb::ndarray<int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> elapsed)
      : reward_(reward), terminated_(terminated), truncated_(truncated), elapsed_(elapsed), n_(reward.shape(0)) {
    if (terminated_.shape(0) != n_ || truncated_.shape(0) != n_ || elapsed_.shape(0) != n_) {
      throw std::invalid_argument("BlockWriter: every output needs one row per env of the block");
    }
    rewards_.resize(n_);
    flags_.resize(2 * n_);
    steps_.resize(n_);
  }

  bool write(nb::list rewards, nb::list terminated, nb::list truncated, nb::list elapsed) {
    if (nb::len(rewards) != n_ || nb::len(terminated) != n_ || nb::len(truncated) != n_ || nb::len(elapsed) != n_) {
      return false;
    }
    for (size_t i = 0; i < n_; ++i) {
      PyObject* r = PyList_GET_ITEM(rewards.ptr(), static_cast<Py_ssize_t>(i));
      if (PyFloat_Check(r)) {
        rewards_[i] = PyFloat_AS_DOUBLE(r);
      } else if (PyLong_CheckExact(r)) {
        const double v = PyLong_AsDouble(r);
        if (v == -1.0 && PyErr_Occurred()) {
          PyErr_Clear();
          return false;
        }
        rewards_[i] = v;
      } else {
        return false;
      }
      PyObject* te = PyList_GET_ITEM(terminated.ptr(), static_cast<Py_ssize_t>(i));
      PyObject* tr = PyList_GET_ITEM(truncated.ptr(), static_cast<Py_ssize_t>(i));
      if ((te != Py_True && te != Py_False) || (tr != Py_True && tr != Py_False)) return false;
      flags_[2 * i] = te == Py_True;
      flags_[2 * i + 1] = tr == Py_True;
      PyObject* e = PyList_GET_ITEM(elapsed.ptr(), static_cast<Py_ssize_t>(i));
      if (!PyLong_CheckExact(e)) return false;
      const long v = PyLong_AsLong(e);
      if ((v == -1 && PyErr_Occurred()) || v < INT32_MIN || v > INT32_MAX) {
        PyErr_Clear();
        return false;
      }
      steps_[i] = static_cast<int32_t>(v);
    }
    for (size_t i = 0; i < n_; ++i) {
      reward_.data()[i] = rewards_[i];
      terminated_.data()[i] = flags_[2 * i];
      truncated_.data()[i] = flags_[2 * i + 1];
      elapsed_.data()[i] = steps_[i];
    }
    return true;
  }

 private:
  nb::ndarray<double, nb::ndim<1>, nb::c_contig, nb::device::cpu> reward_;
  nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> terminated_, truncated_;
  nb::ndarray<int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> elapsed_;
  size_t n_;
  std::vector<double> rewards_;
  std::vector<uint8_t> flags_;
  std::vector<int32_t> steps_;
};

// A worker's publication of its completion count (worker.py's contract with the parent's wait):
// store it; if the parent said it blocks (its flag, read after a full fence) and the workers
// together reached the total it waits for, write the parent's eventfd -- one wake-up per call,
// from the worker that completed it. Without skipped wake-ups (not x86-64) every publication
// writes it. `yield_core`: then give up the core once (the parent may be spinning on it).
class Publisher {
 public:
  Publisher(Words done_head, Words parent_waiting, Words want_total, int done_fd, int64_t index, int64_t workers,
            int64_t line_words, bool skip_wakeups)
      : done_head_(done_head), parent_waiting_(parent_waiting), want_total_(want_total), done_fd_(done_fd),
        at_(static_cast<size_t>(index * line_words)), workers_(static_cast<size_t>(workers)),
        line_(static_cast<size_t>(line_words)), skip_wakeups_(skip_wakeups) {
    if (index < 0 || workers <= 0 || line_words <= 0 || index >= workers || done_head_.shape(0) < workers_ * line_ ||
        parent_waiting_.shape(0) < 1 || want_total_.shape(0) < 1) {
      throw std::invalid_argument("Publisher: worker index or counter regions out of range");
    }
  }

  void publish(int64_t finished, bool yield_core) {
    store(done_head_.data() + at_, finished);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // publish before reading the parent's flag
    bool wake = !skip_wakeups_;
    if (!wake && load(parent_waiting_.data()) != 0) {
      int64_t total = 0;
      for (size_t w = 0; w < workers_; ++w) total += load(done_head_.data() + w * line_);
      wake = total >= load(want_total_.data());
    }
    if (wake) {
      const uint64_t one = 1;
      while (write(done_fd_, &one, sizeof one) < 0 && errno == EINTR) {
      }
    }
    if (yield_core) sched_yield();
  }

 private:
  Words done_head_, parent_waiting_, want_total_;
  int done_fd_;
  size_t at_, workers_, line_;
  bool skip_wakeups_;
};

}  // namespace

NB_MODULE(_procwire, m) {
  if (_import_array() < 0) throw nb::python_error();
  m.doc() = "The process backend's sync step in C++ (envhive.process.vector uses it when it can).";
  nb::class_<SyncWire>(m, "SyncWire")
      .def(nb::init<Words, Words, Words, Words, Words, Array, Bounds, Bounds, nb::list, std::vector<int>, int64_t,
                    int64_t, int64_t, bool>(),
           nb::arg("cmd_head"), nb::arg("cmd_ring"), nb::arg("done_head"), nb::arg("batch_flags"),
           nb::arg("worker_sleeping"), nb::arg("action"), nb::arg("low"), nb::arg("high"), nb::arg("handles"),
           nb::arg("command_fds"), nb::arg("capacity"), nb::arg("line_words"), nb::arg("step_block"),
           nb::arg("skip_wakeups"))
      .def("step", &SyncWire::step, nb::arg("actions"), nb::arg("spin_s"),
           "send() then wait(): the OR-ed batch flags, -1 if not done in spin_s, -2 if send() did not take them.")
      .def_prop_ro("waited_s", &SyncWire::waited_s);
  nb::class_<BlockWriter>(m, "BlockWriter")
      .def(nb::init<nb::ndarray<double, nb::ndim<1>, nb::c_contig, nb::device::cpu>,
                    nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>,
                    nb::ndarray<uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>,
                    nb::ndarray<int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>>(),
           nb::arg("reward"), nb::arg("terminated"), nb::arg("truncated"), nb::arg("elapsed"))
      .def("write", &BlockWriter::write, nb::arg("rewards"), nb::arg("terminated"), nb::arg("truncated"),
           nb::arg("elapsed"), "Write the block's lists; False (nothing written) unless every value is plain.");
  m.def("write_rows", &write_rows, nb::arg("observations"), nb::arg("out"),
        "Copy each numpy observation into its row of out; False (nothing written) unless each matches.");
  nb::class_<Publisher>(m, "Publisher")
      .def(nb::init<Words, Words, Words, int, int64_t, int64_t, int64_t, bool>(), nb::arg("done_head"),
           nb::arg("parent_waiting"), nb::arg("want_total"), nb::arg("done_fd"), nb::arg("index"), nb::arg("workers"),
           nb::arg("line_words"), nb::arg("skip_wakeups"))
      .def("publish", &Publisher::publish, nb::arg("finished"), nb::arg("yield_core"),
           "Publish the completion count, wake a blocked parent whose total it completes, then maybe yield.");
  nb::class_<CommandSpin>(m, "CommandSpin")
      .def(nb::init<Words, int64_t>(), nb::arg("cmd_head"), nb::arg("at"))
      .def("spin", &CommandSpin::spin, nb::arg("tail"), nb::arg("spin_s"),
           "Spin (yielding) until the command head moves past tail, at most spin_s seconds; True once it did.");
}
