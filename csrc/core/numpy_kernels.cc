#include "numpy_kernels.h"

#include <cmath>
#include <stdexcept>

#include "numpy_compat.h"

namespace envhive::npk {

namespace {

struct UfuncDecl {
  const char* name;
  int nin;
  bool f32;
};

constexpr UfuncDecl kDecls[kUfuncCount] = {
    {"exp", 1, false},     {"log", 1, false},     {"log1p", 1, false},   {"expm1", 1, false},
    {"tanh", 1, false},    {"cosh", 1, false},    {"sinh", 1, false},    {"sin", 1, false},
    {"cos", 1, false},     {"tan", 1, false},     {"arcsin", 1, false},  {"arccos", 1, false},
    {"arctan", 1, false},  {"arcsinh", 1, false}, {"arccosh", 1, false}, {"arctanh", 1, false},
    {"arctan2", 2, false}, {"sin", 1, true},      {"cos", 1, true},
};

// CBLAS's enum values (cblas.h).
constexpr int kRowMajor = 101;
constexpr int kNoTrans = 111;
constexpr int kTrans = 112;

Kernels& table() {
  static Kernels kernels;
  return kernels;
}

const UfuncDecl& decl(Ufunc f) { return kDecls[static_cast<size_t>(f)]; }

// libm, where numpy's loop is not installed (what numpy's scalar loops call on x86-64 Linux).
double libm(Ufunc f, double x, double y) {
  switch (f) {
    case Ufunc::kExp: return std::exp(x);
    case Ufunc::kLog: return std::log(x);
    case Ufunc::kLog1p: return std::log1p(x);
    case Ufunc::kExpm1: return std::expm1(x);
    case Ufunc::kTanh: return std::tanh(x);
    case Ufunc::kCosh: return std::cosh(x);
    case Ufunc::kSinh: return std::sinh(x);
    case Ufunc::kSin: return std::sin(x);
    case Ufunc::kCos: return std::cos(x);
    case Ufunc::kTan: return std::tan(x);
    case Ufunc::kArcsin: return std::asin(x);
    case Ufunc::kArccos: return std::acos(x);
    case Ufunc::kArctan: return std::atan(x);
    case Ufunc::kArcsinh: return std::asinh(x);
    case Ufunc::kArccosh: return std::acosh(x);
    case Ufunc::kArctanh: return std::atanh(x);
    case Ufunc::kArctan2: return std::atan2(x, y);
    default: break;
  }
  throw std::logic_error(std::string("npk: no float64 fallback for ") + decl(f).name);
}

const UfuncLoop& loop_of(Ufunc f) { return table().ufuncs[static_cast<size_t>(f)]; }

void check_f64(Ufunc f, int nin) {
  if (decl(f).f32 || decl(f).nin != nin)
    throw std::logic_error(std::string("npk: ") + decl(f).name + " called with the wrong signature");
}

// One element through numpy's loop: stride 0 (numpy's form for a one-element operand) or the item
// size (an element of a contiguous array of several).
double run_f64(const UfuncLoop& loop, double x, double y, int nin, bool strided) {
  double out = 0.0;
  const std::ptrdiff_t n = 1;
  const std::ptrdiff_t step = strided ? static_cast<std::ptrdiff_t>(sizeof(double)) : 0;
  const std::ptrdiff_t steps[3] = {step, step, step};
  char* args[3];
  args[0] = reinterpret_cast<char*>(&x);
  if (nin == 2) {
    args[1] = reinterpret_cast<char*>(&y);
    args[2] = reinterpret_cast<char*>(&out);
  } else {
    args[1] = reinterpret_cast<char*>(&out);
  }
  loop.fn(args, &n, steps, loop.data);
  return out;
}

using DdotLp64 = double (*)(int, const double*, int, const double*, int);
using DdotIlp64 = double (*)(int64_t, const double*, int64_t, const double*, int64_t);
using DgemvLp64 = void (*)(int, int, int, int, double, const double*, int, const double*, int, double, double*, int);
using DgemvIlp64 = void (*)(int, int, int64_t, int64_t, double, const double*, int64_t, const double*, int64_t, double,
                            double*, int64_t);
using DgemmLp64 = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                           double*, int);
using DgemmIlp64 = void (*)(int, int, int, int64_t, int64_t, int64_t, double, const double*, int64_t, const double*,
                            int64_t, double, double*, int64_t);

double cblas_ddot(size_t n, const double* a, const double* b) {
  const Blas& blas = table().blas;
  if (blas.ilp64) return reinterpret_cast<DdotIlp64>(blas.ddot)(static_cast<int64_t>(n), a, 1, b, 1);
  return reinterpret_cast<DdotLp64>(blas.ddot)(static_cast<int>(n), a, 1, b, 1);
}

// dgemv(row major, trans, m, n, 1, A, lda, x, 1, 0, y, 1) as numpy's gemv() helper calls it.
void cblas_dgemv(int trans, size_t m, size_t n, const double* a, const double* x, double* y) {
  const Blas& blas = table().blas;
  const size_t lda = n > 1 ? n : 1;
  if (blas.ilp64)
    reinterpret_cast<DgemvIlp64>(blas.dgemv)(kRowMajor, trans, static_cast<int64_t>(m), static_cast<int64_t>(n), 1.0,
                                             a, static_cast<int64_t>(lda), x, 1, 0.0, y, 1);
  else
    reinterpret_cast<DgemvLp64>(blas.dgemv)(kRowMajor, trans, static_cast<int>(m), static_cast<int>(n), 1.0, a,
                                            static_cast<int>(lda), x, 1, 0.0, y, 1);
}

// Without numpy's BLAS: OpenBLAS's order on x86-64-v3 kernels for short vectors (one fused
// multiply-add per element, in element order).
double fma_dot(const double* a, const double* b, size_t n, size_t stride_b = 1) {
  double acc = 0.0;
  for (size_t i = 0; i < n; ++i) acc = std::fma(b[i * stride_b], a[i], acc);
  return acc;
}

void check_matrix(size_t rows, size_t cols, const char* what) {
  // numpy treats a dimension of 1 as a vector or a scalar, which these calls do not model.
  if (rows < 2 || cols < 2) throw std::logic_error(std::string("npk::") + what + ": both dimensions must be >= 2");
}

}  // namespace

const char* ufunc_name(Ufunc f) { return decl(f).name; }
int ufunc_nin(Ufunc f) { return decl(f).nin; }
bool ufunc_is_f32(Ufunc f) { return decl(f).f32; }

void install(const Kernels& kernels) { table() = kernels; }
const Kernels& installed() { return table(); }

std::string describe() {
  std::string loops, missing;
  for (size_t i = 0; i < kUfuncCount; ++i) {
    const UfuncDecl& d = kDecls[i];
    std::string name = std::string(d.name) + (d.f32 ? "[f32]" : "");
    (table().ufuncs[i].fn ? loops : missing) += (name + " ");
  }
  std::string out = "numpy loops: " + (loops.empty() ? std::string("none ") : loops);
  if (!missing.empty()) out += "; libm: " + missing;
  out += "; BLAS: " + (table().blas.available() ? table().blas_source : std::string("none (FMA loops)"));
  return out;
}

double scalar(Ufunc f, double x) {
  check_f64(f, 1);
  const UfuncLoop& loop = loop_of(f);
  return loop.fn ? run_f64(loop, x, 0.0, 1, false) : libm(f, x, 0.0);
}

double scalar(Ufunc f, double x, double y) {
  check_f64(f, 2);
  const UfuncLoop& loop = loop_of(f);
  return loop.fn ? run_f64(loop, x, y, 2, false) : libm(f, x, y);
}

float scalar_f32(Ufunc f, float x) {
  if (!decl(f).f32) throw std::logic_error(std::string("npk: ") + decl(f).name + " is not a float32 loop");
  const UfuncLoop& loop = loop_of(f);
  if (!loop.fn) return f == Ufunc::kSinF32 ? npcompat::np_sinf(x) : npcompat::np_cosf(x);
  float out = 0.0f;
  const std::ptrdiff_t n = 1;
  const std::ptrdiff_t steps[2] = {0, 0};
  char* args[2] = {reinterpret_cast<char*>(&x), reinterpret_cast<char*>(&out)};
  loop.fn(args, &n, steps, loop.data);
  return out;
}

void array(Ufunc f, const double* in, double* out, size_t n) {
  check_f64(f, 1);
  const UfuncLoop& loop = loop_of(f);
  if (!loop.fn) {
    for (size_t i = 0; i < n; ++i) out[i] = libm(f, in[i], 0.0);
    return;
  }
  if (n == 0) return;
  const std::ptrdiff_t count = static_cast<std::ptrdiff_t>(n);
  const std::ptrdiff_t step = n == 1 ? 0 : static_cast<std::ptrdiff_t>(sizeof(double));
  const std::ptrdiff_t steps[2] = {step, step};
  char* args[2] = {reinterpret_cast<char*>(const_cast<double*>(in)), reinterpret_cast<char*>(out)};
  loop.fn(args, &count, steps, loop.data);
}

double element(Ufunc f, double x, size_t n) {
  check_f64(f, 1);
  const UfuncLoop& loop = loop_of(f);
  if (!loop.fn) return libm(f, x, 0.0);
  return run_f64(loop, x, 0.0, 1, n > 1);
}

double dot(const double* a, const double* b, size_t n) {
  if (n == 0) return 0.0;
  if (n == 1) return b[0] * a[0];  // numpy: a one-element operand is a scalar, no BLAS
  if (!table().blas.available()) return fma_dot(a, b, n);
  double sum = 0.0;  // DOUBLE_dot: `sum += cblas_ddot(...)` (so -0.0 becomes 0.0)
  sum += cblas_ddot(n, a, b);
  return sum;
}

double norm(const double* a, size_t n) { return std::sqrt(dot(a, a, n)); }

void vec_mat(const double* v, const double* m, size_t rows, size_t cols, double* out) {
  check_matrix(rows, cols, "vec_mat");
  if (!table().blas.available()) {
    for (size_t c = 0; c < cols; ++c) out[c] = fma_dot(v, m + c, rows, cols);
    return;
  }
  for (size_t c = 0; c < cols; ++c) out[c] = 0.0;
  cblas_dgemv(kTrans, rows, cols, m, v, out);
}

void mat_vec(const double* m, const double* v, size_t rows, size_t cols, double* out) {
  check_matrix(rows, cols, "mat_vec");
  if (!table().blas.available()) {
    for (size_t r = 0; r < rows; ++r) out[r] = fma_dot(m + r * cols, v, cols);
    return;
  }
  for (size_t r = 0; r < rows; ++r) out[r] = 0.0;
  cblas_dgemv(kNoTrans, rows, cols, m, v, out);
}

void mat_mat(const double* a, const double* b, size_t l, size_t k, size_t n, double* out) {
  check_matrix(l, k, "mat_mat");
  check_matrix(k, n, "mat_mat");
  if (!table().blas.available()) {
    for (size_t r = 0; r < l; ++r)
      for (size_t c = 0; c < n; ++c) out[r * n + c] = fma_dot(a + r * k, b + c, k, n);
    return;
  }
  for (size_t i = 0; i < l * n; ++i) out[i] = 0.0;
  const Blas& blas = table().blas;
  const size_t lda = k, ldb = n, ldc = n;
  if (blas.ilp64)
    reinterpret_cast<DgemmIlp64>(blas.dgemm)(kRowMajor, kNoTrans, kNoTrans, static_cast<int64_t>(l),
                                             static_cast<int64_t>(n), static_cast<int64_t>(k), 1.0, a,
                                             static_cast<int64_t>(lda), b, static_cast<int64_t>(ldb), 0.0, out,
                                             static_cast<int64_t>(ldc));
  else
    reinterpret_cast<DgemmLp64>(blas.dgemm)(kRowMajor, kNoTrans, kNoTrans, static_cast<int>(l), static_cast<int>(n),
                                            static_cast<int>(k), 1.0, a, static_cast<int>(lda), b,
                                            static_cast<int>(ldb), 0.0, out, static_cast<int>(ldc));
}

}  // namespace envhive::npk
