// Headless OpenGL contexts for MuJoCo's renderer, loaded at run time.
//
// Nothing here links against GL: the platform library (libEGL.so.1, else libOSMesa.so.8/6) is
// dlopen'ed the first time a context is asked for, so a module built with this code imports on
// machines without any GL and only rendering fails there, with an error naming the Debian
// packages to install.
//
// MuJoCo resolves GL functions itself (GLAD inside libmujoco, at every mjr_makeContext): it looks
// up `eglGetProcAddress`, `OSMesaGetProcAddress` or `glXGetProcAddressARB` in the process' global
// symbol table (dlopen(NULL)); $MUJOCO_GL = egl | osmesa | glx picks which one is tried first,
// otherwise EGL, then OSMesa, then GLX. So the library we pick is promoted to RTLD_GLOBAL once it
// works, and the backend is chosen the same way MuJoCo's lookup will choose it.
//
// Contexts are per thread: a GlContext is current on at most one thread at a time. The pool keeps
// one per rendering thread (SceneRenderer, in that thread's RenderSlot), created by its first
// frame; begin() makes it current for one render call and end() restores whatever the thread had
// current before (a Python thread may hold its own context, e.g. Gymnasium's renderer).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "../../../core/render.h"

namespace envhive::mujoco {

// Rendering is impossible in this process (no GL platform library, no usable display/device).
class RenderUnavailable : public RenderUnavailableError {
 public:
  using RenderUnavailableError::RenderUnavailableError;
};

enum class GlBackend { kEgl, kOsmesa };

class GlContext {
 public:
  virtual ~GlContext() = default;
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;

  // Makes this context current on the calling thread, remembering what the thread had current;
  // end() puts that back (and releases this context, so another thread may take it next time).
  void begin() {
    saved_ = save_current();
    try {
      make_current();
    } catch (...) {
      restore(saved_);
      throw;
    }
  }
  void end() noexcept { restore(saved_); }

 protected:
  GlContext() = default;
  // What the calling thread had current before make_current(), for restore().
  struct Saved {
    void* context = nullptr;
    void* display = nullptr;  // EGL
    void* draw = nullptr;     // EGL
    void* read = nullptr;     // EGL
    unsigned api = 0;         // EGL: the thread's bound client API
    void* buffer = nullptr;   // OSMesa: the colour buffer bound with the context
    int width = 0, height = 0;
    unsigned type = 0;
  };
  virtual Saved save_current() const = 0;
  virtual void make_current() = 0;
  virtual void restore(const Saved& saved) noexcept = 0;

 private:
  Saved saved_;
};

// The process-wide GL platform: which library, which EGL display. Thread-safe.
class GlPlatform {
 public:
  // Loads and initialises the platform on first use; throws RenderUnavailable on failure.
  static GlPlatform& get();
  virtual ~GlPlatform() = default;
  virtual GlBackend backend() const = 0;
  // E.g. "EGL 1.5 (Mesa Project), device platform" -- for error messages and benchmarks.
  virtual std::string describe() const = 0;
  // A new context (not current anywhere). Safe from any thread.
  virtual std::unique_ptr<GlContext> create_context() = 0;
};

// The text every "cannot render" error ends with.
extern const char* const kInstallHint;

}  // namespace envhive::mujoco
