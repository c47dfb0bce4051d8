// The official Procgen engine: the libenv.so of the procgen 0.10.7 wheel (Qt linked in statically,
// LGPL), loaded once per process with dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND), as gym3 loads
// it: its symbols stay out of the process's global scope, and its own (static Qt) are bound first.
// envhive never ships or builds the library: where it lies (a cache the wheel was unpacked into) is
// answered by a locator, the Python side's in the module (envhive.families.procgen.engine_files),
// a folder's in the loop bench. The locator runs on the first engine an env needs, not at import.
#pragma once

#include <functional>
#include <string>

#include "libenv_abi.h"

namespace envhive::procgen {

struct EngineFiles {
  std::string library;  // .../libenv.so
  std::string assets;   // .../assets/ (procgen's resource_root, with its trailing slash)
};
using EngineLocator = std::function<EngineFiles()>;

// Installed once (by the module's bindings, or the loop bench) before any env is made.
void set_engine_locator(EngineLocator locator);

// The loaded library's entry points.
struct EngineLibrary {
  std::string path, assets;
  abi::MakeFn make = nullptr;
  abi::TensorTypesFn tensor_types = nullptr;
  abi::SetBuffersFn set_buffers = nullptr;
  abi::HandleFn observe = nullptr, act = nullptr, close = nullptr;
};

// The library, located and loaded on the first call (throws std::runtime_error naming what failed:
// no locator, the locator's own error, dlopen's, a missing symbol or another libenv version). A
// failure is not remembered: the next call tries again.
const EngineLibrary& engine_library();

}  // namespace envhive::procgen
