#include "engine_library.h"

#include <dlfcn.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace envhive::procgen {

namespace {

std::mutex& library_mutex() {
  static std::mutex mu;
  return mu;
}
EngineLocator& locator_slot() {
  static EngineLocator locator;
  return locator;
}

template <class Fn>
Fn symbol(void* handle, const char* name, const std::string& path) {
  dlerror();
  void* p = dlsym(handle, name);
  if (!p) {
    const char* why = dlerror();
    throw std::runtime_error("procgen: " + path + " has no symbol " + name + " (" + (why ? why : "null") +
                             "): not the libenv.so of the procgen 0.10.7 wheel");
  }
  return reinterpret_cast<Fn>(p);
}

std::unique_ptr<EngineLibrary> load(const EngineFiles& files) {
  // RTLD_DEEPBIND: the library's references resolve to its own definitions first, so a Qt that
  // another extension put in the global scope never replaces the one linked into it.
  void* handle = dlopen(files.library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!handle) {
    const char* why = dlerror();
    throw std::runtime_error("procgen: cannot load the engine library " + files.library + ": " +
                             (why ? why : "dlopen failed") +
                             " (it needs the system's glib: libglib2.0-0 on Debian/Ubuntu, `make install` adds it)");
  }
  auto lib = std::make_unique<EngineLibrary>();
  lib->path = files.library;
  lib->assets = files.assets;
  const auto version = symbol<abi::VersionFn>(handle, "libenv_version", files.library);
  if (const int v = version(); v != abi::kVersion)
    throw std::runtime_error("procgen: " + files.library + " implements libenv version " + std::to_string(v) +
                             ", envhive drives version " + std::to_string(abi::kVersion));
  lib->make = symbol<abi::MakeFn>(handle, "libenv_make", files.library);
  lib->tensor_types = symbol<abi::TensorTypesFn>(handle, "libenv_get_tensortypes", files.library);
  lib->set_buffers = symbol<abi::SetBuffersFn>(handle, "libenv_set_buffers", files.library);
  lib->observe = symbol<abi::HandleFn>(handle, "libenv_observe", files.library);
  lib->act = symbol<abi::HandleFn>(handle, "libenv_act", files.library);
  lib->close = symbol<abi::HandleFn>(handle, "libenv_close", files.library);
  return lib;  // never dlclose'd: the engine keeps process-wide state (its loaded images)
}

}  // namespace

void set_engine_locator(EngineLocator locator) {
  std::lock_guard<std::mutex> lock(library_mutex());
  locator_slot() = std::move(locator);
}

const EngineLibrary& engine_library() {
  static std::unique_ptr<EngineLibrary> loaded;
  std::lock_guard<std::mutex> lock(library_mutex());
  if (loaded) return *loaded;
  if (!locator_slot()) throw std::runtime_error("procgen: no engine locator installed (an envhive build error)");
  EngineFiles files = locator_slot()();
  if (files.assets.empty() || files.assets.back() != '/') files.assets += '/';
  loaded = load(files);
  return *loaded;
}

}  // namespace envhive::procgen
