// envhive._dmc: the DeepMind Control Suite, linked against the libmujoco of the `mujoco` package
// (import `mujoco` first; envhive.catalog does). Each task's model is the XML dm_control builds for
// it, fetched through envhive.dmc_assets (which imports dm_control) the first time the task's
// spaces are resolved, with the GIL taken for that call only.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "../core/random_state.h"
#include "../envs/dmc/dmc.h"
#include "../envs/dmc/quadruped_escape.h"
#include "../envs/dmc/spline_zoom.h"
#include "module_tasks.h"

namespace nb = nanobind;

namespace envhive {

namespace {
dmc::ModelFiles model_files(const std::string& domain, const std::string& task, const dmc::ModelKwargs& kwargs) {
  nb::gil_scoped_acquire gil;
  nb::dict py_kwargs;
  for (const auto& [name, value] : kwargs) py_kwargs[name.c_str()] = value;
  nb::object files = nb::module_::import_("envhive.dmc_assets").attr("model_files")(domain, task, py_kwargs);
  dmc::ModelFiles out;
  out.xml = nb::cast<std::string>(files[0]);
  for (nb::handle item : nb::cast<nb::dict>(files[1]).items()) {
    nb::tuple kv = nb::borrow<nb::tuple>(item);
    nb::bytes contents = nb::cast<nb::bytes>(kv[1]);
    out.assets.emplace_back(nb::cast<std::string>(kv[0]), std::string(contents.c_str(), contents.size()));
  }
  return out;
}
}  // namespace

void register_module_tasks(TaskRegistry& registry) { register_dmc(registry, &model_files); }

void bind_module_extras(nanobind::module_& m) {
  // numpy.random.RandomState(seed) draws, for tests/test_dmc_random_state.py: each call is
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
  // to out_rows x out_cols, and quadruped escape's first terrain for a seed: tests/test_dmc.py
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
