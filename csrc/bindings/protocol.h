// What a module says about itself when it loads; envhive.catalog checks it and refuses a module
// built for another envhive (a plug-in built against an older release, say) with an error naming
// both versions and the rebuild command.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#ifndef ENVHIVE_VERSION_STRING
#error "ENVHIVE_VERSION_STRING must be defined by the build (envhive_add_module / envhive_add_family)"
#endif

namespace envhive::bindings {

// The interface between a module and envhive's Python package; bump it whenever module.cc,
// native_pool.cc or spec_types.cc change what Python sees.
inline constexpr int kProtocol = 4;

// The compiler, binding library and C++ runtime a module was built with, as
// "<compiler>-<major>.<minor> nanobind-<major>.<minor> <runtime>" (its manifest records it; envhive.catalog
// compares the nanobind major version and the runtime with envhive's own and names all of it in errors).
inline std::string build_abi() {
  std::string abi;
#if defined(__clang__)
  abi += "clang-" + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__);
#elif defined(__GNUC__)
  abi += "gcc-" + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__);
#else
  abi += "unknown-compiler";
#endif
  abi += " nanobind-" + std::to_string(NB_VERSION_MAJOR) + "." + std::to_string(NB_VERSION_MINOR);
  // The C++ runtime: envhive.catalog refuses a module whose runtime differs from envhive's own.
#if defined(_LIBCPP_VERSION)
  abi += " libc++";
#elif defined(_GLIBCXX_USE_CXX11_ABI)
  abi += " libstdcxx-abi" + std::to_string(_GLIBCXX_USE_CXX11_ABI);
#endif
  return abi;
}

}  // namespace envhive::bindings
