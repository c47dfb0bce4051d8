// The binary interface of an environment library in gym3's libenv convention, version 1 (the one
// the official procgen 0.10.7 wheel's libenv.so implements): plain C functions over an opaque
// handle, options passed by value as a list of named values, and buffers the caller owns. These are
// envhive's declarations of that layout (sizes checked below), not gym3's header.
#pragma once

#include <cstddef>
#include <cstdint>

namespace envhive::procgen::abi {

inline constexpr int kVersion = 1;         // what libenv_version() must return
inline constexpr int kMaxNameLength = 128;  // bytes of a name, terminator included
inline constexpr int kMaxDims = 16;

enum DType : int { kDTypeUnused = 0, kDTypeUInt8 = 1, kDTypeInt32 = 2, kDTypeFloat32 = 3 };
enum ScalarType : int { kScalarUnused = 0, kScalarReal = 1, kScalarDiscrete = 2 };
enum SpaceName : int { kSpaceUnused = 0, kSpaceObservation = 1, kSpaceAction = 2, kSpaceInfo = 3 };

union Value {
  uint8_t uint8;
  int32_t int32;
  float float32;
};

// One named array of a space (an observation, action or info entry), per env.
struct TensorType {
  char name[kMaxNameLength];
  ScalarType scalar_type;
  DType dtype;
  int shape[kMaxDims];
  int ndim;
  Value low;
  Value high;
};

// A named option: `count` values of `dtype` at `data` (a string is count uint8 bytes, unterminated).
struct Option {
  char name[kMaxNameLength];
  DType dtype;
  int count;
  void* data;
};

struct Options {
  Option* items;
  int count;
};

// Where the library writes (ob, rew, first, info) and reads (ac): arrays of pointers, one per
// space entry per env (entry-major), all owned by the caller for the life of the instance.
struct Buffers {
  void** ob;
  float* rew;
  uint8_t* first;
  void** info;
  void** ac;
};

using VersionFn = int (*)();
using MakeFn = void* (*)(int num, Options options);
using TensorTypesFn = int (*)(void* handle, SpaceName name, TensorType* out);
using SetBuffersFn = void (*)(void* handle, Buffers* buffers);
using HandleFn = void (*)(void* handle);  // libenv_observe, libenv_act, libenv_close

static_assert(sizeof(TensorType) == 212, "libenv_tensortype is 212 bytes in the version 1 ABI");
static_assert(sizeof(Option) == 144 && offsetof(Option, data) == 136, "libenv_option layout");
static_assert(sizeof(Options) == 16 && sizeof(Buffers) == 40, "libenv_options / libenv_buffers layout");

}  // namespace envhive::procgen::abi
