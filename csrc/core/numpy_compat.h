// Arithmetic exactly as NumPy 2 / CPython perform it, for tasks that must match Gymnasium's Python
// implementations bit for bit (every family uses it; it is part of the task SDK).
//
// - py_pow / py_powf: what `x ** 2` does on a Python float / np.float64 (glibc pow) and on an
//   np.float32 (glibc powf). glibc's pow is not correctly rounded (~0.52 ulp), so `x ** 2` and
//   `x * x` differ in about 0.1% of cases; GCC would rewrite pow(x, 2.0) into x * x, so the
//   exponent is hidden from the optimiser.
// - py_mod: Python's / NumPy's float `%` (fmod adjusted to the sign of the divisor).
// - np_sinf / np_cosf: NumPy's float32 sin/cos ufunc loops on CPUs with FMA3 (x86-64-v3 and up,
//   and ARM64): Cody-Waite reduction + minimax polynomials with FMA. Tasks call numpy's own loop
//   (npk::scalar_f32 in numpy_kernels.h), which is this on such CPUs and something else on others;
//   this is its fallback without Python. float64 np.sin/np.cos are libm's sin/cos in NumPy 2.x
//   (tests/test_numpy_kernels.py checks it on the running CPU).
// - f32: a bound Gymnasium declares as a float32 array, as the double it rounds to.
// - np_sum / np_sum_squares / np_clip: numpy's pairwise summation and friends (deterministic on every
//   CPU; np.linalg.norm, np.dot and numpy's transcendental functions are not: numpy_kernels.h).
// - NpScalar: a double-or-float32 scalar that follows NEP 50 promotion, for code paths whose
//   dtypes change from step to step (MountainCarContinuous).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace envhive::npcompat {

// math.pi / np.pi
inline constexpr double kPi = 3.141592653589793;
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// A Gymnasium bound given as a float32 array (np.array(..., dtype=np.float32)): the float32-rounded
// value, kept as a double. The volatile keeps GCC 12's SLP vectorizer from dropping the
// double -> float -> double round trip.
inline double f32(double v) {
  volatile float rounded = static_cast<float>(v);
  return static_cast<double>(rounded);
}

// numpy's pairwise summation (add.reduce over a contiguous array) of at(0) .. at(n - 1), with
// accumulation in T: 8 partial sums in blocks of 128, halves above that.
template <class T, class At>
T np_sum(size_t n, const At& at, size_t offset = 0) {
  if (n < 8) {
    T res = 0;
    for (size_t i = 0; i < n; ++i) res += at(offset + i);
    return res;
  }
  if (n <= 128) {
    T r[8];
    for (size_t j = 0; j < 8; ++j) r[j] = at(offset + j);
    size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (size_t j = 0; j < 8; ++j) r[j] += at(offset + i + j);
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += at(offset + i);
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return np_sum<T>(n2, at, offset) + np_sum<T>(n - n2, at, offset + n2);
}

// np.sum(np.square(a)) for a contiguous array (float32 stays float32, as in numpy).
template <class T>
T np_sum_squares(const T* a, size_t n) {
  return np_sum<T>(n, [a](size_t i) { return a[i] * a[i]; });
}

// np.clip for one value (NaN propagates, as in numpy).
inline double np_clip(double v, double lo, double hi) {
  if (std::isnan(v)) return v;
  return v < lo ? lo : (v > hi ? hi : v);
}

// np.sum(np.square(np.clip(a, lo, hi))).
inline double np_sum_squares_clipped(const double* a, size_t n, double lo, double hi) {
  return np_sum<double>(n, [a, lo, hi](size_t i) {
    const double v = np_clip(a[i], lo, hi);
    return v * v;
  });
}

// Keep the compiler from treating `v` as a known constant (so pow(x, 2.0) stays a pow call).
template <typename T>
inline T opaque(T v) {
#if defined(__GNUC__) || defined(__clang__)
  asm volatile("" : "+m"(v));
#endif
  return v;
}

inline double py_pow(double x, double y) { return std::pow(x, opaque(y)); }
inline float py_powf(float x, float y) { return ::powf(x, opaque(y)); }

// CPython float_rem / NumPy npy_remainder.
inline double py_mod(double a, double b) {
  double mod = std::fmod(a, b);
  if (b == 0.0) return mod;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

// NumPy's SIMD float32 sine/cosine (numpy/_core/src/umath/loops_trigonometric.dispatch.cpp,
// simd_sincos_f32), one lane at a time. Large arguments fall back to libm like NumPy does.
inline float np_sincosf(float x_in, bool want_cos) {
  if (std::isnan(x_in)) return std::numeric_limits<float>::quiet_NaN();
  const float max_cody = want_cos ? 71476.0625f : 117435.992f;
  if (!(std::fabs(x_in) <= max_cody)) return want_cos ? ::cosf(x_in) : ::sinf(x_in);

  const float two_over_pi = 0x1.45f306p-1f;
  const float pio2_high = -0x1.921fb0p+00f;
  const float pio2_med = -0x1.5110b4p-22f;
  const float pio2_low = -0x1.846988p-48f;
  const float rint_magic = opaque(0x1.800000p+23f);

  // NumPy's build contracts the Mul + Add of the rint trick into one FMA.
  float quadrant = std::fma(x_in, two_over_pi, rint_magic);
  quadrant = quadrant - rint_magic;

  float r = std::fma(quadrant, pio2_high, x_in);
  r = std::fma(quadrant, pio2_med, r);
  r = std::fma(quadrant, pio2_low, r);
  const float r2 = r * r;

  float c = std::fma(0x1.98e616p-16f, r2, -0x1.6c06dcp-10f);
  c = std::fma(c, r2, 0x1.55553cp-05f);
  c = std::fma(c, r2, -0x1.000000p-01f);
  c = std::fma(c, r2, 0x1.000000p+00f);

  float s = std::fma(0x1.7d3bbcp-19f, r2, -0x1.a06bbap-13f);
  s = std::fma(s, r2, 0x1.11119ap-07f);
  s = std::fma(s, r2, -0x1.555556p-03f);
  s = std::fma(s, r2, 0.0f);
  s = std::fma(s, r, r);

  int32_t iq = static_cast<int32_t>(std::nearbyint(quadrant));
  if (want_cos) iq += 1;
  float out = (iq & 1) == 0 ? s : c;
  if ((iq & 2) == 2) out = 0.0f - out;
  return out;
}
inline float np_sinf(float x) { return np_sincosf(x, false); }
inline float np_cosf(float x) { return np_sincosf(x, true); }

// A Python/NumPy float scalar together with its type, combined by NEP 50 rules:
//   f32 (np.float32), f64 (np.float64) and py (a Python float or int: "weak", it takes the
//   other operand's dtype). f32 op py -> f32 (py cast to float32 first); f32 op f64 -> f64;
//   py op py -> py. Comparisons are made in the promoted type the same way.
//
// float32 values are kept in a `float` field, never as a float-rounded double: GCC 12's SLP
// vectorizer (-O2 and up, x86-64) can drop a double -> float -> double round trip when two
// such stores sit side by side, silently keeping the unrounded double.
struct NpScalar {
  enum class Kind : uint8_t { kF32, kF64, kPy };
  double d = 0.0;  // value when kind != kF32
  float f = 0.0f;  // value when kind == kF32
  Kind kind = Kind::kPy;

  static NpScalar f32(float x) { return {0.0, x, Kind::kF32}; }
  static NpScalar f64(double x) { return {x, 0.0f, Kind::kF64}; }
  static NpScalar py(double x) { return {x, 0.0f, Kind::kPy}; }

  bool is_f32() const { return kind == Kind::kF32; }
  // The value as a double (exact for every kind).
  double as_f64() const { return kind == Kind::kF32 ? static_cast<double>(f) : d; }
  // The value cast to float32, as NumPy casts a weak Python float (or reads an np.float32).
  float as_f32() const { return kind == Kind::kF32 ? f : static_cast<float>(d); }
};

inline NpScalar::Kind promote(NpScalar::Kind a, NpScalar::Kind b) {
  using K = NpScalar::Kind;
  if (a == K::kF64 || b == K::kF64) return K::kF64;
  if (a == K::kF32 || b == K::kF32) return K::kF32;
  return K::kPy;
}

#define ENVHIVE_NPSCALAR_ARITH(OP)                                                  \
  inline NpScalar operator OP(const NpScalar& a, const NpScalar& b) {               \
    const NpScalar::Kind k = promote(a.kind, b.kind);                               \
    if (k == NpScalar::Kind::kF32) return NpScalar::f32(a.as_f32() OP b.as_f32());  \
    return {a.as_f64() OP b.as_f64(), 0.0f, k};                                     \
  }
ENVHIVE_NPSCALAR_ARITH(+)
ENVHIVE_NPSCALAR_ARITH(-)
ENVHIVE_NPSCALAR_ARITH(*)
#undef ENVHIVE_NPSCALAR_ARITH

#define ENVHIVE_NPSCALAR_CMP(OP)                                                    \
  inline bool operator OP(const NpScalar& a, const NpScalar& b) {                   \
    if (promote(a.kind, b.kind) == NpScalar::Kind::kF32) return a.as_f32() OP b.as_f32(); \
    return a.as_f64() OP b.as_f64();                                                \
  }
ENVHIVE_NPSCALAR_CMP(<)
ENVHIVE_NPSCALAR_CMP(>)
ENVHIVE_NPSCALAR_CMP(<=)
ENVHIVE_NPSCALAR_CMP(>=)
ENVHIVE_NPSCALAR_CMP(==)
#undef ENVHIVE_NPSCALAR_CMP

}  // namespace envhive::npcompat
