// Installs numpy's own kernels for the tasks of this module (core/numpy_kernels.h): each ufunc's
// inner loop for its float64 (float32) signature, read off the ufunc object of the running numpy,
// and the CBLAS functions numpy's build calls, found in numpy's multiarray module's own link scope.
#include "numpy_kernel_install.h"

#include <dlfcn.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

// The ufunc object's layout only; no function of numpy's ufunc C API is called.
#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL envhive_ARRAY_API
#define NO_IMPORT_UFUNC
#define PY_UFUNC_UNIQUE_SYMBOL envhive_UFUNC_API
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>

#include "../core/numpy_kernels.h"

namespace nb = nanobind;

namespace envhive::bindings {

namespace {

// The loop of `ufunc` whose every argument has type `typenum`, or an empty one.
npk::UfuncLoop ufunc_loop(nb::handle ufunc_type, nb::handle ufunc, int nargs, int typenum) {
  if (!nb::isinstance(ufunc, ufunc_type)) return {};
  auto* u = reinterpret_cast<PyUFuncObject*>(ufunc.ptr());
  if (u->nargs != nargs || u->functions == nullptr || u->types == nullptr) return {};
  for (int i = 0; i < u->ntypes; ++i) {
    bool match = true;
    for (int a = 0; a < nargs; ++a) match = match && u->types[i * nargs + a] == typenum;
    if (match && u->functions[i] != nullptr) {
      npk::UfuncLoop loop;
      loop.fn = reinterpret_cast<decltype(loop.fn)>(u->functions[i]);
      loop.data = u->data != nullptr ? u->data[i] : nullptr;
      return loop;
    }
  }
  return {};
}

// numpy's CBLAS functions: the names numpy's builds use (scipy-openblas64's prefix and suffix, an
// ILP64 build's suffix, plain CBLAS), looked up from numpy's multiarray module, so the library
// numpy linked is the one found.
npk::Blas numpy_blas(std::string& source) {
  npk::Blas blas;
  nb::object multiarray;
  try {
    multiarray = nb::module_::import_("numpy._core._multiarray_umath");
  } catch (const nb::python_error&) {
    multiarray = nb::module_::import_("numpy.core._multiarray_umath");  // numpy 1.26
  }
  const std::string path = nb::cast<std::string>(multiarray.attr("__file__"));
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return blas;
  struct Naming {
    const char* prefix;
    const char* suffix;
    bool ilp64;
  };
  constexpr Naming kNamings[] = {{"scipy_", "64_", true}, {"scipy_", "", false}, {"", "64_", true}, {"", "", false}};
  for (const Naming& naming : kNamings) {
    auto find = [&](const char* name) { return dlsym(handle, (std::string(naming.prefix) + name + naming.suffix).c_str()); };
    npk::Blas found;
    found.ilp64 = naming.ilp64;
    found.ddot = find("cblas_ddot");
    found.dgemv = find("cblas_dgemv");
    found.dgemm = find("cblas_dgemm");
    if (found.available()) {
      blas = found;
      source = std::string(naming.prefix) + "cblas_ddot" + naming.suffix + " (numpy's BLAS)";
      break;
    }
  }
  dlclose(handle);  // numpy's module stays loaded: RTLD_NOLOAD only took another reference
  return blas;
}

// A kernel of core/numpy_kernels.h over `values`, for tests/test_numpy_kernels.py: a ufunc by its
// numpy name in one of its forms ("scalar": each value alone; "array": all values as one array;
// "element": each value as an element of an array of len(values); "f32": the float32 loop, each
// value alone; "scalar2": arctan2 of consecutive pairs), or a BLAS call ("dot", "norm": one vector;
// "vec_mat3", "mat_mat3": a 3-vector and 3x3 matrices, row major, concatenated).
std::vector<double> numpy_kernel_eval(const std::string& name, const std::string& form, std::vector<double> v) {
  std::vector<double> out;
  if (form == "dot") return {npk::dot(v.data(), v.data() + v.size() / 2, v.size() / 2)};
  if (form == "norm") return {npk::norm(v.data(), v.size())};
  if (form == "vec_mat3" || form == "mat_mat3") {
    const bool mat = form == "mat_mat3";
    if (v.size() != (mat ? 18u : 12u)) throw nb::value_error("vec_mat3: 3 + 9 values; mat_mat3: 9 + 9 values");
    out.assign(mat ? 9 : 3, 0.0);
    if (mat) npk::mat_mat(v.data(), v.data() + 9, 3, 3, 3, out.data());
    else npk::vec_mat(v.data(), v.data() + 3, 3, 3, out.data());
    return out;
  }
  for (size_t i = 0; i < npk::kUfuncCount; ++i) {
    const auto f = static_cast<npk::Ufunc>(i);
    if (name != npk::ufunc_name(f) || npk::ufunc_is_f32(f) != (form == "f32")) continue;
    if (form == "array") {
      out.resize(v.size());
      npk::array(f, v.data(), out.data(), v.size());
    } else if (form == "scalar2") {
      for (size_t k = 0; k + 1 < v.size(); k += 2) out.push_back(npk::scalar(f, v[k], v[k + 1]));
    } else {
      for (double x : v) {
        if (form == "scalar") out.push_back(npk::scalar(f, x));
        else if (form == "element") out.push_back(npk::element(f, x, v.size()));
        else if (form == "f32") out.push_back(npk::scalar_f32(f, static_cast<float>(x)));
        else throw nb::value_error(("unknown form '" + form + "'").c_str());
      }
    }
    return out;
  }
  throw nb::value_error(("no kernel '" + name + "' in form '" + form + "'").c_str());
}

}  // namespace

void install_numpy_kernels() {
  nb::module_ np = nb::module_::import_("numpy");
  npk::Kernels kernels;
  for (size_t i = 0; i < npk::kUfuncCount; ++i) {
    const auto f = static_cast<npk::Ufunc>(i);
    const int nargs = npk::ufunc_nin(f) + 1;
    kernels.ufuncs[i] =
        ufunc_loop(np.attr("ufunc"), np.attr(npk::ufunc_name(f)), nargs, npk::ufunc_is_f32(f) ? NPY_FLOAT : NPY_DOUBLE);
  }
  kernels.blas = numpy_blas(kernels.blas_source);
  npk::install(kernels);
}

void bind_numpy_kernel_checks(nb::module_& m) {
  m.def("_numpy_kernels", &npk::describe, "Which of numpy's kernels the tasks of this module call.");
  m.def("_numpy_kernel_eval", &numpy_kernel_eval, nb::arg("name"), nb::arg("form"), nb::arg("values"),
        "Tests: a kernel of core/numpy_kernels.h over values (form: scalar, array, element, f32).");
}

}  // namespace envhive::bindings
