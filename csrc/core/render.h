// What the pool gives a task's renderer (Env::render): a slot per pool thread for the state a
// renderer keeps between frames (a GL context, uploaded meshes, a cache of scaled sprites), and the
// images renderers draw, read once per process.
//
// Nothing here is touched unless render() is called: a pool made with render_mode set but never
// rendered creates no state, loads no image and no GL library.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace envhive {

// No frame can be drawn in this process: no GL platform library could be loaded (a renderer's
// message names what to install). Wherever it reaches Python -- render(), or making a pool whose
// observations are frames -- it is envhive.RenderError.
class RenderUnavailableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// State a renderer keeps on one pool thread between frames and between render calls. begin() runs
// before the first frame a thread draws in a render call and end() after its last (a GL renderer
// makes its context current there, then gives the thread back whatever it had current).
class RenderState {
 public:
  virtual ~RenderState() = default;
  virtual void begin() {}
  virtual void end() noexcept {}
};

// One pool thread's render state: made by the first frame that asks for it on that thread, kept
// until the pool closes. Only its own thread touches a slot while a render call runs.
class RenderSlot {
 public:
  RenderSlot() = default;
  RenderSlot(const RenderSlot&) = delete;
  RenderSlot& operator=(const RenderSlot&) = delete;
  ~RenderSlot() { release(); }

  // The slot's state as an S, made by `make()` (returning std::unique_ptr<S>) on first use and
  // begun for this render call. A throwing make() leaves the slot empty (the next frame retries).
  template <class S, class Make>
  S& state(Make&& make) {
    if (!state_) state_ = make();
    auto* s = dynamic_cast<S*>(state_.get());
    if (!s) throw std::logic_error(std::string("render slot holds another renderer's state, not ") + typeid(S).name());
    if (!begun_) {
      s->begin();
      begun_ = true;
    }
    return *s;
  }
  // After a thread's last frame of a render call.
  void end() noexcept {
    if (begun_) {
      begun_ = false;
      state_->end();
    }
  }
  // Frees the state (the pool is closing; no thread renders any more).
  void release() noexcept {
    end();
    state_.reset();
  }
  bool empty() const { return !state_; }

 private:
  std::unique_ptr<RenderState> state_;
  bool begun_ = false;
};

// The calling thread's own slot, for frames a task draws inside reset() / step() (observations that
// are frames). Any thread may step an env -- a pool worker, the waiting caller, a guest of an XLA
// call -- so each has its slot, made empty with the thread and freed when it exits (a pool's
// workers at close(), with their GL contexts, on their own thread). Unlike the pool's slots
// (Env::render), nothing ends it between calls: a task ends it after each frame, so the thread gets
// back what it had current. What its state caches must live as long as the thread (a family's
// models cached for the process, say), not only as long as one pool.
inline RenderSlot& thread_render_slot() {
  thread_local RenderSlot slot;
  return slot;
}

// An RGBA image, rows top first, 4 bytes per pixel.
struct RgbaImage {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4
};

// The images renderers draw (TaskMeta::render_images names them and their files), each read once
// per process: the bindings decode missing ones (with the GIL, before a render call starts) and
// put them here; renderers read them from any thread.
class RenderImages {
 public:
  static RenderImages& get() {
    static RenderImages* images = new RenderImages();  // never destroyed: pool threads may read it at exit
    return *images;
  }
  bool has(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    return images_.count(name) != 0;
  }
  void put(const std::string& name, RgbaImage image) {
    auto p = std::make_shared<const RgbaImage>(std::move(image));
    std::lock_guard<std::mutex> lock(mu_);
    images_[name] = std::move(p);
  }
  // Throws std::runtime_error when the image was never loaded.
  std::shared_ptr<const RgbaImage> find(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = images_.find(name);
    if (it == images_.end()) throw std::runtime_error("render image '" + name + "' was not loaded");
    return it->second;
  }

 private:
  RenderImages() = default;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const RgbaImage>> images_;  // guarded by mu_
};

}  // namespace envhive
