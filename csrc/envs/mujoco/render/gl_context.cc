#include "gl_context.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

namespace envhive::mujoco {

const char* const kInstallHint =
    "headless rendering needs EGL with Mesa's software renderer (Debian/Ubuntu: apt-get install "
    "libegl1 libegl-mesa0 libgl1-mesa-dri, which envhive's `make install` does) or OSMesa (apt-get install "
    "libosmesa6); on an NVIDIA "
    "machine the driver's libEGL is used. $MUJOCO_GL=egl|osmesa picks one.";

namespace {

// ---- the few EGL / OSMesa declarations we call through dlsym (values from the Khronos and Mesa
// registries; no GL headers are needed to build) ----
using EGLDisplay = void*;
using EGLConfig = void*;
using EGLContext = void*;
using EGLSurface = void*;
using EGLDeviceEXT = void*;
using EGLint = int32_t;
using EGLBoolean = unsigned;
using EGLenum = unsigned;

constexpr EGLint kEglNone = 0x3038;
constexpr EGLint kEglSuccess = 0x3000;
constexpr EGLint kEglRedSize = 0x3024, kEglGreenSize = 0x3023, kEglBlueSize = 0x3022, kEglAlphaSize = 0x3021;
constexpr EGLint kEglDepthSize = 0x3025, kEglStencilSize = 0x3026;
constexpr EGLint kEglColorBufferType = 0x303F, kEglRgbBuffer = 0x308E;
constexpr EGLint kEglSurfaceType = 0x3033, kEglPbufferBit = 0x0001;
constexpr EGLint kEglRenderableType = 0x3040, kEglOpenglBit = 0x0008;
constexpr EGLenum kEglOpenglApi = 0x30A2;
constexpr EGLint kEglVendor = 0x3053, kEglVersion = 0x3054, kEglExtensions = 0x3055;
constexpr EGLint kEglDraw = 0x3059, kEglRead = 0x305A;
constexpr EGLenum kEglPlatformDeviceExt = 0x313F;
constexpr EGLenum kEglPlatformSurfacelessMesa = 0x31DD;

// OSMesa (GL enums it takes, and its own query names).
using OSMesaContext = void*;
constexpr unsigned kGlRgba = 0x1908, kGlUnsignedByte = 0x1401;
constexpr int kOsmesaType = 0x23;  // OSMesaGetIntegerv: the bound buffer's type
// The framebuffer MuJoCo's offscreen renderer needs (its own FBO aside): 8-bit RGBA, 24-bit depth,
// 8-bit stencil, as MuJoCo's Python EGL and OSMesa contexts ask for.
constexpr EGLint kColorBits = 8, kDepthBits = 24, kStencilBits = 8;
// The most EGL devices looked at (eglQueryDevicesEXT); a machine has a few.
constexpr EGLint kMaxEglDevices = 16;

struct EglApi {
  using GetProcAddress = void* (*)(const char*);
  GetProcAddress eglGetProcAddress;
  EGLint (*eglGetError)();
  EGLBoolean (*eglInitialize)(EGLDisplay, EGLint*, EGLint*);
  EGLBoolean (*eglTerminate)(EGLDisplay);
  const char* (*eglQueryString)(EGLDisplay, EGLint);
  EGLBoolean (*eglChooseConfig)(EGLDisplay, const EGLint*, EGLConfig*, EGLint, EGLint*);
  EGLBoolean (*eglBindAPI)(EGLenum);
  EGLenum (*eglQueryAPI)();
  EGLContext (*eglCreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint*);
  EGLBoolean (*eglDestroyContext)(EGLDisplay, EGLContext);
  EGLBoolean (*eglMakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
  EGLContext (*eglGetCurrentContext)();
  EGLDisplay (*eglGetCurrentDisplay)();
  EGLSurface (*eglGetCurrentSurface)(EGLint);
  // extensions, through eglGetProcAddress
  EGLBoolean (*eglQueryDevicesEXT)(EGLint, EGLDeviceEXT*, EGLint*) = nullptr;
  const char* (*eglQueryDeviceStringEXT)(EGLDeviceEXT, EGLint) = nullptr;
  EGLDisplay (*eglGetPlatformDisplayEXT)(EGLenum, void*, const EGLint*) = nullptr;
};

struct OsmesaApi {
  OSMesaContext (*OSMesaCreateContextExt)(unsigned, int, int, int, OSMesaContext);
  void (*OSMesaDestroyContext)(OSMesaContext);
  unsigned char (*OSMesaMakeCurrent)(OSMesaContext, void*, unsigned, int, int);
  OSMesaContext (*OSMesaGetCurrentContext)();
  void (*OSMesaGetIntegerv)(int, int*);
  unsigned char (*OSMesaGetColorBuffer)(OSMesaContext, int*, int*, int*, void**);
};

template <class F>
bool load(void* lib, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

std::string hex(EGLint v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04X", static_cast<unsigned>(v));
  return buf;
}

// Opens `names` in turn with RTLD_LOCAL (nothing leaks into the global namespace until the
// platform is known to work). Returns null and appends dlerror() to `why` on failure.
void* open_first(std::initializer_list<const char*> names, std::string& why) {
  for (const char* n : names) {
    if (void* h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
    why += std::string(" ") + dlerror() + ";";
  }
  return nullptr;
}

// Promotes an already loaded library to RTLD_GLOBAL, so MuJoCo's GLAD finds its GetProcAddress.
void promote_global(const char* name) { dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL); }

// ---------------------------------------------------------------------------------------------
class EglContext final : public GlContext {
 public:
  EglContext(const EglApi& api, EGLDisplay display, EGLContext ctx) : api_(api), display_(display), ctx_(ctx) {}
  ~EglContext() override {
    if (api_.eglGetCurrentContext() == ctx_) api_.eglMakeCurrent(display_, nullptr, nullptr, nullptr);
    api_.eglDestroyContext(display_, ctx_);
  }

 private:
  // eglBindAPI is per-thread state (a new thread starts with OpenGL ES bound), and the "current
  // context" EGL reports is the one of the bound API: so bind desktop GL before asking.
  Saved save_current() const override {
    Saved s;
    s.api = api_.eglQueryAPI();
    api_.eglBindAPI(kEglOpenglApi);
    s.context = api_.eglGetCurrentContext();
    s.display = api_.eglGetCurrentDisplay();
    s.draw = api_.eglGetCurrentSurface(kEglDraw);
    s.read = api_.eglGetCurrentSurface(kEglRead);
    return s;
  }
  void make_current() override {
    if (api_.eglGetCurrentContext() == ctx_) return;
    // No surface: MuJoCo draws into its own offscreen framebuffer object (EGL_KHR_surfaceless_context).
    if (!api_.eglMakeCurrent(display_, nullptr, nullptr, ctx_))
      throw RenderUnavailable("eglMakeCurrent failed (EGL error " + hex(api_.eglGetError()) + ")");
  }
  void restore(const Saved& s) noexcept override {
    if (s.context != ctx_) {
      if (s.context)
        api_.eglMakeCurrent(s.display, s.draw, s.read, s.context);
      else
        api_.eglMakeCurrent(display_, nullptr, nullptr, nullptr);  // release: another thread may take it
    }
    api_.eglBindAPI(s.api);
  }

  const EglApi& api_;
  EGLDisplay display_;
  EGLContext ctx_;
};

class EglPlatform final : public GlPlatform {
 public:
  // Throws RenderUnavailable (with the reason) when EGL cannot give a headless display.
  EglPlatform() {
    std::string why;
    lib_ = open_first({"libEGL.so.1", "libEGL.so"}, why);
    if (!lib_) throw RenderUnavailable("cannot load libEGL:" + why);
    bool ok = load(lib_, "eglGetProcAddress", api_.eglGetProcAddress) && load(lib_, "eglGetError", api_.eglGetError) &&
              load(lib_, "eglInitialize", api_.eglInitialize) && load(lib_, "eglTerminate", api_.eglTerminate) &&
              load(lib_, "eglQueryString", api_.eglQueryString) &&
              load(lib_, "eglChooseConfig", api_.eglChooseConfig) && load(lib_, "eglBindAPI", api_.eglBindAPI) &&
              load(lib_, "eglQueryAPI", api_.eglQueryAPI) && load(lib_, "eglCreateContext", api_.eglCreateContext) &&
              load(lib_, "eglDestroyContext", api_.eglDestroyContext) &&
              load(lib_, "eglMakeCurrent", api_.eglMakeCurrent) &&
              load(lib_, "eglGetCurrentContext", api_.eglGetCurrentContext) &&
              load(lib_, "eglGetCurrentDisplay", api_.eglGetCurrentDisplay) &&
              load(lib_, "eglGetCurrentSurface", api_.eglGetCurrentSurface);
    if (!ok) throw RenderUnavailable("libEGL lacks EGL 1.4 entry points");
    api_.eglQueryDevicesEXT = reinterpret_cast<decltype(api_.eglQueryDevicesEXT)>(api_.eglGetProcAddress("eglQueryDevicesEXT"));
    api_.eglQueryDeviceStringEXT =
        reinterpret_cast<decltype(api_.eglQueryDeviceStringEXT)>(api_.eglGetProcAddress("eglQueryDeviceStringEXT"));
    api_.eglGetPlatformDisplayEXT =
        reinterpret_cast<decltype(api_.eglGetPlatformDisplayEXT)>(api_.eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!api_.eglGetPlatformDisplayEXT) throw RenderUnavailable("EGL has no EGL_EXT_platform_base");

    open_display(why);
    if (!display_) throw RenderUnavailable("no EGL display could be initialised:" + why);

    const EGLint attribs[] = {kEglRedSize,   kColorBits, kEglGreenSize, kColorBits,  kEglBlueSize,    kColorBits,
                              kEglAlphaSize, kColorBits, kEglDepthSize, kDepthBits,  kEglStencilSize, kStencilBits,
                              kEglColorBufferType, kEglRgbBuffer, kEglSurfaceType, kEglPbufferBit,
                              kEglRenderableType, kEglOpenglBit, kEglNone};
    EGLint n = 0;
    if (!api_.eglChooseConfig(display_, attribs, &config_, 1, &n) || n < 1)
      throw RenderUnavailable("EGL has no RGBA8 / depth 24 / stencil 8 desktop-OpenGL config");
    const char* vendor = api_.eglQueryString(display_, kEglVendor);
    const char* version = api_.eglQueryString(display_, kEglVersion);
    description_ = std::string("EGL ") + (version ? version : "?") + " (" + (vendor ? vendor : "?") + "), " +
                   display_kind_;
    promote_global("libEGL.so.1");
  }
  ~EglPlatform() override {
    // Left initialised on purpose: the platform lives until process exit (other libraries in the
    // process -- e.g. MuJoCo's Python EGL context -- may share the same display).
  }

  GlBackend backend() const override { return GlBackend::kEgl; }
  std::string describe() const override { return description_; }

  std::unique_ptr<GlContext> create_context() override {
    api_.eglBindAPI(kEglOpenglApi);  // per thread
    EGLContext ctx = api_.eglCreateContext(display_, config_, nullptr, nullptr);
    if (!ctx) throw RenderUnavailable("eglCreateContext failed (EGL error " + hex(api_.eglGetError()) + ")");
    return std::make_unique<EglContext>(api_, display_, ctx);
  }

 private:
  // As MuJoCo's own Python EGL backend (and so Gymnasium): the first EGL device that initialises,
  // or $MUJOCO_EGL_DEVICE_ID's. Mesa lists its software (llvmpipe) device there too; Mesa's
  // surfaceless platform is the fallback when the device extension is missing.
  void open_display(std::string& why) {
    if (api_.eglQueryDevicesEXT) {
      EGLDeviceEXT devices[kMaxEglDevices];
      EGLint n = 0;
      if (api_.eglQueryDevicesEXT(kMaxEglDevices, devices, &n) && n > 0) {
        int first = 0, last = n - 1;
        if (const char* id = std::getenv("MUJOCO_EGL_DEVICE_ID")) {
          char* end = nullptr;
          const long v = std::strtol(id, &end, 10);
          if (*id == '\0' || *end != '\0' || v < 0 || v >= n)
            throw RenderUnavailable("MUJOCO_EGL_DEVICE_ID must be an integer in [0, " + std::to_string(n - 1) +
                                    "], got '" + id + "'");
          first = last = static_cast<int>(v);
        }
        for (int i = first; i <= last; ++i) {
          EGLDisplay d = api_.eglGetPlatformDisplayEXT(kEglPlatformDeviceExt, devices[i], nullptr);
          if (d && api_.eglGetError() == kEglSuccess && api_.eglInitialize(d, nullptr, nullptr)) {
            display_ = d;
            const char* ext = api_.eglQueryDeviceStringEXT ? api_.eglQueryDeviceStringEXT(devices[i], kEglExtensions) : nullptr;
            display_kind_ = "device " + std::to_string(i) + " of " + std::to_string(n) +
                            (ext && std::strstr(ext, "EGL_MESA_device_software") ? " (Mesa software)" : "");
            return;
          }
          why += " device " + std::to_string(i) + ": EGL error " + hex(api_.eglGetError()) + ";";
        }
      } else {
        why += " eglQueryDevicesEXT found no device;";
      }
    } else {
      why += " no EGL_EXT_device_enumeration;";
    }
    EGLDisplay d = api_.eglGetPlatformDisplayEXT(kEglPlatformSurfacelessMesa, nullptr, nullptr);
    if (d && api_.eglInitialize(d, nullptr, nullptr)) {
      display_ = d;
      display_kind_ = "Mesa surfaceless platform";
      return;
    }
    why += " surfaceless: EGL error " + hex(api_.eglGetError()) + ";";
  }

  void* lib_ = nullptr;
  EglApi api_{};
  EGLDisplay display_ = nullptr;
  EGLConfig config_ = nullptr;
  std::string display_kind_, description_;
};

// ---------------------------------------------------------------------------------------------
class OsmesaGlContext final : public GlContext {
 public:
  OsmesaGlContext(const OsmesaApi& api, OSMesaContext ctx) : api_(api), ctx_(ctx) {}
  ~OsmesaGlContext() override {
    if (api_.OSMesaGetCurrentContext() == ctx_) api_.OSMesaMakeCurrent(nullptr, nullptr, kGlUnsignedByte, 0, 0);
    api_.OSMesaDestroyContext(ctx_);
  }

 private:
  // OSMesa binds a context together with its colour buffer; to give a foreign context back we
  // read its buffer, size and type through OSMesaGetColorBuffer / OSMesaGetIntegerv.
  Saved save_current() const override {
    Saved s;
    s.context = api_.OSMesaGetCurrentContext();
    if (s.context && s.context != ctx_) {
      int format = 0, type = 0;
      api_.OSMesaGetColorBuffer(s.context, &s.width, &s.height, &format, &s.buffer);
      api_.OSMesaGetIntegerv(kOsmesaType, &type);
      s.type = static_cast<unsigned>(type);
    }
    return s;
  }
  void make_current() override {
    // MuJoCo draws into its own framebuffer object; the window buffer only has to exist.
    if (!api_.OSMesaMakeCurrent(ctx_, pixel_, kGlUnsignedByte, 1, 1))
      throw RenderUnavailable("OSMesaMakeCurrent failed");
  }
  void restore(const Saved& s) noexcept override {
    if (s.context == ctx_) return;
    if (s.context)
      api_.OSMesaMakeCurrent(s.context, s.buffer, s.type, s.width, s.height);
    else
      api_.OSMesaMakeCurrent(nullptr, nullptr, kGlUnsignedByte, 0, 0);
  }

  const OsmesaApi& api_;
  OSMesaContext ctx_;
  alignas(16) unsigned char pixel_[16] = {};
};

class OsmesaPlatform final : public GlPlatform {
 public:
  OsmesaPlatform() {
    std::string why;
    lib_ = open_first({"libOSMesa.so.8", "libOSMesa.so.6", "libOSMesa.so"}, why);
    if (!lib_) throw RenderUnavailable("cannot load libOSMesa:" + why);
    const bool ok = load(lib_, "OSMesaCreateContextExt", api_.OSMesaCreateContextExt) &&
                    load(lib_, "OSMesaDestroyContext", api_.OSMesaDestroyContext) &&
                    load(lib_, "OSMesaMakeCurrent", api_.OSMesaMakeCurrent) &&
                    load(lib_, "OSMesaGetCurrentContext", api_.OSMesaGetCurrentContext) &&
                    load(lib_, "OSMesaGetIntegerv", api_.OSMesaGetIntegerv) &&
                    load(lib_, "OSMesaGetColorBuffer", api_.OSMesaGetColorBuffer);
    if (!ok) throw RenderUnavailable("libOSMesa lacks OSMesa entry points");
    Dl_info info{};
    const char* path = dladdr(reinterpret_cast<void*>(api_.OSMesaCreateContextExt), &info) ? info.dli_fname : "?";
    description_ = std::string("OSMesa (") + path + ")";
    for (const char* n : {"libOSMesa.so.8", "libOSMesa.so.6", "libOSMesa.so"}) promote_global(n);
  }
  GlBackend backend() const override { return GlBackend::kOsmesa; }
  std::string describe() const override { return description_; }
  std::unique_ptr<GlContext> create_context() override {
    OSMesaContext ctx = api_.OSMesaCreateContextExt(kGlRgba, kDepthBits, kStencilBits, 0, nullptr);
    if (!ctx) throw RenderUnavailable("OSMesaCreateContextExt failed");
    return std::make_unique<OsmesaGlContext>(api_, ctx);
  }

 private:
  void* lib_ = nullptr;
  OsmesaApi api_{};
  std::string description_;
};

// $MUJOCO_GL as MuJoCo's GLAD reads it: "egl" / "osmesa" force that platform; anything else
// (unset, glfw, glx) tries EGL, then OSMesa.
std::unique_ptr<GlPlatform> open_platform() {
  const char* env = std::getenv("MUJOCO_GL");
  const std::string want = env ? env : "";
  std::string errors;
  if (want != "osmesa") {
    try {
      return std::make_unique<EglPlatform>();
    } catch (const RenderUnavailable& e) {
      errors += std::string(" EGL: ") + e.what() + ".";
      if (want == "egl") throw RenderUnavailable("cannot render (MUJOCO_GL=egl):" + errors + " " + kInstallHint);
    }
  }
  try {
    auto p = std::make_unique<OsmesaPlatform>();
    // GLAD tries eglGetProcAddress first unless MUJOCO_GL=osmesa: if someone made libEGL global,
    // MuJoCo would load EGL's functions for our OSMesa context.
    if (want != "osmesa" && dlsym(RTLD_DEFAULT, "eglGetProcAddress"))
      throw RenderUnavailable("EGL is loaded in this process but unusable, and OSMesa would be used: set "
                              "MUJOCO_GL=osmesa so MuJoCo loads OSMesa's GL functions");
    return p;
  } catch (const RenderUnavailable& e) {
    errors += std::string(" OSMesa: ") + e.what() + ".";
  }
  throw RenderUnavailable("cannot render:" + errors + " " + kInstallHint);
}

}  // namespace

GlPlatform& GlPlatform::get() {
  // Not a function-local static: a failure must be re-reported (not retried) on every call.
  static std::once_flag once;
  static std::unique_ptr<GlPlatform> platform;
  static std::string error;
  std::call_once(once, [] {
    try {
      platform = open_platform();
    } catch (const RenderUnavailable& e) {
      error = e.what();
    }
  });
  if (!platform) throw RenderUnavailable(error);
  return *platform;
}

}  // namespace envhive::mujoco
