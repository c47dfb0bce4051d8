// numpy's own kernels for the tasks of a module (core/numpy_kernels.h), installed at import.
#pragma once

namespace envhive::bindings {
// Reads the ufunc loops and the CBLAS functions of the running numpy into npk::install (GIL held).
void install_numpy_kernels();
}  // namespace envhive::bindings
