// The DMC family's Python functions (envhive_add_family's BINDINGS), for its tests: numpy's
// RandomState draws (tests/families/dmc/test_dmc_random_state.py), scipy.ndimage.zoom as quadruped
// escape uses it, and escape's first terrain for a seed (tests/families/dmc/test_dmc_kwargs.py).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <tuple>
#include <vector>

#include "../../core/random_state.h"
#include "model_source.h"
#include "quadruped_escape.h"
#include "spline_zoom.h"

namespace nb = nanobind;

namespace envhive {

void bind_dmc_extras(nb::module_& m) {
  // The suite tasks whose compiled models are cached now (each is freed with its last pool's envs).
  m.def("_dmc_cached_models", [] { return dmc::cached_task_models(); });
  // numpy.random.RandomState(seed) draws, for tests/families/dmc/test_dmc_random_state.py: each call is
  // (method, a, b, n) and yields n values (method: random_sample, uniform, standard_normal,
  // randint, interval, next_u32).
  m.def(
      "_random_state_draws",
      [](uint64_t seed, const std::vector<std::tuple<std::string, double, double, int>>& calls) {
        RandomState rs;
        rs.seed(seed);
        std::vector<double> out;
        for (const auto& [method, a, b, n] : calls)
          for (int i = 0; i < n; ++i) {
            if (method == "random_sample") out.push_back(rs.random_sample());
            else if (method == "uniform") out.push_back(rs.uniform(a, b));
            else if (method == "standard_normal") out.push_back(rs.standard_normal());
            else if (method == "randint") out.push_back(static_cast<double>(rs.randint(static_cast<int64_t>(a), static_cast<int64_t>(b))));
            else if (method == "interval") out.push_back(static_cast<double>(rs.interval(static_cast<uint64_t>(a))));
            else if (method == "next_u32") out.push_back(rs.next_u32());
            else throw std::invalid_argument("unknown RandomState method '" + method + "'");
          }
        return out;
      },
      nb::arg("seed"), nb::arg("calls"));
  // scipy.ndimage.zoom(a, zoom, order=3, mode='constant') of a rows x cols array (row-major values)
  // to out_rows x out_cols, and quadruped escape's first terrain for a seed: tests/families/dmc/test_dmc_kwargs.py
  // compares them with scipy and dm_control.
  m.def(
      "_spline_zoom",
      [](const std::vector<double>& values, int64_t rows, int64_t cols, int64_t out_rows, int64_t out_cols) {
        return dmc::spline_zoom(values, rows, cols, out_rows, out_cols);
      },
      nb::arg("values"), nb::arg("rows"), nb::arg("cols"), nb::arg("out_rows"), nb::arg("out_cols"));
  m.def(
      "_escape_terrain",
      [](uint32_t seed, int64_t res, double half_size) {
        RandomState rs;
        rs.seed(seed);
        return dmc::escape_terrain(rs, res, half_size);
      },
      nb::arg("seed"), nb::arg("res"), nb::arg("half_size"));
}

}  // namespace envhive
