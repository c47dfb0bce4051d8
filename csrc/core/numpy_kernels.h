// numpy's own kernels, called where a reference calls numpy, so that a task computes exactly what
// its Python reference computes on the running CPU.
//
// numpy picks its SIMD loops per CPU (AVX-512, AVX2, baseline: `exp`, `log1p`, `tanh`, float32
// `sin`, ...), and its BLAS (OpenBLAS in the wheels) picks kernels per CPU too (`np.dot`,
// `np.linalg.norm`, `v.dot(M)`, `A.dot(B)` on float64): the same reference gives other last bits on
// another machine. No fixed C++ arithmetic can equal all of them, so the task calls the same
// functions, with the arguments numpy passes:
//   - a ufunc's inner loop, taken from the ufunc object of the running numpy (`functions[i]` of its
//     float64 / float32 signature). numpy hands a loop a stride of 0 for an operand of one element
//     (a scalar, a 0-d or a one-element array) and the item size for a contiguous array; some loops
//     take their SIMD path only for the latter, so the two forms are distinct calls here:
//     `scalar(f, x)` and `array(f, in, out, n)`.
//   - the CBLAS functions numpy's build calls (`ddot`, `dgemv`, `dgemm`, 32- or 64-bit integers),
//     with the arguments of numpy's `cblas_matrixproduct` / `DOUBLE_dot`.
// The bindings install both from the running numpy when a family module is imported
// (bindings/numpy_kernels.cc), before any env exists; the table is read-only afterwards. Without
// them (the C++ loop benchmarks and unit tests: no Python) the calls fall back to libm and to
// OpenBLAS's FMA loop order on x86-64-v3, which is what numpy computes on many CPUs but not all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace envhive::npk {

// The ufuncs tasks call (float64 unless named _f32), as numpy names them.
enum class Ufunc : uint8_t {
  kExp,
  kLog,
  kLog1p,
  kExpm1,
  kTanh,
  kCosh,
  kSinh,
  kSin,
  kCos,
  kTan,
  kArcsin,
  kArccos,
  kArctan,
  kArcsinh,
  kArccosh,
  kArctanh,
  kArctan2,  // binary
  kSinF32,
  kCosF32,
  kCount
};
inline constexpr size_t kUfuncCount = static_cast<size_t>(Ufunc::kCount);

// numpy's name of a ufunc, its argument count (1 or 2) and whether it is the float32 loop.
const char* ufunc_name(Ufunc f);
int ufunc_nin(Ufunc f);
bool ufunc_is_f32(Ufunc f);

// A numpy ufunc inner loop (PyUFuncGenericFunction) and the data numpy passes it.
struct UfuncLoop {
  void (*fn)(char** args, const std::ptrdiff_t* dimensions, const std::ptrdiff_t* steps, void* data) = nullptr;
  void* data = nullptr;
};

// CBLAS entry points numpy's build calls; `ilp64`: 64-bit integer arguments (scipy-openblas64).
struct Blas {
  bool ilp64 = false;
  void* ddot = nullptr;
  void* dgemv = nullptr;
  void* dgemm = nullptr;
  bool available() const { return ddot != nullptr && dgemv != nullptr && dgemm != nullptr; }
};

struct Kernels {
  UfuncLoop ufuncs[kUfuncCount];
  Blas blas;
  std::string blas_source;  // e.g. "scipy_cblas_ddot64_ (numpy's build)", for describe()
};

// Installs the kernels for this module (called once by the bindings at import, with the GIL).
void install(const Kernels& kernels);
const Kernels& installed();
// What is installed, for messages and tests: which ufuncs have numpy's loop, which BLAS.
std::string describe();

// np.f(x) of a scalar (a Python float, np.float64 / np.float32, a one-element array).
double scalar(Ufunc f, double x);
double scalar(Ufunc f, double x, double y);
float scalar_f32(Ufunc f, float x);
// np.f(a) of a contiguous float64 array of n elements, into out (may alias in).
void array(Ufunc f, const double* in, double* out, size_t n);
// Element i of np.f(a) for a contiguous array `a` of `n` elements whose element i is x: the loop's
// result for one element depends only on the element and on whether numpy ran it as an array of
// one (stride 0) or of several.
double element(Ufunc f, double x, size_t n);

// np.dot(a, b) of two contiguous float64 vectors of n elements (n == 1: a plain product, as numpy).
double dot(const double* a, const double* b, size_t n);
// np.linalg.norm(a) of a contiguous float64 vector: sqrt(a.dot(a)).
double norm(const double* a, size_t n);
// v.dot(m): a vector of `rows` and a C-contiguous rows x cols matrix (numpy: dgemv, row major,
// transposed); out has `cols` elements.
void vec_mat(const double* v, const double* m, size_t rows, size_t cols, double* out);
// m.dot(v): a C-contiguous rows x cols matrix and a vector of `cols` (dgemv, row major, not
// transposed); out has `rows` elements.
void mat_vec(const double* m, const double* v, size_t rows, size_t cols, double* out);
// a.dot(b) of C-contiguous l x k and k x n matrices (dgemm, row major); out is l x n.
void mat_mat(const double* a, const double* b, size_t l, size_t k, size_t n, double* out);

}  // namespace envhive::npk
