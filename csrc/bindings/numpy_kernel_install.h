// numpy's own kernels for the tasks of a module (core/numpy_kernels.h), installed at import.
#pragma once

#include <nanobind/nanobind.h>

namespace envhive::bindings {
// Reads the ufunc loops and the CBLAS functions of the running numpy into npk::install (GIL held).
void install_numpy_kernels();
// _numpy_kernels() and _numpy_kernel_eval(): what is installed, and the kernels for the tests.
void bind_numpy_kernel_checks(nanobind::module_& m);
}  // namespace envhive::bindings
